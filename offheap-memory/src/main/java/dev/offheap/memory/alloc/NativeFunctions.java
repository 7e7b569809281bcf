package dev.offheap.memory.alloc;

import dev.offheap.memory.internal.Failures;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Downcalls to one C allocator (the C library's malloc family, or mimalloc's {@code mi_*} functions)
 * and to the memory-mapping system calls. Addresses travel as {@code long}s: no segment is made for
 * a return value that is only an address, which keeps a downcall at a few nanoseconds.
 *
 * <p>The allocation functions are bound as {@linkplain Linker.Option#critical(boolean) critical}:
 * they never call back into Java and return quickly, so skipping the thread-state transition is
 * safe and halves the cost of a small allocation. The system calls are bound normally, since they
 * may block.
 *
 * <p>Not final only so that a test can give a {@link NativeAllocator} a stand-in for the C allocator
 * ({@link NativeAllocator.Builder#functions}), one that places blocks where the test says. No subclass
 * exists in the library, so class-hierarchy analysis binds every call here as it would for a final class.
 */
class NativeFunctions {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final FunctionDescriptor LONG_OF_LONG = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor LONG_OF_LONG_LONG =
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor VOID_OF_LONG = FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG);

    /** System property naming the mimalloc shared library to load instead of searching for it. */
    static final String MIMALLOC_PATH_PROPERTY = "offheap.alloc.mimalloc.path";

    final String name;
    /** Whether these are mimalloc's functions; else the C library's. */
    private final boolean isMimalloc;
    /** The alignment plain malloc guarantees for every size: 16 for glibc, 8 for mimalloc (its blocks under 16 bytes). */
    final long mallocAlignment;

    /**
     * @param name       named in messages ("malloc", "mimalloc")
     * @param isMimalloc whether the calls go to mimalloc's functions; else to the C library's
     */
    NativeFunctions(String name, boolean isMimalloc) {
        this.name = name;
        this.isMimalloc = isMimalloc;
        this.mallocAlignment = isMimalloc ? 8 : 16;
    }

    /** The C library's allocator. */
    static NativeFunctions libc() {
        return Libc.FUNCTIONS;
    }

    /** @return mimalloc's functions, loaded once for the life of the process, or empty with {@link #mimallocProblem()} */
    static Optional<NativeFunctions> mimalloc() {
        return Optional.ofNullable(Mimalloc.FUNCTIONS);
    }

    /** @return why mimalloc could not be loaded, or null if it was */
    static String mimallocProblem() {
        return Mimalloc.PROBLEM;
    }

    // downcallHandle is restricted: each descriptor matches the C prototype named next to its use.
    @SuppressWarnings("restricted")
    private static MethodHandle bind(SymbolLookup lookup, String function, FunctionDescriptor descriptor) {
        MemorySegment address = lookup.find(function)
                .orElseThrow(() -> new IllegalStateException("native function " + function + " not found"));
        return LINKER.downcallHandle(address, descriptor, CRITICAL);
    }

    /*
     * The method handles live in static final fields of the two holders below, never in fields of an
     * instance: C2 inlines a downcall only through a method handle it sees as a constant. Held in an
     * instance's final field, each call went through the handle's generic invocation path, and the
     * library's malloc-backed allocate + free took 3.2x the time of the bare downcalls (36.6 against
     * 11.4 ns at 16 bytes in the committed shootout).
     */

    /** The C library's functions: {@code malloc}, {@code calloc}, {@code free}, {@code aligned_alloc(alignment, size)}. */
    private static final class Libc {
        static final MethodHandle MALLOC = bind(LINKER.defaultLookup(), "malloc", LONG_OF_LONG);
        static final MethodHandle CALLOC = bind(LINKER.defaultLookup(), "calloc", LONG_OF_LONG_LONG);
        static final MethodHandle FREE = bind(LINKER.defaultLookup(), "free", VOID_OF_LONG);
        static final MethodHandle ALIGNED_ALLOC = bind(LINKER.defaultLookup(), "aligned_alloc", LONG_OF_LONG_LONG);
        static final NativeFunctions FUNCTIONS = new NativeFunctions("malloc", false);
    }

    /**
     * mimalloc, looked up in the global arena: a library loaded in a closeable arena is unloaded when
     * the arena closes, and a later call into it (or a segment it allocated being freed) crashes the
     * JVM, so it stays loaded for the process's lifetime. Its handles are null if it is not installed;
     * then {@link #FUNCTIONS} is null too and nothing calls them.
     */
    private static final class Mimalloc {
        /** {@code mi_malloc(size)}, {@code mi_calloc(count, size)}, {@code mi_free(p)}. */
        static final MethodHandle MALLOC;
        static final MethodHandle CALLOC;
        static final MethodHandle FREE;
        /** {@code mi_malloc_aligned(size, alignment)} and {@code mi_zalloc_aligned(size, alignment)}: size first. */
        static final MethodHandle MALLOC_ALIGNED;
        static final MethodHandle ZALLOC_ALIGNED;
        static final NativeFunctions FUNCTIONS;
        static final String PROBLEM;

        static {
            MethodHandle[] handles = null;
            List<String> failures = new ArrayList<>();
            for (String candidate : candidates()) {
                try {
                    SymbolLookup lookup = load(candidate);
                    if (lookup == null) {
                        failures.add(candidate + ": no such file");
                        continue;
                    }
                    handles = new MethodHandle[] {bind(lookup, "mi_malloc", LONG_OF_LONG),
                            bind(lookup, "mi_calloc", LONG_OF_LONG_LONG), bind(lookup, "mi_free", VOID_OF_LONG),
                            bind(lookup, "mi_malloc_aligned", LONG_OF_LONG_LONG),
                            bind(lookup, "mi_zalloc_aligned", LONG_OF_LONG_LONG)};
                    break;
                } catch (RuntimeException e) {
                    failures.add(candidate + ": " + e.getMessage());
                }
            }
            MALLOC = handles == null ? null : handles[0];
            CALLOC = handles == null ? null : handles[1];
            FREE = handles == null ? null : handles[2];
            MALLOC_ALIGNED = handles == null ? null : handles[3];
            ZALLOC_ALIGNED = handles == null ? null : handles[4];
            FUNCTIONS = handles == null ? null : new NativeFunctions("mimalloc", true);
            PROBLEM = handles != null ? null : "mimalloc is not available: no shared library could be loaded ("
                    + String.join("; ", failures) + "). Install the Debian package libmimalloc2.0, or set -D"
                    + MIMALLOC_PATH_PROPERTY + "=/path/to/libmimalloc.so.2";
        }

        // libraryLookup is restricted: the library is loaded into the global arena, never unloaded.
        @SuppressWarnings("restricted")
        private static SymbolLookup load(String candidate) {
            if (candidate.contains("/")) {
                return Files.exists(Path.of(candidate)) ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global()) : null;
            }
            return SymbolLookup.libraryLookup(candidate, Arena.global());
        }

        private static List<String> candidates() {
            List<String> candidates = new ArrayList<>();
            String configured = System.getProperty(MIMALLOC_PATH_PROPERTY);
            if (configured != null && !configured.isBlank()) {
                candidates.add(configured.strip());
            } else {
                candidates.add("libmimalloc.so.2");
                candidates.add("libmimalloc.so");
                candidates.add("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2");
                candidates.add("/usr/lib/aarch64-linux-gnu/libmimalloc.so.2");
                candidates.add("libmimalloc.dylib");
            }
            return candidates;
        }
    }

    // ------------------------------------------------------------------ calls

    long malloc(long size) {
        try {
            return isMimalloc ? (long) Mimalloc.MALLOC.invokeExact(size) : (long) Libc.MALLOC.invokeExact(size);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }

    long calloc(long size) {
        try {
            return isMimalloc ? (long) Mimalloc.CALLOC.invokeExact(1L, size) : (long) Libc.CALLOC.invokeExact(1L, size);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }

    /**
     * @param alignment a power of two larger than 16
     * @param size      at least 1
     */
    long alignedAlloc(long alignment, long size) {
        try {
            if (isMimalloc) {
                return (long) Mimalloc.MALLOC_ALIGNED.invokeExact(size, alignment);
            }
            // C11 aligned_alloc wants a size that is a multiple of the alignment
            long rounded = (size + alignment - 1) & -alignment;
            return (long) Libc.ALIGNED_ALLOC.invokeExact(alignment, rounded);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }

    /** @return zeroed aligned memory, or 0 if this allocator has no aligned zeroing function (the C library's) */
    long zallocAligned(long alignment, long size) {
        if (!isMimalloc) {
            return 0;
        }
        try {
            return (long) Mimalloc.ZALLOC_ALIGNED.invokeExact(size, alignment);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }

    void free(long address) {
        try {
            if (isMimalloc) {
                Mimalloc.FREE.invokeExact(address);
            } else {
                Libc.FREE.invokeExact(address);
            }
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }
}
