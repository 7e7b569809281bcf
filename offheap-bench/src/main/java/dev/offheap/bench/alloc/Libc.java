package dev.offheap.bench.alloc;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The C library's allocator as a baseline: {@code malloc}, {@code calloc} and {@code free} as raw
 * downcalls, plus glibc's {@code mallinfo2} and {@code malloc_trim} for the fragmentation
 * experiment.
 *
 * <p>The allocation downcalls use {@link Linker.Option#critical(boolean) critical(false)}: no
 * thread-state transition, the cheapest call the FFM API offers. It is allowed because none of them
 * calls back into Java; while one runs, this thread cannot reach a safepoint, which is harmless for
 * calls this short. {@code mallinfo2} returns a struct by value and is not critical.
 */
// Calling native functions through the Linker is what this class is for; forks run with native access.
@SuppressWarnings("restricted")
final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** malloc, calloc and free as one value, for code that takes either C allocator. */
    static final CHeap HEAP = new CHeap("malloc", "calloc",
            handle("malloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG), CRITICAL),
            handle("calloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_LONG), CRITICAL),
            handle("free", FunctionDescriptor.ofVoid(ADDRESS), CRITICAL));
    private static final MethodHandle MALLOC_TRIM = handle("malloc_trim", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));

    /**
     * glibc's {@code struct mallinfo2} (glibc 2.33+), ten {@code size_t} fields:
     * <pre>
     * offset  field     meaning
     *  0      arena     bytes obtained from the system for the arenas (sbrk and heap mmaps)
     *  8      ordblks   free chunks
     * 16      smblks    free fastbin chunks
     * 24      hblks     mmapped chunks
     * 32      hblkhd    bytes in mmapped chunks
     * 40      usmblks   (unused, always 0)
     * 48      fsmblks   bytes in free fastbin chunks
     * 56      uordblks  bytes in chunks in use
     * 64      fordblks  bytes in free chunks
     * 72      keepcost  bytes at the top that malloc_trim could release
     * </pre>
     */
    static final StructLayout MALLINFO2 = MemoryLayout.structLayout(
            JAVA_LONG.withName("arena"), JAVA_LONG.withName("ordblks"), JAVA_LONG.withName("smblks"),
            JAVA_LONG.withName("hblks"), JAVA_LONG.withName("hblkhd"), JAVA_LONG.withName("usmblks"),
            JAVA_LONG.withName("fsmblks"), JAVA_LONG.withName("uordblks"), JAVA_LONG.withName("fordblks"),
            JAVA_LONG.withName("keepcost"));
    private static final VarHandle ARENA = field("arena");
    private static final VarHandle HBLKHD = field("hblkhd");
    private static final MethodHandle MALLINFO = LINKER.defaultLookup().find("mallinfo2")
            .map(s -> LINKER.downcallHandle(s, FunctionDescriptor.of(MALLINFO2)))
            .orElse(null);

    private static final Path STATM = Path.of("/proc/self/statm");
    private static final long PAGE_SIZE = 4096;

    private Libc() {
    }

    /**
     * @param bytes the size
     * @return {@code malloc(bytes)} as a segment of {@code bytes}; its contents are undefined
     * @throws OutOfMemoryError if malloc returns NULL
     */
    static MemorySegment malloc(long bytes) {
        return HEAP.allocate(bytes);
    }

    /**
     * @param bytes the size
     * @return {@code calloc(1, bytes)} as a segment of {@code bytes}, zeroed
     * @throws OutOfMemoryError if calloc returns NULL
     */
    static MemorySegment calloc(long bytes) {
        return HEAP.allocateZeroed(bytes);
    }

    /** @param segment a segment that {@link #malloc} or {@link #calloc} returned, not freed yet */
    static void free(MemorySegment segment) {
        HEAP.release(segment);
    }

    /** @return true where glibc's {@code mallinfo2} exists (glibc 2.33 or newer) */
    static boolean hasMallinfo2() {
        return MALLINFO != null;
    }

    /**
     * The bytes glibc's malloc holds from the system right now, in all arenas: {@code arena +
     * hblkhd} of {@code mallinfo2}. Like {@code footprintBytes()} of the library's allocators it
     * counts what is held, resident or not, free chunks included; it does not shrink when
     * {@code malloc_trim} only returns the pages of free chunks in the middle of an arena with
     * {@code madvise}, which {@link #residentBytes()} sees.
     *
     * @return the bytes
     * @throws IllegalStateException if this C library has no {@code mallinfo2}
     */
    static long mallocFootprint() {
        if (MALLINFO == null) {
            throw new IllegalStateException("this C library has no mallinfo2 (glibc 2.33 or newer has it)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = (MemorySegment) MALLINFO.invokeExact((java.lang.foreign.SegmentAllocator) arena);
            return (long) ARENA.get(info, 0L) + (long) HBLKHD.get(info, 0L);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Gives free memory at the top of the arenas back and madvises free pages: {@code malloc_trim(0)}. */
    static void mallocTrim() {
        try {
            int released = (int) MALLOC_TRIM.invokeExact(0L);
            assert released == 0 || released == 1;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * @return the resident set of this process in bytes, from {@code /proc/self/statm} (second
     *     field, in 4 KiB pages)
     * @throws UncheckedIOException if it cannot be read (not Linux)
     */
    static long residentBytes() {
        try {
            String[] fields = Files.readString(STATM).trim().split("\\s+");
            return Long.parseLong(fields[1]) * PAGE_SIZE;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + STATM + " (the resident set is read on Linux only)", e);
        }
    }

    private static MethodHandle handle(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("the C library has no " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    private static VarHandle field(String name) {
        return MALLINFO2.varHandle(MemoryLayout.PathElement.groupElement(name));
    }
}
