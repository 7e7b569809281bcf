package dev.offheap.memory.alloc;

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
 */
final class NativeFunctions {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final FunctionDescriptor LONG_OF_LONG = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor LONG_OF_LONG_LONG =
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final FunctionDescriptor VOID_OF_LONG = FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG);

    /** System property naming the mimalloc shared library to load instead of searching for it. */
    static final String MIMALLOC_PATH_PROPERTY = "offheap.alloc.mimalloc.path";

    final String name;
    /** {@code void* malloc(size_t)}. */
    final MethodHandle malloc;
    /** {@code void* calloc(size_t, size_t)}. */
    final MethodHandle calloc;
    /** {@code void free(void*)}. */
    final MethodHandle free;
    /** {@code void* aligned_alloc(size_t alignment, size_t size)}, or mimalloc's {@code mi_malloc_aligned(size, alignment)}. */
    final MethodHandle alignedAlloc;
    /** Whether {@link #alignedAlloc} takes (size, alignment) rather than (alignment, size). */
    final boolean sizeFirst;
    /** mimalloc's {@code mi_zalloc_aligned(size, alignment)}, or null for the C library (calloc has no aligned form). */
    final MethodHandle zallocAligned;
    /** The alignment plain malloc guarantees for every size: 16 for glibc, 8 for mimalloc (its blocks under 16 bytes). */
    final long mallocAlignment;

    private NativeFunctions(String name, SymbolLookup lookup, String malloc, String calloc, String free, String aligned,
                            boolean sizeFirst, String zallocAligned) {
        this.name = name;
        this.malloc = bind(lookup, malloc, LONG_OF_LONG);
        this.calloc = bind(lookup, calloc, LONG_OF_LONG_LONG);
        this.free = bind(lookup, free, VOID_OF_LONG);
        this.alignedAlloc = bind(lookup, aligned, LONG_OF_LONG_LONG);
        this.sizeFirst = sizeFirst;
        this.zallocAligned = zallocAligned == null ? null : bind(lookup, zallocAligned, LONG_OF_LONG_LONG);
        this.mallocAlignment = sizeFirst ? 8 : 16;
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

    // downcallHandle is restricted: each descriptor matches the C prototype documented on its field.
    @SuppressWarnings("restricted")
    private static MethodHandle bind(SymbolLookup lookup, String function, FunctionDescriptor descriptor) {
        MemorySegment address = lookup.find(function)
                .orElseThrow(() -> new IllegalStateException("native function " + function + " not found"));
        return LINKER.downcallHandle(address, descriptor, CRITICAL);
    }

    private static final class Libc {
        static final NativeFunctions FUNCTIONS = new NativeFunctions("malloc", LINKER.defaultLookup(),
                "malloc", "calloc", "free", "aligned_alloc", false, null);
    }

    /**
     * mimalloc, looked up in the global arena: a library loaded in a closeable arena is unloaded when
     * the arena closes, and a later call into it (or a segment it allocated being freed) crashes the
     * JVM, so it stays loaded for the process's lifetime.
     */
    private static final class Mimalloc {
        static final NativeFunctions FUNCTIONS;
        static final String PROBLEM;

        static {
            NativeFunctions found = null;
            List<String> failures = new ArrayList<>();
            for (String candidate : candidates()) {
                try {
                    SymbolLookup lookup = load(candidate);
                    if (lookup == null) {
                        failures.add(candidate + ": no such file");
                        continue;
                    }
                    found = new NativeFunctions("mimalloc", lookup, "mi_malloc", "mi_calloc", "mi_free",
                            "mi_malloc_aligned", true, "mi_zalloc_aligned");
                    break;
                } catch (RuntimeException e) {
                    failures.add(candidate + ": " + e.getMessage());
                }
            }
            FUNCTIONS = found;
            PROBLEM = found != null ? null : "mimalloc is not available: no shared library could be loaded ("
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
            return (long) malloc.invokeExact(size);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    long calloc(long size) {
        try {
            return (long) calloc.invokeExact(1L, size);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /**
     * @param alignment a power of two larger than 16
     * @param size      at least 1
     */
    long alignedAlloc(long alignment, long size) {
        try {
            if (sizeFirst) {
                return (long) alignedAlloc.invokeExact(size, alignment);
            }
            // C11 aligned_alloc wants a size that is a multiple of the alignment
            long rounded = (size + alignment - 1) & -alignment;
            return (long) alignedAlloc.invokeExact(alignment, rounded);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    /** @return zeroed aligned memory, or 0 if this allocator has no aligned zeroing function */
    long zallocAligned(long alignment, long size) {
        if (zallocAligned == null) {
            return 0;
        }
        try {
            return (long) zallocAligned.invokeExact(size, alignment);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    void free(long address) {
        try {
            free.invokeExact(address);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    static RuntimeException rethrow(Throwable e) {
        if (e instanceof RuntimeException r) {
            throw r;
        }
        if (e instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException("native call failed", e);
    }
}
