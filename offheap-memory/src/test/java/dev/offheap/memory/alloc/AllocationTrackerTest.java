package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the debug modes tell a second free from a free of memory the allocator did not hand out, where
 * the two share an address. Regressions found by {@link AllocatorFuzzTest}.
 */
class AllocationTrackerTest {

    @Test
    void aSecondFreeOfTheSameBlockIsADoubleFree() {
        AllocationTracker tracker = new AllocationTracker("t", DebugMode.FULL);
        tracker.track(1000, 48, null);
        tracker.untrack(1000);
        assertThat(tracker.badFree(1000, 48, "not live")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("double free").hasMessageContaining("48 bytes");
        assertThat(tracker.problems()).hasSize(1);
    }

    @Test
    void aLargerSegmentAtAFreedAddressIsNotThatAllocation() {
        AllocationTracker tracker = new AllocationTracker("t", DebugMode.FULL);
        tracker.track(1000, 48, null);
        tracker.untrack(1000);
        // another allocator's block at a reused address: no second free of the 48-byte allocation
        assertThat(tracker.badFree(1000, 4096, "not live")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("did not allocate");
    }

    @Test
    void aNewAllocationForgetsTheFreeRecordsInsideIt() {
        AllocationTracker tracker = new AllocationTracker("t", DebugMode.FULL);
        tracker.track(1000, 48, null);
        tracker.untrack(1000);
        tracker.track(2000, 16, null);
        tracker.untrack(2000);
        // a new allocation from 900 to 1900 covers the first freed block but not the second
        tracker.track(900, 1000, null);
        assertThat(tracker.badFree(1000, 16, "a slice?")).as("a slice of the live allocation at 900")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(tracker.badFree(2000, 16, "not live")).as("still a second free")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void nativeAllocatorNamesTheLiveAllocationASliceStartsIn() {
        for (DebugMode mode : DebugMode.values()) {
            try (NativeAllocator allocator = NativeAllocator.builder().debug(mode).build()) {
                MemorySegment segment = allocator.allocate(1000);
                assertThatThrownBy(() -> allocator.free(segment.asSlice(16))).as("mode %s", mode)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("starts 16 bytes into the live allocation at 0x"
                                + Long.toHexString(segment.address()));
                assertThat(allocator.allocatedBytes()).isEqualTo(1000);
                allocator.free(segment);
                assertThat(allocator.allocatedBytes()).isZero();
            }
        }
    }

    @Test
    void pooledAllocatorRefusesASliceOfALiveLargeAllocationAsNotAllocated() {
        for (DebugMode mode : DebugMode.values()) {
            try (PooledAllocator allocator = PooledAllocator.builder().debug(mode).build()) {
                MemorySegment large = allocator.allocate(200_000);
                assertThatThrownBy(() -> allocator.free(large.asSlice(4096))).as("mode %s", mode)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("starts inside a live allocation");
                allocator.free(large);
                assertThat(allocator.allocatedBytes()).isZero();
            }
        }
    }

    @Test
    void theLiveSizeOfATrackedAllocationIsWhatAFreeIsCheckedAgainst() {
        AllocationTracker tracker = new AllocationTracker("t", DebugMode.FULL);
        tracker.track(1000, 48, null);
        assertThat(tracker.liveSize(1000)).as("a 32-byte prefix is not it").isEqualTo(48);
        assertThat(tracker.isTracked(1000)).isTrue();
        assertThat(tracker.untrack(1000).address()).isEqualTo(1000);
        assertThat(tracker.liveSize(1000)).as("freed").isEqualTo(-1);
        assertThat(tracker.untrack(1000)).as("already freed").isNull();
    }

    @Test
    @SuppressWarnings("restricted") // reinterpret: a longer "slice" too, within what the test allocated plus one byte it never touches
    void nativeAllocatorRefusesAPrefixSliceAndKeepsTheAllocation() {
        for (DebugMode mode : DebugMode.values()) {
            try (NativeAllocator allocator = NativeAllocator.builder().debug(mode).build()) {
                MemorySegment segment = allocator.allocate(1000);
                for (long size : new long[] {24, 999, 1001}) {
                    MemorySegment slice = segment.reinterpret(size);
                    assertThatThrownBy(() -> allocator.free(slice)).as("mode %s, %d bytes", mode, size)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("has " + size + " bytes where the allocation has 1000");
                }
                assertThatThrownBy(() -> allocator.free(segment.reinterpret(0))).as("mode %s, 0 bytes", mode)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty segment");
                assertThat(allocator.allocatedBytes()).isEqualTo(1000);
                segment.set(java.lang.foreign.ValueLayout.JAVA_LONG, 992, 7L);
                allocator.free(segment);
                assertThat(allocator.allocatedBytes()).isZero();
            }
        }
    }

    @Test
    void pooledAllocatorRefusesAPrefixSliceOfALargeAllocationInEveryMode() {
        for (DebugMode mode : DebugMode.values()) {
            try (PooledAllocator allocator = PooledAllocator.builder().debug(mode).build()) {
                MemorySegment large = allocator.allocate(200_000);
                assertThatThrownBy(() -> allocator.free(large.asSlice(0, 100_000))).as("mode %s", mode)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("starts the live allocation of 200000 bytes");
                assertThat(allocator.allocatedBytes()).isEqualTo(200_000);
                large.set(java.lang.foreign.ValueLayout.JAVA_LONG, 199_992, 7L);
                allocator.free(large);
                assertThat(allocator.allocatedBytes()).isZero();
            }
        }
    }

    @Test
    void pooledAllocatorInFullModeRefusesAPrefixSliceOfASmallBlock() {
        try (PooledAllocator allocator = PooledAllocator.builder().debug(DebugMode.FULL).build()) {
            MemorySegment block = allocator.allocate(48);
            assertThatThrownBy(() -> allocator.free(block.asSlice(0, 40)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("starts the live allocation of 48 bytes");
            assertThat(allocator.allocatedBytes()).isEqualTo(48);
            block.set(java.lang.foreign.ValueLayout.JAVA_LONG, 40, 7L);
            allocator.free(block);
            assertThat(allocator.allocatedBytes()).isZero();
            assertThat(allocator.report().problems()).anyMatch(p -> p.contains("starts the live allocation of 48 bytes"));
        }
    }
}
