package dev.offheap.memory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.memory.Segments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Once the four slots are claimed, segments of any further class are served by the shared kernel on
 * every call. The dispatch looked that kernel up in {@link SegmentKernelCopies#kernelFor}, a
 * synchronized method, so every {@link Segments} call on such a segment took one global lock and the
 * threads of a program that uses five or more segment classes (heap segments over arrays of several
 * types, native and mapped ones) queued on it. The lookup now takes the lock only to claim a slot.
 */
class SegmentClassesBeyondTheSlotsAreServedWithoutALockTest {

    @Test
    void aSegmentOfAClassBeyondTheSlotsIsServedWhileTheLockIsHeld() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            List<MemorySegment> kinds = List.of(
                    MemorySegment.ofArray(new byte[8]), MemorySegment.ofArray(new short[4]),
                    MemorySegment.ofArray(new char[4]), MemorySegment.ofArray(new int[2]),
                    MemorySegment.ofArray(new float[2]), MemorySegment.ofArray(new long[1]),
                    MemorySegment.ofArray(new double[1]), arena.allocate(8));
            for (MemorySegment s : kinds) {
                Segments.hash64(s, 0, 8);
            }
            List<Class<?>> slots = new ArrayList<>();
            for (int slot = 0; slot < SegmentKernelCopies.SLOTS; slot++) {
                slots.add(SegmentKernelCopies.slotClass(slot));
            }
            assertThat(slots).doesNotContainNull();
            List<MemorySegment> beyond = kinds.stream().filter(s -> !slots.contains(s.getClass())).toList();
            assertThat(beyond).hasSizeGreaterThanOrEqualTo(kinds.size() - SegmentKernelCopies.SLOTS);
            long expected = Segments.hash64(MemorySegment.ofArray(new byte[8]), 0, 8);
            synchronized (SegmentKernelCopies.class) {
                // another thread's calls must not wait for this lock
                CompletableFuture<List<Long>> hashes = CompletableFuture.supplyAsync(
                        () -> beyond.stream().map(s -> Segments.hash64(s, 0, 8)).toList());
                assertThat(hashes.get(30, TimeUnit.SECONDS)).hasSize(beyond.size()).containsOnly(expected);
                CompletableFuture<List<SegmentKernel>> kernels = CompletableFuture.supplyAsync(
                        () -> beyond.stream().map(s -> SegmentKernelCopies.kernelFor(s.getClass())).toList());
                assertThat(kernels.get(30, TimeUnit.SECONDS)).containsOnly(SegmentKernelCopies.SHARED);
            }
        }
    }
}
