package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.MemoryManager;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Eviction and sizing, attacked: the smallest and odd capacities, entries at the size limit and one byte
 * over, mixed sizes that fragment a segment, eviction statistics against what the listener saw, scans,
 * and what a cache charges to a {@link Budget} or {@link MemoryManager} and gives back.
 */
class CacheSizingAndReservationTest {

    private record Removal(byte[] key, byte[] value, RemovalCause cause) {
    }

    /** An entry's block: header, key and value rounded up to 8 bytes. */
    private static long weight(int header, int key, int value) {
        return ((long) header + key + value + 7) & ~7L;
    }

    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static boolean collectUntil(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 100 && !condition.getAsBoolean(); i++) {
            System.gc();
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }

    /**
     * Random puts of sizes from empty to the entry limit, reads, invalidations and clears at the smallest
     * and at odd capacities, every segment count: the cache never uses more than its capacity, its
     * structures stay consistent, the eviction statistics are exactly what the listener was told (count
     * and bytes), and size and weightedSize are what iterating finds.
     */
    @Test
    void evictionStatisticsAndSizesAgreeWithTheListenerAndIterationAtOddCapacities() {
        long[] capacities = {OffHeapCacheImpl.MIN_CAPACITY, 8193, 10_007, 100_003};
        for (EvictionPolicy policy : EvictionPolicy.values()) {
            for (long capacity : capacities) {
                for (int level : new int[]{1, 3, 65_536}) {
                    List<Removal> removals = new ArrayList<>();
                    try (OffHeapCacheImpl<byte[], byte[]> cache = (OffHeapCacheImpl<byte[], byte[]>) OffHeapCache
                            .builder(Serializer.byteArrays(), Serializer.byteArrays())
                            .capacity(capacity).evictionPolicy(policy).concurrencyLevel(level)
                            .removalListener((k, v, cause) -> removals.add(new Removal(k, v, cause))).build()) {
                        String what = policy + ", capacity " + capacity + ", level " + level;
                        Random random = new Random(capacity * 31 + level);
                        int header = cache.headerBytes();
                        long max = cache.maxEntryBytes();
                        for (int i = 0; i < 2_000; i++) {
                            byte[] k = key(random.nextInt(300));
                            int room = (int) (max - header - k.length);
                            int r = random.nextInt(10);
                            byte[] v = new byte[r == 0 ? room : r < 3 ? random.nextInt(room + 1) : random.nextInt(40)];
                            int op = random.nextInt(40);
                            if (op == 0) {
                                cache.invalidate(k);
                            } else if (op == 1) {
                                cache.invalidateAll();
                            } else if (op < 6) {
                                cache.getIfPresent(k);
                            } else {
                                cache.put(k, v);
                            }
                            assertThat(cache.usedBytes()).as(what).isLessThanOrEqualTo(capacity);
                        }
                        cache.verify();
                        List<Removal> evicted = removals.stream().filter(x -> x.cause() == RemovalCause.SIZE).toList();
                        CacheStats stats = cache.stats();
                        assertThat(stats.evictionCount()).as(what).isEqualTo(evicted.size()).isPositive();
                        assertThat(stats.evictionBytes()).as(what).isEqualTo(evicted.stream()
                                .mapToLong(x -> weight(header, x.key().length, x.value().length)).sum());
                        long iterated = 0;
                        long count = 0;
                        for (Iterator<Map.Entry<byte[], byte[]>> it = cache.entries(); it.hasNext(); count++) {
                            Map.Entry<byte[], byte[]> e = it.next();
                            iterated += weight(header, e.getKey().length, e.getValue().length);
                        }
                        assertThat(cache.weightedSize()).as(what).isEqualTo(iterated);
                        assertThat(cache.size()).as(what).isEqualTo(count).isEqualTo(stats.entryCount());
                        assertThat(stats.usedBytes()).as(what).isLessThanOrEqualTo(capacity);
                    }
                }
            }
        }
    }

    /** An entry exactly at the limit is stored, under every header size; one byte more is refused, and the old value stays. */
    @Test
    void anEntryAtTheLimitIsStoredAndOneByteMoreIsRefused() {
        for (String expiry : new String[]{"none", "write", "both"}) {
            for (long maxEntry : new long[]{-1, 1001, 1464}) {
                CacheBuilder<byte[], byte[]> builder = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                        .capacity(OffHeapCacheImpl.MIN_CAPACITY).concurrencyLevel(1);
                if (maxEntry > 0) {
                    builder.maxEntryBytes(maxEntry);
                }
                if (!expiry.equals("none")) {
                    builder.expireAfterWrite(Duration.ofHours(1));
                }
                if (expiry.equals("both")) {
                    builder.expireAfterAccess(Duration.ofHours(1));
                }
                try (OffHeapCacheImpl<byte[], byte[]> cache = (OffHeapCacheImpl<byte[], byte[]>) builder.build()) {
                    String what = expiry + ", maxEntryBytes " + maxEntry;
                    byte[] k = {1, 2, 3};
                    for (int i = 0; i < 20; i++) {
                        cache.put(new byte[]{(byte) i}, new byte[10]);
                    }
                    int atLimit = (int) (cache.maxEntryBytes() - cache.headerBytes() - k.length);
                    cache.put(k, new byte[atLimit]);
                    assertThat(cache.getIfPresent(k)).as(what).hasSize(atLimit);
                    assertThatThrownBy(() -> cache.put(k, new byte[atLimit + 1])).as(what)
                            .isInstanceOf(ValueTooLargeException.class);
                    assertThatThrownBy(() -> cache.compute(k, (key, old) -> new byte[atLimit + 1])).as(what)
                            .isInstanceOf(ValueTooLargeException.class);
                    assertThat(cache.getIfPresent(k)).as(what).hasSize(atLimit);
                    cache.verify();
                }
            }
        }
    }

