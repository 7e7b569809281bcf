package dev.offheap.bench.cache;

import com.github.benmanes.caffeine.cache.Cache;
import dev.offheap.bench.Baseline;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;
import java.util.concurrent.TimeUnit;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Bytes per entry at 100-byte values and 8-byte keys: each cache gets the same capacity,
 * {@code capacityMiB}, and is offered more distinct keys than any can keep (1.25 x capacity / 100); what
 * it keeps, and what that costs, is measured once per fork, before the measurement. The measured
 * operation (a get of a random key) only keeps the fork alive; its score means nothing.
 *
 * <p>Before the measured fill each fork fills a cache of the same kind a sixteenth the size with every
 * key (so that it evicts too) and keeps it open until the fork ends. The JIT compiles the put and
 * eviction paths there, and its memory (code, compiler arenas, loaded classes) is resident before the
 * measurement starts rather than counted as the cache's. Kept open, the warm cache's memory cannot be
 * handed to the measured one. Without it the resident set of a 128 MiB fill grew by 12 to 25 bytes per
 * entry more than the cache's own mapping holds.
 *
 * <p>The results are the secondary metrics ({@code @AuxCounters}), per entry kept:
 * <ul>
 * <li>{@code entries}: how many entries the cache kept.
 * <li>{@code accountedBytesPerEntry}: the cache's own count of bytes in use per entry (offheap:
 *     {@code weightedSize()}, keys, values and headers; OHC: {@code memUsed()}, keys, values and its
 *     64-byte headers; Caffeine: its weight, the value bytes).
 * <li>{@code capacityBytesPerEntry}: the capacity divided by the entries kept. For offheap this is
 *     everything the cache may use, hash table and frequency sketch included; OHC's capacity leaves out
 *     its hash tables and malloc's overhead.
 * <li>{@code nmtBytesPerEntry}: the growth of the JVM's committed native memory per entry, from Native
 *     Memory Tracking's "Other" category, where {@code Unsafe} and FFM allocations land (the total would
 *     add the JIT's and GC's own growth). OHC's fork uses OHC's Unsafe allocator so that NMT sees its memory (its default,
 *     JNA's malloc, is invisible to NMT); neither sees malloc's own per-block overhead.
 * <li>{@code rssBytesPerEntry}: the growth of the process's resident set per entry (the heap is
 *     pre-touched, so this is native memory, malloc's overhead included).
 * <li>{@code heapBytesPerEntry}: the growth of the heap in use after a full GC, per entry.
 * <li>{@code *OverheadBytesPerEntry}: the same minus the 108 bytes of key and value.
 * </ul>
 * A measure the fork cannot take (NMT off, no {@code /proc}) is NaN, which the report shows as missing.
 * Goal checked: offheap's overhead per entry beyond key and value at most 32 bytes.
 *
 * <p>JMH sums {@code EVENTS} counters over iterations and forks; each iteration reports its share
 * (the value divided by forks x measurement iterations), so the sums are the values.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 1, time = 1)
@Fork(value = Forks.COUNT, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch",
        "-XX:NativeMemoryTracking=summary"})
public class CacheFootprintBenchmark {
    /** Key and value bytes of every entry. */
    static final int PAYLOAD = Long.BYTES + 100;

    /** The keys, made before the first measurement so that they are not counted. */
    @State(Scope.Benchmark)
    public static class Offered {
        /** The capacity every cache gets, in MiB. */
        @Param({"128"})
        public int capacityMiB;

        Long[] keys;
        byte[] value;
        long capacityBytes;

        /** Makes the keys. */
        @Setup(Level.Trial)
        public void setUp() {
            capacityBytes = (long) capacityMiB << 20;
            // more than any of them can keep: Caffeine counts only the 100 value bytes of an entry
            int offered = (int) Math.min(Integer.MAX_VALUE - 8, capacityBytes / (PAYLOAD - Long.BYTES) * 5 / 4);
            keys = new Long[offered];
            for (int i = 0; i < offered; i++) {
                keys[i] = (long) i * 0x9E3779B97F4A7C15L;
            }
            value = new byte[PAYLOAD - Long.BYTES];
            java.util.Arrays.fill(value, (byte) 7);
        }
    }

