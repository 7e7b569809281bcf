package dev.offheap.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.CacheBuilder;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link OffHeapCacheImpl#fixedHeapBytes}, what a cache charges to its capacity for its heap objects besides
 * its shards, against what a cache of one shard keeps on the heap besides that shard: the cache object and
 * its counters, its arena and cleaner, its MBean in the platform server (whose name holds the cache's),
 * the child budget or manager record it is charged through, its scheduled clean-up and the table of its
 * map of running loads once it has loaded. It is measured the way the shard's charge is measured, with
 * many caches at once, but as the heap that stays used after a collection: the MBean server's
 * registration allocates some 7 KB more that it drops at once, which counting allocations
 * ({@code AShardsHeapBytesCoverWhatItsConstructionAllocatesTest}) would take in. The charge was a
 * constant 1,024 bytes where a cache keeps about 1,350 besides its shard, 1,650 with a budget, and two
 * to three bytes more per character of its name. The upper bound keeps the charge from drifting far
 * above what a cache keeps.
 */
class ACachesFixedHeapChargeCoversWhatItKeepsBesidesItsShardsTest {
    private static final int CACHES = 2000;
    private static final long CAPACITY = OffHeapCacheImpl.MIN_CAPACITY;

    @Test
    void theChargeCoversWhatACacheKeepsAndIsNotFarAboveIt() {
        String name = "c";
        long plain = keptBesidesTheShard(name, builder -> builder);
        long everything;
        try (MemoryManager manager = MemoryManager.builder().totalSize(CACHES * 2 * CAPACITY).pageSize(32 * 1024)
                .build()) {
            Budget budget = Budget.root("caches", 1L << 40);
            everything = keptBesidesTheShard(name, builder -> builder.budget(budget).memoryManager(manager)
                    .recordStats(true).cleanUpInterval(Duration.ofHours(1)));
        }
        long charge = OffHeapCacheImpl.fixedHeapBytes(name + CACHES);
        assertThat(charge).as("the charge, against %d bytes kept by a plain cache and %d by one with a budget,"
                        + " a manager, statistics, a clean-up and a load", plain, everything)
                .isGreaterThanOrEqualTo(everything)
                .isLessThanOrEqualTo(everything + 384);
    }

    @Test
    void theChargeGrowsWithTheName() {
        String longName = "n".repeat(400);
        long kept;
        Budget budget = Budget.root("caches", 1L << 40);
        kept = keptBesidesTheShard(longName, builder -> builder.budget(budget).capacity(4 * CAPACITY));
        assertThat(OffHeapCacheImpl.fixedHeapBytes(longName + CACHES)).isGreaterThanOrEqualTo(kept);
    }

    @Test
    void aNameTooLongForTheSmallestCapacityIsRefusedNotLeftWithoutRoom() {
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(OffHeapCacheImpl.MIN_CAPACITY).name("n".repeat(1000));
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("heap bookkeeping").hasMessageContaining("its name takes 4000");
    }

    /**
     * @return the heap bytes that {@value #CACHES} caches of one shard keep, each, less what one shard keeps,
     *         after collections
     */
    private static long keptBesidesTheShard(String name, UnaryOperator<CacheBuilder<String, String>> configure) {
        // each count in a method of its own: a frame's dead local would keep what it counted reachable
        long shard = keptPerShard(name);
        return keptPerCache(name, configure) - shard;
    }

    private static long keptPerShard(String name) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment regions = arena.allocate(CAPACITY * CACHES, 8);
            StatsCounter stats = new StatsCounter(false);
            long firstId = LockHolds.reserveIds(CACHES);
            List<Shard> shards = new ArrayList<>(CACHES);
            long before = heapUsed();
            for (int i = 0; i < CACHES; i++) {
                // as the cache makes them: W-TinyLFU, whose shards keep the most
                shards.add(new Shard(regions.asSlice(i * CAPACITY, CAPACITY), true, false, 256, stats, name,
                        firstId + i));
            }
            long kept = (heapUsed() - before) / CACHES;
            assertThat(shards).hasSize(CACHES);
            return kept;
        }
    }

    private static long keptPerCache(String name, UnaryOperator<CacheBuilder<String, String>> configure) {
        List<String> names = new ArrayList<>(CACHES);
        for (int i = 0; i < CACHES; i++) {
            names.add(name + i); // made before the count: the caller's, not the cache's
        }
        // once before the count: what the first cache makes for all (the platform MBean server, say) is no cache's
        try (OffHeapCache<String, String> first = configure.apply(OffHeapCache.builder(Serializer.strings(),
                Serializer.strings()).capacity(CAPACITY).concurrencyLevel(1).name(name)).build()) {
            first.get("k", key -> "loaded");
        }
        List<OffHeapCache<String, String>> caches = new ArrayList<>(CACHES);
        try {
            long before = heapUsed();
            for (int i = 0; i < CACHES; i++) {
                OffHeapCache<String, String> cache = configure.apply(
                                OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                                        .capacity(CAPACITY).concurrencyLevel(1)
                                        .evictionPolicy(EvictionPolicy.W_TINY_LFU).name(names.get(i)))
                        .build();
                caches.add(cache);
                cache.get("k", key -> "loaded"); // the map of running loads gets its table
                cache.invalidateAll();
            }
            return (heapUsed() - before) / CACHES;
        } finally {
            caches.forEach(OffHeapCache::close);
        }
    }

    private static long heapUsed() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