    /** A hot set read between scans of keys never seen again stays cached under W-TinyLFU, not under LRU. */
    @Test
    void wTinyLfuResistsAScanThatFlushesLru() {
        double[] ratios = new double[2];
        for (EvictionPolicy policy : EvictionPolicy.values()) {
            try (OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                    .capacity(256 * 1024).concurrencyLevel(1).evictionPolicy(policy).build()) {
                byte[] value = new byte[100];
                Random random = new Random(7);
                long scanKey = 1_000_000;
                long hits = 0;
                long requests = 0;
                for (int round = 0; round < 100; round++) {
                    for (int i = 0; i < 2_000; i++) {
                        long k = random.nextInt(1_000);
                        requests++;
                        if (cache.getIfPresent(k) != null) {
                            hits++;
                        } else {
                            cache.put(k, value);
                        }
                    }
                    for (int i = 0; i < 3_000; i++) {
                        cache.put(scanKey++, value);
                    }
                }
                ratios[policy.ordinal()] = (double) hits / requests;
            }
        }
        assertThat(ratios[EvictionPolicy.W_TINY_LFU.ordinal()]).isGreaterThan(0.9)
                .isGreaterThan(ratios[EvictionPolicy.LRU.ordinal()] + 0.2);
    }

    /**
     * A cache whose scheduled clean-up the executor refuses (here: shut down) was built, charged to its
     * budget and registered as an MBean before the schedule failed, and never reached the caller: before,
     * the budget stayed charged and the MBean registered until the collector found the cache, with a
     * warning that it was never closed.
     */
    @Test
    void aBuildWhoseCleanUpScheduleIsRefusedLeavesNothingCharged() throws Exception {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        executor.shutdown();
        try (Budget budget = Budget.root("refused-schedule", 1 << 20)) {
            assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(256 * 1024).budget(budget).name("refused-schedule")
                    .cleanUpInterval(Duration.ofSeconds(1), executor).build())
                    .isInstanceOf(RejectedExecutionException.class);
            assertThat(budget.used()).as("budget charged after the failed build").isZero();
            assertThat(ManagementFactory.getPlatformMBeanServer()
                    .isRegistered(new ObjectName("dev.offheap:type=Cache,name=\"refused-schedule\""))).isFalse();
        }
    }

    /**
     * Two caches share a memory manager: each reserves its capacity and gives it back at close, and the
     * manager then forgets it. Before, the cache gave its bytes back with {@code releaseReservation}, which
     * keeps the owner's record, keyed by the cache's resources: the manager held every cache ever built on
     * it (its shards' heap bookkeeping, a few KiB per segment) and listed it in {@code usageByOwner()}.
     */
    @Test
    void aMemoryManagerForgetsTheCachesThatClosed() throws Exception {
        try (MemoryManager manager = MemoryManager.builder().totalSize(4L << 20).pageSize(32 * 1024)
                .registerMBean(false).build()) {
            OffHeapCache<String, String> first = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(1 << 20).memoryManager(manager).name("tenant-1").concurrencyLevel(64).build();
            OffHeapCache<String, String> second = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(1 << 20).memoryManager(manager).name("tenant-2").build();
            WeakReference<Object> firstResources = new WeakReference<>(resourcesOf(first));
            first.put("a", "b");
            second.put("a", "b");
            assertThat(manager.usedBytes()).isEqualTo(2L << 20);
            assertThat(manager.usageByOwner()).containsOnlyKeys("OffHeapCache[tenant-1]", "OffHeapCache[tenant-2]");

            first.close();
            assertThat(manager.usedBytes()).isEqualTo(1L << 20);
            assertThat(manager.usageByOwner()).containsOnlyKeys("OffHeapCache[tenant-2]");
            second.close();
            assertThat(manager.usedBytes()).isZero();
            assertThat(manager.usageByOwner()).isEmpty();

            first = null;
            assertThat(collectUntil(() -> firstResources.get() == null))
                    .as("a closed cache's resources are not held by the manager").isTrue();
        }
    }

    /** A build the manager refuses (its budget is smaller than the capacity) leaves no owner behind either. */
    @Test
    void aBuildTheMemoryManagerRefusesLeavesNoOwnerBehind() {
        try (MemoryManager manager = MemoryManager.builder().totalSize(2L << 20).pageSize(32 * 1024)
                .registerMBean(false).build()) {
            assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(3 << 20).memoryManager(manager).name("too-large").build())
                    .isInstanceOf(BudgetExceededException.class);
            assertThat(manager.usedBytes()).isZero();
            assertThat(manager.usageByOwner()).isEmpty();
        }
    }

    private static Object resourcesOf(OffHeapCache<?, ?> cache) throws ReflectiveOperationException {
        Field field = OffHeapCacheImpl.class.getDeclaredField("resources");
        field.setAccessible(true);
        return field.get(cache);
    }
}