    /** The measurements of one fork, taken around filling its cache. */
    @State(Scope.Benchmark)
    public abstract static class Footprint {
        /** The warm cache's share of the measured capacity: see the class comment. */
        static final int WARM_FRACTION = 16;

        long entries;
        long accountedBytes;
        long capacityBytes;
        long nmtBytes = -1;
        long rssBytes = -1;
        long heapBytes;

        private long nmtBefore;
        private long rssBefore;
        private long heapBefore;

        final void before() {
            heapBefore = ProcessMemory.heapUsedAfterGc();
            nmtBefore = ProcessMemory.nmtOtherCommittedBytes();
            rssBefore = ProcessMemory.residentBytes();
        }

        final void after(long entries, long accountedBytes, long capacityBytes) {
            this.entries = entries;
            this.accountedBytes = accountedBytes;
            this.capacityBytes = capacityBytes;
            long nmtAfter = ProcessMemory.nmtOtherCommittedBytes();
            long rssAfter = ProcessMemory.residentBytes();
            nmtBytes = nmtBefore < 0 || nmtAfter < 0 ? -1 : nmtAfter - nmtBefore;
            rssBytes = rssBefore < 0 || rssAfter < 0 ? -1 : rssAfter - rssBefore;
            heapBytes = ProcessMemory.heapUsedAfterGc() - heapBefore;
        }
    }

    /** offheap, W-TinyLFU. */
    public static class OffHeapFootprint extends Footprint {
        OffHeapCache<Long, byte[]> cache;
        OffHeapCache<Long, byte[]> warm;

        /** @param offered the keys and value */
        @Setup(Level.Trial)
        public void fill(Offered offered) {
            warm = Caches.offheap(offered.capacityBytes / WARM_FRACTION, EvictionPolicy.W_TINY_LFU);
            fill(warm, offered);
            before();
            cache = Caches.offheap(offered.capacityBytes, EvictionPolicy.W_TINY_LFU);
            fill(cache, offered);
            after(cache.size(), cache.weightedSize(), cache.capacityBytes());
        }

        private static void fill(OffHeapCache<Long, byte[]> target, Offered offered) {
            for (Long key : offered.keys) {
                target.put(key, offered.value);
            }
        }

        /** Frees the caches. */
        @TearDown(Level.Trial)
        public void close() {
            cache.close();
            warm.close();
        }
    }

    /** OHC, LRU, Unsafe allocator. */
    public static class OhcFootprint extends Footprint {
        OHCache<Long, byte[]> cache;
        OHCache<Long, byte[]> warm;

        /** @param offered the keys and value */
        @Setup(Level.Trial)
        public void fill(Offered offered) {
            warm = Caches.ohc(offered.capacityBytes / WARM_FRACTION, Eviction.LRU, PAYLOAD + Caches.OHC_ENTRY_HEADER + 64);
            fill(warm, offered);
            before();
            cache = Caches.ohc(offered.capacityBytes, Eviction.LRU, PAYLOAD + Caches.OHC_ENTRY_HEADER + 64);
            fill(cache, offered);
            after(cache.size(), cache.memUsed(), cache.capacity());
        }

        private static void fill(OHCache<Long, byte[]> target, Offered offered) {
            for (Long key : offered.keys) {
                target.put(key, offered.value);
            }
        }

        /** Frees OHC's memory. */
        @TearDown(Level.Trial)
        public void close() throws java.io.IOException {
            cache.close();
            warm.close();
        }
    }

