package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;

/**
 * 90% gets and 10% puts: each thread puts on every tenth operation (a fixed pattern, so every variant
 * does exactly the same split), a uniformly random key, every key present; the puts store
 * {@linkplain Workload#freshValue(int) fresh values}, as a service replaces entries with values it has
 * just built. On one thread; {@link CacheMixTwoThreadsBenchmark} runs the same on two.
 *
 * <p>The suite runs this class with JMH's GC profiler: {@code gc.count} and {@code gc.time} are the
 * collections and milliseconds spent in them during the measurement, per variant. On the heap
 * (Caffeine) every put leaves an old value for the collector to find among the live ones; off the heap
 * the cache holds no Java object per entry.
 *
 * <p>Mode: {@link Mode#Throughput} in operations per second, summed over the threads; higher is better.
 *
 * <p>The variants: as in {@link CacheGetBenchmark} ({@code offheapGet} copies values out,
 * {@code offheapRead} reads them in place) with the puts of {@link CachePutBenchmark}.
 *
 * <p>Goals checked: offheap at least 2x OHC; at 100-byte values {@code offheapGet} at least 0.5x
 * {@code caffeine}; at 100 KB, GC time at least 5x lower than {@code caffeine}'s.
 */
public class CacheMixBenchmark extends CacheThroughputBenchmark {

    @Benchmark
    @Baseline
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public Object ohcLru(CacheStates.Keys keys, CacheStates.OhcLru ohc, CacheStates.Cursor cursor) {
        return ohcOperation(keys.w, ohc, cursor);
    }

    @Benchmark
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public Object ohcTinyLfu(CacheStates.Keys keys, CacheStates.OhcTinyLfu ohc, CacheStates.Cursor cursor) {
        return ohcOperation(keys.w, ohc, cursor);
    }

    @Benchmark
    public Object caffeine(CacheStates.Keys keys, CacheStates.OnHeap caffeine, CacheStates.Cursor cursor) {
        Workload w = keys.w;
        int i = cursor.next(w.keyCount);
        if (cursor.putTurn()) {
            caffeine.cache.put(w.keys[i], w.freshValue(i));
            return null;
        }
        return caffeine.cache.getIfPresent(w.keys[i]);
    }

    @Benchmark
    public Object offheapGet(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        Workload w = keys.w;
        int i = cursor.next(w.keyCount);
        if (cursor.putTurn()) {
            offheap.cache.put(w.keys[i], w.freshValue(i));
            return null;
        }
        return offheap.cache.getIfPresent(w.keys[i]);
    }

    @Benchmark
    public Object offheapRead(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        Workload w = keys.w;
        int i = cursor.next(w.keyCount);
        if (cursor.putTurn()) {
            offheap.cache.put(w.keys[i], w.freshValue(i));
            return null;
        }
        return offheap.cache.read(w.keys[i], CacheGetBenchmark.PEEK);
    }

    /** One operation on OHC, the same for both of its eviction policies. */
    private static Object ohcOperation(Workload w, CacheStates.Ohc ohc, CacheStates.Cursor cursor) {
        int i = cursor.next(w.keyCount);
        if (cursor.putTurn()) {
            return ohc.cache.put(w.keys[i], w.freshValue(i));
        }
        return ohc.cache.get(w.keys[i]);
    }
}
