package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import javax.cache.Cache;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Bulk gets through the JCache layer ({@code offheap-jcache}): {@code batchKeys} uniformly random keys of
 * the workload per operation, every key present, one thread, as {@link CacheGetAllBenchmark} measures
 * the off-heap cache itself.
 *
 * <p>Mode: throughput in batches per second; multiply by the batch's distinct keys (at most
 * {@code batchKeys}) for keys per second. Higher is better.
 *
 * <p>The variants, each returning a map of key to value:
 * <ul>
 * <li>{@code jcacheEach} (baseline): a loop of JCache {@code get}, the values put in a
 *     {@code LinkedHashMap}: one lookup after another.
 * <li>{@code jcacheGetAll}: JCache {@code getAll}, which looks the keys up with the off-heap cache's
 *     {@code getAllPresent} (batched, their memory accesses overlapped) and then applies JCache's
 *     per-entry expiry and statistics.
 * </ul>
 * No goal is checked: the issue sets none for bulk gets. The ratio is what {@code getAll} buys a
 * JCache user over a loop of gets.
 */
public class JCacheGetAllBenchmark extends CacheThroughputBenchmark {

    /** The keys of one operation, drawn afresh each time from the thread's {@link CacheStates.Cursor}. */
    @State(Scope.Thread)
    public static class Batch {
        /** Keys drawn per operation (duplicates drawn count once: JCache's {@code getAll} takes a set). */
        @Param({"64"})
        public int batchKeys;

        final LinkedHashSet<Long> keys = new LinkedHashSet<>();

        /** @return the next batch: {@code batchKeys} random keys of the workload, without duplicates */
        Set<Long> next(CacheStates.Keys workload, CacheStates.Cursor cursor) {
            return cursor.drawKeys(keys, workload, batchKeys);
        }
    }

    /**
     * A JCache of the off-heap provider filled with the workload: W-TinyLFU, room for every entry (the
     * same capacity as {@link CacheStates.OffHeap}'s; each JCache entry is 8 bytes longer, its expiry
     * time), eternal entries, statistics off (JCache's default).
     */
    @State(Scope.Benchmark)
    public static class JCache {
        private OffHeapCachingProvider provider;
        Cache<Long, byte[]> cache;

        /** @param keys the workload */
        @Setup(Level.Trial)
        public void setUp(CacheStates.Keys keys) {
            Workload w = keys.w;
            provider = new OffHeapCachingProvider();
            OffHeapConfiguration<Long, byte[]> configuration = new OffHeapConfiguration<>();
            configuration.setTypes(Long.class, byte[].class);
            configuration.setCapacityBytes(Caches.roomForAll(w));
            configuration.setEvictionPolicy(EvictionPolicy.W_TINY_LFU);
            cache = provider.getCacheManager().createCache("bench", configuration);
            w.putEach(cache::put);
            long size = cache.unwrap(dev.offheap.cache.OffHeapCache.class).size();
            if (size != w.keyCount) {
                throw new IllegalStateException("the JCache kept " + size + " of " + w.keyCount
                        + " entries; the benchmark needs every key present");
            }
        }

        /** Closes the provider, which frees the cache's memory. */
        @TearDown(Level.Trial)
        public void tearDown() {
            provider.close();
        }
    }

    @Benchmark
    @Baseline
    public Map<Long, byte[]> jcacheEach(CacheStates.Keys keys, JCache jcache, CacheStates.Cursor cursor, Batch batch) {
        Map<Long, byte[]> found = new LinkedHashMap<>();
        for (Long key : batch.next(keys, cursor)) {
            byte[] value = jcache.cache.get(key);
            if (value != null) {
                found.put(key, value);
            }
        }
        return found;
    }

    @Benchmark
    public Map<Long, byte[]> jcacheGetAll(CacheStates.Keys keys, JCache jcache, CacheStates.Cursor cursor, Batch batch) {
        return jcache.cache.getAll(batch.next(keys, cursor));
    }
}
