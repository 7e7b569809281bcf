package dev.offheap.memory.alloc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A zero-length slice at the end of a small pooled block has the address where the next block of the
 * span starts. A 0-byte allocation took a block of the smallest class and was a zero-length segment at
 * its start, so free could not tell such a slice from it: freed, the slice freed the live neighbour (of
 * 16 bytes) behind its owner's back, and {@link PooledAllocator#allocatedBytes()} stayed 16 bytes too
 * high. A 0-byte allocation is now the allocator's empty segment, no block, and every other
 * zero-length segment is refused.
 */
class AZeroLengthSliceAtABlocksEndFreesNoNeighbourTest {

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void theLiveNeighbourStaysLiveAndCounted(DebugMode mode) {
        try (PooledAllocator pool = PooledAllocator.builder().debug(mode).sampleRate(1_000_000)
                .idleRelease(Duration.ZERO).registerMBean(false).build()) {
            List<MemorySegment> blocks = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                blocks.add(pool.allocateUninitialized(16));
            }
            MemorySegment lower = null;
            MemorySegment neighbour = null;
            for (MemorySegment a : blocks) {
                for (MemorySegment b : blocks) {
                    if (b.address() == a.address() + 16) {
                        lower = a;
                        neighbour = b;
                    }
                }
            }
            assertThat(neighbour).as("two adjacent blocks of 16 bytes among %s", blocks).isNotNull();
            neighbour.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678L);
            MemorySegment end = lower.asSlice(16);
            assertThatThrownBy(() -> pool.free(end)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0x" + Long.toHexString(neighbour.address()));
            assertThat(pool.allocatedBytes()).isEqualTo(64 * 16);
            // the neighbour was not freed: no other allocation gets its block, and its own free is no double free
            for (int i = 0; i < 64; i++) {
                assertThat(pool.allocateUninitialized(16).address()).isNotEqualTo(neighbour.address());
            }
            assertThat(neighbour.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x1234_5678L);
            pool.free(neighbour);
            assertThat(pool.allocatedBytes()).isEqualTo(127 * 16);
        }
    }
}
