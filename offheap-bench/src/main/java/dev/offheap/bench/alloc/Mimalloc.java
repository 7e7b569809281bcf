package dev.offheap.bench.alloc;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.offheap.bench.Precondition;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * mimalloc as a baseline: {@code mi_malloc}, {@code mi_calloc} and {@code mi_free} as raw critical
 * downcalls (see {@link Libc} for why critical is allowed), and {@code mi_process_info} and
 * {@code mi_collect} for the fragmentation experiment.
 *
 * <p>The library is looked up once, in {@link Arena#global()}: a library loaded in an arena is
 * unloaded when the arena closes, and mimalloc must never be unloaded while memory it handed out is
 * alive. The Debian file {@value #DEBIAN_PATH} is tried first, then the name
 * {@value #SONAME} through the dynamic loader's search path. When neither loads, every handle is
 * null and {@link #unavailableReason()} says what to install; callers check it before they call.
 */
// Calling native functions through the Linker is what this class is for; forks run with native access.
@SuppressWarnings("restricted")
final class Mimalloc {
    /** Where Debian's package libmimalloc2.0 puts the library. */
    static final String DEBIAN_PATH = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2";
    /** The library's soname, found through the loader's search path. */
    static final String SONAME = "libmimalloc.so.2";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);
    private static final String REASON;
    /** malloc, calloc and free as one value, for code that takes either C allocator. */
    static final CHeap HEAP;
    private static final MethodHandle PROCESS_INFO;
    private static final MethodHandle COLLECT;

    static {
        Lookup found = lookup(Path.of(DEBIAN_PATH), SONAME);
        String reason = found.reason();
        MethodHandle malloc = null;
        MethodHandle calloc = null;
        MethodHandle free = null;
        MethodHandle processInfo = null;
        MethodHandle collect = null;
        if (reason == null) {
            SymbolLookup lib = found.library();
            try {
                malloc = handle(lib, "mi_malloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG), CRITICAL);
                calloc = handle(lib, "mi_calloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_LONG), CRITICAL);
                free = handle(lib, "mi_free", FunctionDescriptor.ofVoid(ADDRESS), CRITICAL);
                processInfo = handle(lib, "mi_process_info", FunctionDescriptor.ofVoid(
                        ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
                collect = handle(lib, "mi_collect", FunctionDescriptor.ofVoid(JAVA_BOOLEAN));
            } catch (IllegalStateException e) {
                reason = e.getMessage();
                malloc = calloc = free = processInfo = collect = null;
            }
        }
        REASON = reason;
        // Null handles where mimalloc is missing: a call then fails with an AssertionError.
        HEAP = new CHeap("mi_malloc", "mi_calloc", malloc, calloc, free);
        PROCESS_INFO = processInfo;
        COLLECT = collect;
    }

    private Mimalloc() {
    }

    /**
     * The outcome of looking mimalloc up.
     *
     * @param library the library, or null when it was not found
     * @param reason why it was not found and what to install; null when it was
     */
    record Lookup(SymbolLookup library, String reason) {
    }

    /**
     * Loads mimalloc from a file, else by name; never throws.
     *
     * @param file the file to try first
     * @param name the name to try through the loader's search path next
     * @return the library, or why it could not be loaded
     */
    static Lookup lookup(Path file, String name) {
        String fileProblem;
        if (Files.exists(file)) {
            try {
                return new Lookup(SymbolLookup.libraryLookup(file, Arena.global()), null);
            } catch (IllegalArgumentException e) {
                fileProblem = file + " exists but does not load (" + e.getMessage() + ")";
            }
        } else {
            fileProblem = file + " does not exist";
        }
        try {
            return new Lookup(SymbolLookup.libraryLookup(name, Arena.global()), null);
        } catch (IllegalArgumentException e) {
            return new Lookup(null, "mimalloc is not installed: " + fileProblem + " and " + name
                    + " is not on the library path; install the Debian package libmimalloc2.0 "
                    + "(apt-get install libmimalloc2.0)");
        }
    }

    /** @return why mimalloc cannot be used here, or empty when it can */
    static Optional<String> unavailableReason() {
        return Optional.ofNullable(REASON);
    }

    /**
     * Fails clearly where mimalloc is missing; the benchmark states call it in their setup.
     *
     * @throws IllegalStateException if mimalloc is not installed
     */
    static void require() {
        if (REASON != null) {
            throw new IllegalStateException(REASON);
        }
    }

    /** The {@link dev.offheap.bench.Requires} check of the mimalloc benchmarks. */
    public static final class Installed implements Precondition {
        /** Creates the check; it looks nothing up until asked. */
        public Installed() {
        }

        @Override
        public Optional<String> unmet() {
            return unavailableReason();
        }
    }

    /**
     * @param bytes the size
     * @return {@code mi_malloc(bytes)} as a segment of {@code bytes}; contents undefined
     * @throws OutOfMemoryError if it returns NULL
     */
    static MemorySegment malloc(long bytes) {
        return HEAP.allocate(bytes);
    }

    /**
     * @param bytes the size
     * @return {@code mi_calloc(1, bytes)} as a segment of {@code bytes}, zeroed
     * @throws OutOfMemoryError if it returns NULL
     */
    static MemorySegment calloc(long bytes) {
        return HEAP.allocateZeroed(bytes);
    }

    /** @param segment a segment that {@link #malloc} or {@link #calloc} returned, not freed yet */
    static void free(MemorySegment segment) {
        HEAP.release(segment);
    }

    /**
     * @return the bytes mimalloc has committed from the system, process-wide
     *     ({@code current_commit} of {@code mi_process_info}); only mimalloc's own memory, since
     *     nothing else in the JVM allocates with it
     */
    static long committedBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG, 8);
            MemorySegment[] field = new MemorySegment[8];
            for (int i = 0; i < field.length; i++) {
                field[i] = out.asSlice(i * 8L, 8);
            }
            PROCESS_INFO.invokeExact(field[0], field[1], field[2], field[3], field[4], field[5], field[6], field[7]);
            return out.getAtIndex(JAVA_LONG, 5); // elapsed, user, system, rss, peak rss, current commit, ...
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Frees what mimalloc caches and returns free pages to the system: {@code mi_collect(true)}. */
    static void collect() {
        try {
            COLLECT.invokeExact(true);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static MethodHandle handle(SymbolLookup lib, String name, FunctionDescriptor descriptor,
            Linker.Option... options) {
        MemorySegment symbol = lib.find(name).orElseThrow(() -> new IllegalStateException(
                "the mimalloc library found has no " + name
                + " (too old?); install the Debian package libmimalloc2.0 (mimalloc 2.x)"));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }
}
