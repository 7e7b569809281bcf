package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;

/**
 * Gets that hit: a uniformly random key of the workload, every key present ({@link CacheStates}), on
 * one thread; {@link CacheGetTwoThreadsBenchmark} runs the same on two.
 *
 * <p>Mode: {@link Mode#Throughput} in gets per second, summed over the threads; higher is better.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code ohcLru} (baseline), {@code ohcTinyLfu}: OHC 0.7.4's {@code get}, which copies the value
 *     into a new {@code byte[]} (its serializer's {@code deserialize}).
 * <li>{@code caffeine}: {@code getIfPresent}, which returns the cached array itself, no copy. Its
 *     maintenance (replaying the reads into its policy) runs on the common pool, its default: with one
 *     benchmark thread on two cores, on the other core.
 * <li>{@code caffeineCallerMaintenance}: the same Caffeine with its maintenance on the calling thread
 *     ({@code executor(Runnable::run)}), as offheap replays its reads: the same work on one core. For
 *     reference; the goals compare with {@code caffeine}.
 * <li>{@code offheapGet}: {@code getIfPresent}, which copies the value into a new {@code byte[]}.
 * <li>{@code offheapRead}: {@code read(key, reader)}, zero-copy; the reader looks at the value's first 8
 *     bytes and its last byte, as a consumer that checks a header would.
 * </ul>
 * Goals checked (in the report's goal section): every offheap variant at least 2x {@code ohcLru} and
 * {@code ohcTinyLfu}; at 100-byte values {@code offheapGet} at least 0.5x {@code caffeine}; at 100 KB
 * {@code offheapRead} at least 10x OHC.
 */
public class CacheGetBenchmark extends CacheThroughputBenchmark {

    /** Reads a header-sized prefix and the last byte; returns a constant so that nothing is allocated. */
    static final Function<MemorySegment, Boolean> PEEK = segment -> {
        long head = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        byte last = segment.get(ValueLayout.JAVA_BYTE, segment.byteSize() - 1);
        return (head ^ last) >= 0 ? Boolean.TRUE : Boolean.FALSE;
    };

    @Benchmark
    @Baseline
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public byte[] ohcLru(CacheStates.Keys keys, CacheStates.OhcLru ohc, CacheStates.Cursor cursor) {
        return ohc.cache.get(keys.w.keys[cursor.next(keys.w.keyCount)]);
    }

    @Benchmark
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public byte[] ohcTinyLfu(CacheStates.Keys keys, CacheStates.OhcTinyLfu ohc, CacheStates.Cursor cursor) {
        return ohc.cache.get(keys.w.keys[cursor.next(keys.w.keyCount)]);
    }

    @Benchmark
    public byte[] caffeine(CacheStates.Keys keys, CacheStates.OnHeap caffeine, CacheStates.Cursor cursor) {
        return caffeine.cache.getIfPresent(keys.w.keys[cursor.next(keys.w.keyCount)]);
    }

    @Benchmark
    public byte[] caffeineCallerMaintenance(CacheStates.Keys keys, CacheStates.OnHeapCallerMaintenance caffeine,
                                            CacheStates.Cursor cursor) {
        return caffeine.cache.getIfPresent(keys.w.keys[cursor.next(keys.w.keyCount)]);
    }

    @Benchmark
    public byte[] offheapGet(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        return offheap.cache.getIfPresent(keys.w.keys[cursor.next(keys.w.keyCount)]);
    }

    @Benchmark
    public Boolean offheapRead(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        return offheap.cache.read(keys.w.keys[cursor.next(keys.w.keyCount)], PEEK);
    }
}