    /** Caffeine, maximum weight in value bytes, maintenance on the calling thread. */
    public static class CaffeineFootprint extends Footprint {
        Cache<Long, byte[]> cache;
        Cache<Long, byte[]> warm;

        /** @param offered the keys and value */
        @Setup(Level.Trial)
        public void fill(Offered offered) {
            warm = Caches.caffeine(offered.capacityBytes / WARM_FRACTION, Runnable::run);
            fill(warm, offered);
            before();
            cache = Caches.caffeine(offered.capacityBytes, Runnable::run);
            fill(cache, offered);
            long weight = cache.policy().eviction().orElseThrow().weightedSize().orElse(0);
            after(cache.estimatedSize(), weight, offered.capacityBytes);
        }

        private static void fill(Cache<Long, byte[]> target, Offered offered) {
            for (Long key : offered.keys) {
                // a value of its own per entry, as values are in a real cache
                target.put(key, offered.value.clone());
            }
            target.cleanUp();
        }

        /** Drops the cache. */
        @TearDown(Level.Trial)
        public void close() {
            cache.invalidateAll();
            warm.invalidateAll();
        }
    }

    /** What a fork reports; see the class comment for each counter. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public double entries;
        public double accountedBytesPerEntry;
        public double capacityBytesPerEntry;
        public double nmtBytesPerEntry;
        public double rssBytesPerEntry;
        public double heapBytesPerEntry;
        public double accountedOverheadBytesPerEntry;
        public double capacityOverheadBytesPerEntry;
        public double nmtOverheadBytesPerEntry;
        public double rssOverheadBytesPerEntry;

        void report(Footprint f, BenchmarkParams params) {
            double share = 1.0 / (params.getForks() * params.getMeasurement().getCount());
            double n = Math.max(1, f.entries);
            entries = f.entries * share;
            accountedBytesPerEntry = f.accountedBytes / n * share;
            capacityBytesPerEntry = f.capacityBytes / n * share;
            nmtBytesPerEntry = f.nmtBytes < 0 ? Double.NaN : f.nmtBytes / n * share;
            rssBytesPerEntry = f.rssBytes < 0 ? Double.NaN : f.rssBytes / n * share;
            heapBytesPerEntry = f.heapBytes / n * share;
            accountedOverheadBytesPerEntry = (f.accountedBytes / n - PAYLOAD) * share;
            capacityOverheadBytesPerEntry = (f.capacityBytes / n - PAYLOAD) * share;
            nmtOverheadBytesPerEntry = f.nmtBytes < 0 ? Double.NaN : (f.nmtBytes / n - PAYLOAD) * share;
            rssOverheadBytesPerEntry = f.rssBytes < 0 ? Double.NaN : (f.rssBytes / n - PAYLOAD) * share;
        }
    }

    /** Sets each iteration's share of the counters. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    @Benchmark
    @Baseline
    @Fork(value = Forks.COUNT, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch",
            "-XX:NativeMemoryTracking=summary", Forks.OHC_UNSAFE, "-Dorg.caffinitas.ohc.allocator=unsafe"})
    public byte[] ohcLru(OhcFootprint f, Offered offered, Counters counters, BenchmarkParams params, Cursor c) {
        counters.report(f, params);
        return f.cache.get(offered.keys[next(c, offered)]);
    }

    @Benchmark
    public byte[] caffeine(CaffeineFootprint f, Offered offered, Counters counters, BenchmarkParams params, Cursor c) {
        counters.report(f, params);
        return f.cache.getIfPresent(offered.keys[next(c, offered)]);
    }

    @Benchmark
    public byte[] offheap(OffHeapFootprint f, Offered offered, Counters counters, BenchmarkParams params, Cursor c) {
        counters.report(f, params);
        return f.cache.getIfPresent(offered.keys[next(c, offered)]);
    }

    private static int next(Cursor c, Offered offered) {
        int i = c.next;
        c.next = i + 1 == offered.keys.length ? 0 : i + 1;
        return i;
    }
}
