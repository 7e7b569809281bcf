package dev.offheap.cache.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The region allocator: blocks never overlap, free space coalesces, accounting is exact. */
class BlockAllocatorTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomAllocationsNeverOverlapAndCoalesceBackToOneBlock(long seed) {
        try (Arena arena = Arena.ofConfined()) {
            int units = 1 << 16;
            MemorySegment region = arena.allocate((long) units * RegionLayout.UNIT, 8);
            BlockAllocator allocator = new BlockAllocator(region);
            SplittableRandom random = new SplittableRandom(seed);
            List<int[]> live = new ArrayList<>();
            for (int step = 0; step < 20_000; step++) {
                if (live.isEmpty() || random.nextInt(100) < 55) {
                    int size = random.nextInt(10) == 0 ? 1 + random.nextInt(4000) : 1 + random.nextInt(40);
                    int block = allocator.allocate(size);
                    if (block == 0) {
                        assertThat(allocator.largestFreeUnits()).isLessThan(size + 4096);
                        continue;
                    }
                    assertThat(allocator.sizeOf(block)).isEqualTo(size);
                    // stamp the block's payload (after its block word) with its own offset
                    for (int u = 0; u < size; u++) {
                        region.set(ValueLayout.JAVA_INT, RegionLayout.address(block + u) + 4, block);
                    }
                    live.add(new int[]{block, size});
                } else {
                    int[] victim = live.remove(random.nextInt(live.size()));
                    for (int u = 0; u < victim[1]; u++) {
                        assertThat(region.get(ValueLayout.JAVA_INT, RegionLayout.address(victim[0] + u) + 4))
                                .as("block %d overwritten", victim[0]).isEqualTo(victim[0]);
                    }
                    allocator.free(victim[0]);
                }
                if (step % 1000 == 0) {
                    long free = allocator.verify();
                    assertThat(free + allocator.usedUnits()).isEqualTo(units);
                }
            }
            for (int[] block : live) {
                allocator.free(block[0]);
            }
            assertThat(allocator.verify()).isEqualTo(units - 2);
            assertThat(allocator.usedUnits()).isEqualTo(2);
            assertThat(allocator.allocate(units - 2)).as("everything coalesced into one block").isEqualTo(1);
        }
    }

    @Test
    void badCallsAreRejected() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = arena.allocate(4096, 8);
            BlockAllocator allocator = new BlockAllocator(region);
            assertThatThrownBy(() -> allocator.allocate(0)).isInstanceOf(IllegalArgumentException.class);
            int block = allocator.allocate(4);
            allocator.free(block);
            assertThatThrownBy(() -> allocator.free(block)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not allocated");
            assertThatThrownBy(() -> new BlockAllocator(arena.allocate(16, 8)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(allocator.verify()).isEqualTo(512 - 2);
        }
    }

    @Test
    void sameSizeBlocksAreReusedWithoutSplittingLargerOnes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = arena.allocate(1 << 20, 8);
            BlockAllocator allocator = new BlockAllocator(region);
            int[] blocks = new int[10];
            for (int i = 0; i < blocks.length; i++) {
                blocks[i] = allocator.allocate(12_503); // a 100 KB entry
            }
            allocator.free(blocks[3]);
            assertThat(allocator.allocate(12_503)).as("the freed block of the same size").isEqualTo(blocks[3]);
        }
    }
}
