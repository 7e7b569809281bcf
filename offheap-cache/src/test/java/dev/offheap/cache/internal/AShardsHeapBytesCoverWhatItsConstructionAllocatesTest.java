package dev.offheap.cache.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Shard#HEAP_BYTES}, what the cache charges to its capacity for each shard's heap objects, against
 * the heap bytes that making a shard (and the slice of the cache's memory it gets as its region) allocates,
 * as the JVM counts them for the thread ({@code com.sun.management.ThreadMXBean}): the count is exact to the
 * byte, and takes in the few short-lived slices the constructor makes as well, so it is what the shard
 * holds or a little more. The constant said 256 bytes for the shard object, its two locks, its region and
 * sketch objects, its read buffer object and its queue arrays, which take about 460: a shard cost 4,024
 * bytes (W-TinyLFU) where 3,736 were charged, so a cache of 4,096 shards used some 1.2 MB more than its
 * capacity. The lower bound keeps the constant from drifting far above what a shard costs, as a new field
 * or array would otherwise go unseen until the charge were short again.
 */
class AShardsHeapBytesCoverWhatItsConstructionAllocatesTest {
    private static final long REGION = 1L << 20;

    @ParameterizedTest(name = "W-TinyLFU: {0}")
    @ValueSource(booleans = {true, false})
    void theChargeCoversTheShardAndIsNotFarAboveIt(boolean tinyLfu) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        int shards = 16;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment regions = arena.allocate(REGION * shards, 8);
            StatsCounter stats = new StatsCounter(false);
            long firstId = LockHolds.reserveIds(shards);
            long least = Long.MAX_VALUE;
            for (int i = 0; i < shards; i++) {
                // as the cache makes them: a slice of its memory each, then the shard (the first few load and
                // initialize classes, which the least of the counts leaves out)
                long before = threads.getCurrentThreadAllocatedBytes();
                MemorySegment region = regions.asSlice(i * REGION, REGION);
                Shard shard = new Shard(region, tinyLfu, false, 1 << 16, stats, "sized", firstId + i);
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                assertThat(shard.regionBytes()).isEqualTo(REGION);
                least = Math.min(least, allocated);
            }
            assertThat((long) Shard.HEAP_BYTES).as("the charge of a shard, against the %d bytes it allocated", least)
                    .isGreaterThanOrEqualTo(least)
                    .isLessThanOrEqualTo(least + least / 20);
        }
    }
}
