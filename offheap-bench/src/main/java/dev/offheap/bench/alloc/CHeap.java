package dev.offheap.bench.alloc;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * One C allocator's {@code malloc(size)}, {@code calloc(1, size)} and {@code free(pointer)}
 * downcalls, shared by {@link Libc} and {@link Mimalloc} so that both call and check them the same
 * way. A record because HotSpot trusts a record's fields as final: held in a {@code static final}
 * field, its handles fold to constants just as {@code static final} handles do.
 *
 * <p>Threading: stateless; as thread-safe as the C allocator it calls.
 *
 * @param mallocName the C name of {@code malloc}, for the message when it returns NULL
 * @param callocName the C name of {@code calloc}, likewise
 * @param malloc {@code (long) -> MemorySegment}; null where the library is missing
 * @param calloc {@code (long, long) -> MemorySegment}; null where the library is missing
 * @param free {@code (MemorySegment) -> void}; null where the library is missing
 */
// reinterpret is restricted; the benchmark forks run with native access, as for Libc and Mimalloc.
@SuppressWarnings("restricted")
record CHeap(String mallocName, String callocName, MethodHandle malloc, MethodHandle calloc, MethodHandle free) {

    /**
     * @param bytes the size
     * @return {@code malloc(bytes)} as a segment of {@code bytes}; its contents are undefined
     * @throws OutOfMemoryError if it returns NULL
     */
    MemorySegment allocate(long bytes) {
        MemorySegment p;
        try {
            p = (MemorySegment) malloc.invokeExact(bytes);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        return checked(p, bytes, mallocName);
    }

    /**
     * @param bytes the size
     * @return {@code calloc(1, bytes)} as a segment of {@code bytes}, zeroed
     * @throws OutOfMemoryError if it returns NULL
     */
    MemorySegment allocateZeroed(long bytes) {
        MemorySegment p;
        try {
            p = (MemorySegment) calloc.invokeExact(1L, bytes);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        return checked(p, bytes, callocName);
    }

    /** @param segment a segment that {@link #allocate} or {@link #allocateZeroed} returned, not freed yet */
    void release(MemorySegment segment) {
        try {
            free.invokeExact(segment);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static MemorySegment checked(MemorySegment p, long bytes, String function) {
        if (p.equals(MemorySegment.NULL)) {
            throw new OutOfMemoryError(function + "(" + bytes + ") returned NULL");
        }
        return p.reinterpret(bytes);
    }
}
