package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Bulk gets that hit: {@code batchKeys} uniformly random keys of the workload per operation, every key
 * present ({@link CacheStates}), one thread. What a service that looks up many ids per request does.
 *
 * <p>Mode: {@link Mode#Throughput} in batches per second; multiply by {@code batchKeys} for keys per
 * second. Higher is better.
 *
 * <p>The variants, each returning a map of key to a value array:
 * <ul>
 * <li>{@code offheapEach} (baseline): a loop of {@code getIfPresent}, each value copied into a new
 *     {@code byte[]}, the present ones put in a {@code LinkedHashMap}: one lookup after another.
 * <li>{@code offheapGetAllPresent}: {@code getAllPresent}, which looks the keys up in batches and loads
 *     every key's bucket and entry before the lookups, so that their cache misses overlap.
 * <li>{@code caffeine}: Caffeine's {@code getAllPresent}, which returns the cached arrays themselves.
 * <li>{@code ohcEach}: OHC 0.7.4 has no bulk get; a loop of its {@code get}, each value copied.
 * </ul>
 * No goal is checked: the issue sets none for bulk gets. The ratio of {@code offheapGetAllPresent} to
 * {@code offheapEach} is what batching buys in the same cache.
 */
public class CacheGetAllBenchmark extends CacheThroughputBenchmark {

    /** The keys of one operation, drawn afresh each time from the thread's {@link CacheStates.Cursor}. */
    @State(Scope.Thread)
    public static class Batch {
        /** Keys per operation. */
        @Param({"64"})
        public int batchKeys;

        final ArrayList<Long> keys = new ArrayList<>();

        /** Sizes the list once. */
        @Setup(Level.Trial)
        public void setUp() {
            keys.ensureCapacity(batchKeys);
        }

        /** @return the next batch: {@code batchKeys} random keys of the workload */
        List<Long> next(CacheStates.Keys workload, CacheStates.Cursor cursor) {
            return cursor.drawKeys(keys, workload, batchKeys);
        }
    }

    @Benchmark
    @Baseline
    public Map<Long, byte[]> offheapEach(CacheStates.Keys keys, CacheStates.OffHeap offheap,
                                         CacheStates.Cursor cursor, Batch batch) {
        return each(batch.next(keys, cursor), offheap.cache::getIfPresent);
    }

    @Benchmark
    public Map<Long, byte[]> offheapGetAllPresent(CacheStates.Keys keys, CacheStates.OffHeap offheap,
                                                  CacheStates.Cursor cursor, Batch batch) {
        return offheap.cache.getAllPresent(batch.next(keys, cursor));
    }

    @Benchmark
    public Map<Long, byte[]> caffeine(CacheStates.Keys keys, CacheStates.OnHeap caffeine,
                                      CacheStates.Cursor cursor, Batch batch) {
        return caffeine.cache.getAllPresent(batch.next(keys, cursor));
    }

    @Benchmark
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public Map<Long, byte[]> ohcEach(CacheStates.Keys keys, CacheStates.OhcLru ohc,
                                     CacheStates.Cursor cursor, Batch batch) {
        return each(batch.next(keys, cursor), ohc.cache::get);
    }

    /**
     * One lookup after another, the present keys' values in a map as {@code getAllPresent} returns them.
     * Small enough to inline into each benchmark, where {@code get} is then a single known method.
     */
    private static Map<Long, byte[]> each(List<Long> keys, Function<Long, byte[]> get) {
        Map<Long, byte[]> found = new LinkedHashMap<>();
        for (Long key : keys) {
            byte[] value = get.apply(key);
            if (value != null) {
                found.put(key, value);
            }
        }
        return found;
    }
}
