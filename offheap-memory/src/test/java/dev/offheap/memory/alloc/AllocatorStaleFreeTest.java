package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Failures that left memory allocated, and stale frees that freed a later allocation. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AllocatorStaleFreeTest {

    private static PooledAllocator pooled(DebugMode mode, Budget budget) {
        return PooledAllocator.builder().debug(mode).budget(budget).idleRelease(Duration.ZERO).capacity(1L << 30).build();
    }

    /**
     * allocateFrom(elementLayout, source, ...) allocated first and copied after: a source offset out of
     * bounds threw from the copy and left an allocation the caller never saw, could never free, and that
     * close() then reported as the caller's leak (and a native allocator's budget stayed charged).
     */
    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void anAllocateFromWhoseCopyFailsLeavesNothingAllocated(DebugMode mode) {
        Random random = new Random(42);
        int[] values = random.ints(4).toArray();
        MemorySegment source = MemorySegment.ofArray(values);
        try (Budget budget = Budget.root("review", 64 << 20);
             PooledAllocator pooled = pooled(mode, null);
             NativeAllocator malloc = NativeAllocator.builder().debug(mode).budget(budget).build()) {
            for (Allocator allocator : List.<Allocator>of(pooled, malloc)) {
                assertThatThrownBy(() -> allocator.allocateFrom(ValueLayout.JAVA_INT, source, ValueLayout.JAVA_INT, 8, 4))
                        .as("%s: 4 ints from byte 8 of 16", allocator).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> allocator.allocateFrom(ValueLayout.JAVA_INT, source, ValueLayout.JAVA_INT, -4, 1))
                        .as("%s: a negative offset", allocator).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> allocator.allocateFrom(ValueLayout.JAVA_LONG, source, ValueLayout.JAVA_LONG_UNALIGNED, 0, 4))
                        .as("%s: 32 bytes of a 16-byte source", allocator).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> allocator.allocateFrom(ValueLayout.JAVA_INT, source, ValueLayout.JAVA_INT, 2, 1))
                        .as("%s: a misaligned source offset", allocator).isInstanceOf(IllegalArgumentException.class);
                assertThat(allocator.allocatedBytes()).as("%s", allocator).isZero();
                assertThat(allocator.report().liveAllocations()).as("%s", allocator).isZero();
                assertThat(allocator.report().leaks()).as("%s", allocator).isEmpty();

                // and a copy that fits still works, and is the caller's to free
                MemorySegment copy = allocator.allocateFrom(ValueLayout.JAVA_INT, source, ValueLayout.JAVA_INT, 4, 3);
                assertThat(copy.toArray(ValueLayout.JAVA_INT)).containsExactly(values[1], values[2], values[3]);
                allocator.free(copy);
                assertThat(allocator.allocatedBytes()).isZero();
            }
            assertThat(budget.used()).as("the native allocator's budget").isZero();
        }
    }

    /**
     * In FULL mode every allocation has a scope of its own that free closes, and FULL promises to detect
     * every double free. But free looked only at the address: once a later allocation started at the
     * same address (the pooled allocator hands the block just freed out again), a second free of the
     * stale segment freed that later allocation instead, closing its owner's scope under it, and
     * reported nothing.
     */
    @Test
    void aFullModeFreeOfAStaleSegmentIsADoubleFreeAndTheLaterAllocationStaysLive() {
        try (PooledAllocator pooled = pooled(DebugMode.FULL, null)) {
            for (long size : new long[] {100, 4096, 65536, 200_000}) {
                MemorySegment first = pooled.allocate(size);
                pooled.free(first);
                MemorySegment second = pooled.allocate(size);
                assertThat(second.address()).as("%d bytes: the block is handed out again", size).isEqualTo(first.address());
                second.fill((byte) 7);

                assertThatThrownBy(() -> pooled.free(first)).as("%d bytes", size)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("double free")
                        .hasMessageContaining("first freed by thread")
                        .hasMessageContaining("freed again");
                assertThat(second.scope().isAlive()).as("%d bytes: the later allocation", size).isTrue();
                assertThat(second.get(ValueLayout.JAVA_BYTE, size - 1)).isEqualTo((byte) 7);
                assertThat(pooled.allocatedBytes()).isEqualTo(size);
                assertThat(pooled.report().liveAllocations()).isEqualTo(1);

                pooled.free(second);
                assertThat(pooled.allocatedBytes()).isZero();
            }
            assertThat(pooled.report().problems()).hasSize(4).allMatch(p -> p.startsWith("double free"));
        }
    }

    /**
     * The same for the native allocator, whose allocations above 256 KiB (every mode) and all of FULL
     * mode's have a scope of their own: a stale segment freed again after the C allocator handed its
     * address out again freed the later allocation, where the docs promise such segments throw.
     */
    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aNativeFreeOfAStaleSegmentWithItsOwnScopeIsADoubleFree(DebugMode mode) {
        long size = NativeAllocator.OWN_SCOPE_THRESHOLD + 4096;
        // the C allocator hands the freed block straight back (glibc does so only most of the time)
        try (PlacingCAllocator c = new PlacingCAllocator(size).place(0, 0);
             NativeAllocator malloc = NativeAllocator.builder().debug(mode).functions(c).build()) {
            MemorySegment first = malloc.allocate(size);
            malloc.free(first);
            MemorySegment second = malloc.allocate(size);
            assertThat(second.address()).isEqualTo(first.address());
            MemorySegment stale = first;
            MemorySegment later = second;
            later.fill((byte) 3);

            assertThatThrownBy(() -> malloc.free(stale)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free");
            assertThat(later.scope().isAlive()).as("the later allocation").isTrue();
            assertThat(later.get(ValueLayout.JAVA_BYTE, size - 1)).isEqualTo((byte) 3);
            assertThat(malloc.allocatedBytes()).isEqualTo(size);
            malloc.free(later);
            assertThat(malloc.allocatedBytes()).isZero();
        }
    }
}
