package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.alloc.LargeRegions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Whether the cache's copying gets and puts are limited by memory bandwidth or by the cache: one value
 * per operation, through the cache and through a bare {@code MemorySegment.copy} of the same number of
 * bytes, from the same amount of native memory (one value per key, a random key each time), on one
 * thread. Bytes per second are operations per second times the value size; the report's goal section
 * shows them.
 *
 * <p>Mode: {@link Mode#Throughput} in operations (values copied) per second; higher is better.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code segmentCopyOut} (baseline): {@code MemorySegment.copy} of one value from a native region
 *     into a {@code byte[]} the thread reuses: the floor of a get.
 * <li>{@code segmentToArray}: the same into a new {@code byte[]} ({@code toArray}), what a copying get
 *     must do at least.
 * <li>{@code segmentCopyIn}: {@code MemorySegment.copy} of a {@code byte[]} into the native region: the
 *     floor of a put.
 * <li>{@code offheapGet}: {@code getIfPresent}, a new {@code byte[]} per get.
 * <li>{@code offheapReadCopy}: {@code read(key, reader)} whose reader copies the value into the
 *     thread's reused {@code byte[]}: the cache's own cost above {@code segmentCopyOut}.
 * <li>{@code offheapPut}: {@code put} of a value template (no fresh copy here: only the cache's copy is
 *     measured).
 * </ul>
 * Goal checked: copying gets and puts close to the copies' bytes per second.
 */
public class CacheBandwidthBenchmark extends CacheThroughputBenchmark {

    /** One value per key in one native region, as a cache would hold them, without the cache. */
    @State(Scope.Benchmark)
    public static class Region {
        Arena arena;
        MemorySegment values;
        int valueBytes;

        /** @param keys the workload, whose value bytes the region holds */
        @Setup(Level.Trial)
        public void setUp(CacheStates.Keys keys) {
            Workload w = keys.w;
            valueBytes = w.valueBytes;
            arena = Arena.ofShared();
            // memory of the cache's kind (mapped, on transparent huge pages where the system offers them):
            // Arena.allocate's 4 KiB pages would add TLB misses to every copy that the cache does not pay
            values = LargeRegions.allocate(w.valueBytesTotal(), arena);
            for (int i = 0; i < w.keyCount; i++) {
                MemorySegment.copy(w.initialValue(i), 0, values, ValueLayout.JAVA_BYTE, (long) i * valueBytes, valueBytes);
            }
        }

        /** Frees the region. */
        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    /** A thread's reused destination array, and a reader that copies into it. */
    @State(Scope.Thread)
    public static class Buffer {
        byte[] target;
        Function<MemorySegment, byte[]> copyInto;

        /** @param keys the workload, whose value size the buffer has */
        @Setup(Level.Trial)
        public void setUp(CacheStates.Keys keys) {
            target = new byte[keys.w.valueBytes];
            byte[] t = target;
            copyInto = segment -> {
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, 0, t, 0, (int) segment.byteSize());
                return t;
            };
        }
    }

    @Benchmark
    @Baseline
    public byte[] segmentCopyOut(CacheStates.Keys keys, Region region, Buffer buffer, CacheStates.Cursor cursor) {
        long offset = (long) cursor.next(keys.w.keyCount) * region.valueBytes;
        MemorySegment.copy(region.values, ValueLayout.JAVA_BYTE, offset, buffer.target, 0, region.valueBytes);
        return buffer.target;
    }

    @Benchmark
    public byte[] segmentToArray(CacheStates.Keys keys, Region region, CacheStates.Cursor cursor) {
        long offset = (long) cursor.next(keys.w.keyCount) * region.valueBytes;
        return region.values.asSlice(offset, region.valueBytes).toArray(ValueLayout.JAVA_BYTE);
    }

    @Benchmark
    public MemorySegment segmentCopyIn(CacheStates.Keys keys, Region region, CacheStates.Cursor cursor) {
        int i = cursor.next(keys.w.keyCount);
        long offset = (long) i * region.valueBytes;
        MemorySegment.copy(keys.w.initialValue(i), 0, region.values, ValueLayout.JAVA_BYTE, offset, region.valueBytes);
        return region.values;
    }

    @Benchmark
    public byte[] offheapGet(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        return offheap.cache.getIfPresent(keys.w.keys[cursor.next(keys.w.keyCount)]);
    }

    @Benchmark
    public byte[] offheapReadCopy(CacheStates.Keys keys, CacheStates.OffHeap offheap, Buffer buffer,
            CacheStates.Cursor cursor) {
        return offheap.cache.read(keys.w.keys[cursor.next(keys.w.keyCount)], buffer.copyInto);
    }

    @Benchmark
    public void offheapPut(CacheStates.Keys keys, CacheStates.OffHeap offheap, CacheStates.Cursor cursor) {
        int i = cursor.next(keys.w.keyCount);
        offheap.cache.put(keys.w.keys[i], keys.w.initialValue(i));
    }
}
