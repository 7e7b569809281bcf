package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;

/**
 * Puts that overwrite: a uniformly random key of the workload, every key present, with a
 * {@linkplain Workload#freshValue(int) fresh value} of the same size (the application's new value; the
 * copy that makes it is the same in every variant), on one thread; {@link CachePutTwoThreadsBenchmark}
 * runs the same on two.
 *
 * <p>Mode: {@link Mode#Throughput} in puts per second, summed over the threads; higher is better.
 *
 * <p>The variants: {@code ohcLru} (baseline) and {@code ohcTinyLfu}, OHC 0.7.4's {@code put}, which
 * serializes into a new off-heap entry and frees the old; {@code caffeine}, {@code put}, which keeps the
 * array; {@code offheapPut}, {@code put}, which serializes the array into the cache.
 *
 * <p>Goals checked: {@code offheapPut} at least 2x OHC; at 100-byte values at least 1x {@code caffeine}.
 */
public class CachePutBenchmark extends CacheThroughputBenchmark {

    @Benchmark
    @Baseline
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public boolean ohcLru(CacheStates.Keys keys, CacheStates.OhcLru ohc, CacheStates.Cursor cursor) {
        int i = cursor.next(keys.w.keyCount);
        return ohc.cache.put(keys.w.keys[i], keys.w.freshValue(i));
    }

    @Benchmark
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public boolean ohcTinyLfu(CacheStates.Keys keys, CacheStates.OhcTinyLfu ohc, CacheStates.Cursor cursor) {
        int i = cursor.next(keys.w.keyCount);
        return ohc.cache.put(keys.w.keys[i], keys.w.freshValue(i));
    }

    @Benchmark
    public void caffeine(CacheStates.Keys keys, CacheStates.OnHeap caffeine, CacheStates.Cursor cursor) {
        int i = cursor.next(keys.w.keyCount);
        caffeine.cache.put(keys.w.keys[i], keys.w.freshValue(i));
    }

    @Benchmark
    public void offheapPut(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        int i = cursor.next(keys.w.keyCount);
        offheap.cache.put(keys.w.keys[i], keys.w.freshValue(i));
    }
}
