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
 * Hit ratio at equal byte capacity: every cache gets the same number of bytes, a sixth of the
 * {@code keyspace} keys' value bytes (100-byte values, 8-byte keys), each as its own builder counts them
 * (offheap: everything it uses; Caffeine: the value bytes; OHC: keys, values and headers, not its
 * tables). Each operation replays a whole {@link KeyStream} into a fresh, empty cache: a get, and on a
 * miss a put. Statistics are counted by the benchmark, the same way for every cache.
 *
 * <p>The result is the secondary metric {@code hitRatioPercent} (hits per 100 gets over the whole
 * stream, the same in every iteration since the stream is seeded); the primary score is the replay's
 * time, single shot, in milliseconds (lower is better; ratio to Caffeine's).
 *
 * <p>Caffeine runs its maintenance on the calling thread, so its evictions are deterministic too.
 *
 * <p>At equal bytes Caffeine holds more entries: it counts only the value bytes, while offheap's capacity
 * pays for keys, headers, table and sketch too. {@code caffeineEqualEntries} separates the policy from that
 * footprint: a Caffeine limited to as many entries as an offheap W-TinyLFU cache of the same capacity holds
 * when full ({@link FreshCaffeineEqualEntries}). Its hit ratio against {@code offheapTinyLfu}'s compares the two
 * eviction policies alone. {@code caffeineEqualMemory} goes the other way: a Caffeine limited to as many
 * entries as fit in the same bytes of heap ({@link FreshCaffeineEqualMemory}), its own nodes, keys,
 * values and tables counted, as a user who gives either cache the same memory would see them.
 *
 * <p>Goal checked: offheap W-TinyLFU within 1 percentage point of Caffeine on both streams.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
@Warmup(iterations = 1)
@Measurement(iterations = 2)
@Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX})
public class HitRatioBenchmark {
    static final int VALUE_BYTES = 100;

    /** The stream and its keys, made once per fork. */
    @State(Scope.Benchmark)
    public static class Replay {
        /** The key stream: {@code zipf} or {@code scan} (see {@link KeyStream}). */
        @Param({"zipf", "scan"})
        public String stream;

        /** The stream's length; the Zipf keyspace is half of it. */
        @Param({"2000000"})
        public int accesses;

        int[] indexes;
        Long[] keys;
        byte[] value;
        long capacityBytes;

        /** Makes the stream and its keys. */
        @Setup(Level.Trial)
        public void setUp() {
            String kind = stream;
            int keyspace = Math.max(1, accesses / 2);
            indexes = KeyStream.of(kind, accesses, keyspace);
            keys = new Long[KeyStream.keysNeeded(kind, accesses, keyspace)];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = (long) i * 0x9E3779B97F4A7C15L;
            }
            value = new byte[VALUE_BYTES];
            // a sixth of the keyspace's value bytes, and at least 1 MiB so that the smallest runs have room
            capacityBytes = Math.max(1L << 20, (long) keyspace * VALUE_BYTES / 6);
        }
    }

    /** Hits and gets of one replay. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public double hitRatioPercent;

        void report(long hits, long gets, BenchmarkParams params) {
            double share = 1.0 / (params.getForks() * params.getMeasurement().getCount());
            hitRatioPercent = 100.0 * hits / Math.max(1, gets) * share;
        }
    }

    /** A fresh Caffeine per replay. */
    @State(Scope.Thread)
    public static class FreshCaffeine {
        Cache<Long, byte[]> cache;

        /** @param replay the capacity */
        @Setup(Level.Iteration)
        public void setUp(Replay replay) {
            cache = Caches.caffeine(replay.capacityBytes, Runnable::run);
        }
    }

    /**
     * A fresh Caffeine per replay, bounded by an entry count that the subclass measures once per fork: only
     * the benchmark that uses the count pays for measuring it.
     */
    public abstract static class FreshCaffeineOfEntries {
        Cache<Long, byte[]> cache;
        private long entries;

        /** @param replay the capacity the subclass derives its entry count from */
        @Setup(Level.Trial)
        public void measure(Replay replay) {
            entries = Math.max(1, entries(replay.capacityBytes));
        }

        /** Builds this replay's cache. */
        @Setup(Level.Iteration)
        public void setUp() {
            cache = Caches.caffeineOfEntries(entries);
        }

        abstract long entries(long capacityBytes);
    }

    /**
     * A fresh Caffeine per replay, limited to the entries offheap holds at the same capacity: those an
     * offheap W-TinyLFU cache keeps after twice as many distinct keys as its value bytes could hold.
     */
    @State(Scope.Thread)
    public static class FreshCaffeineEqualEntries extends FreshCaffeineOfEntries {
        @Override
        long entries(long capacityBytes) {
            try (OffHeapCache<Long, byte[]> full = Caches.offheap(capacityBytes, EvictionPolicy.W_TINY_LFU)) {
                byte[] value = new byte[VALUE_BYTES];
                long keys = 2 * capacityBytes / VALUE_BYTES;
                for (long i = 0; i < keys; i++) {
                    full.put(-1 - i, value);
                }
                return full.size();
            }
        }
    }

    /**
     * A fresh Caffeine per replay, limited to the entries that fit in the capacity's bytes of heap: the
     * capacity divided by the heap a full Caffeine retains per entry. That is measured on a Caffeine bounded
     * to {@code capacityBytes / VALUE_BYTES} entries and filled with as many distinct keys, each a
     * {@code Long} and a value array of its own as a cache that loaded them holds them (heap after full
     * collections, before and after).
     */
    @State(Scope.Thread)
    public static class FreshCaffeineEqualMemory extends FreshCaffeineOfEntries {
        @Override
        long entries(long capacityBytes) {
            int entries = (int) Math.min(Integer.MAX_VALUE - 8, capacityBytes / VALUE_BYTES);
            long before = ProcessMemory.heapUsedAfterGc();
            Cache<Long, byte[]> full = Caches.caffeineOfEntries(entries);
            for (int i = 0; i < entries; i++) {
                full.put(-1L - i, new byte[VALUE_BYTES]);
            }
            full.cleanUp();
            long after = ProcessMemory.heapUsedAfterGc();
            // the call after the measurement keeps the cache reachable through it
            double perEntry = (double) (after - before) / full.estimatedSize();
            if (perEntry < VALUE_BYTES) {
                throw new IllegalStateException("a Caffeine entry of " + VALUE_BYTES + " value bytes measured "
                        + perEntry + " bytes of heap: the heap measurement failed");
            }
            return (long) (capacityBytes / perEntry);
        }
    }

    /** A fresh offheap cache per replay, freed after it; the subclasses choose the eviction policy. */
    public abstract static class FreshOffHeap {
        private final EvictionPolicy policy;
        OffHeapCache<Long, byte[]> cache;

        /** @param policy the eviction policy each fresh cache is built with */
        FreshOffHeap(EvictionPolicy policy) {
            this.policy = policy;
        }

        /** @param replay the capacity */
        @Setup(Level.Iteration)
        public void setUp(Replay replay) {
            cache = Caches.offheap(replay.capacityBytes, policy);
        }

        /** Frees it. */
        @TearDown(Level.Iteration)
        public void tearDown() {
            cache.close();
        }
    }

    /** A fresh offheap cache with W-TinyLFU per replay. */
    @State(Scope.Thread)
    public static class FreshTinyLfu extends FreshOffHeap {
        /** Created by JMH. */
        public FreshTinyLfu() {
            super(EvictionPolicy.W_TINY_LFU);
        }
    }

    /** A fresh offheap cache with LRU per replay. */
    @State(Scope.Thread)
    public static class FreshLru extends FreshOffHeap {
        /** Created by JMH. */
        public FreshLru() {
            super(EvictionPolicy.LRU);
        }
    }

    /** A fresh OHC per replay, freed after it; the subclasses choose the eviction. */
    public abstract static class FreshOhc {
        private final Eviction eviction;
        OHCache<Long, byte[]> cache;

        /** @param eviction the eviction each fresh cache is built with */
        FreshOhc(Eviction eviction) {
            this.eviction = eviction;
        }

        /** @param replay the capacity */
        @Setup(Level.Iteration)
        public void setUp(Replay replay) {
            cache = Caches.ohc(replay.capacityBytes, eviction, VALUE_BYTES + Long.BYTES + Caches.OHC_ENTRY_HEADER + 64);
        }

        /** Frees it. */
        @TearDown(Level.Iteration)
        public void tearDown() throws java.io.IOException {
            cache.close();
        }
    }

    /** A fresh OHC with LRU per replay. */
    @State(Scope.Thread)
    public static class FreshOhcLru extends FreshOhc {
        /** Created by JMH. */
        public FreshOhcLru() {
            super(Eviction.LRU);
        }
    }

    /** A fresh OHC with W-TinyLFU per replay. */
    @State(Scope.Thread)
    public static class FreshOhcTinyLfu extends FreshOhc {
        /** Created by JMH. */
        public FreshOhcTinyLfu() {
            super(Eviction.W_TINY_LFU);
        }
    }

    @Benchmark
    @Baseline
    public long caffeine(Replay replay, FreshCaffeine fresh, Counters counters, BenchmarkParams params) {
        return reported(replayCaffeine(replay, fresh.cache), replay, counters, params);
    }

    /** Reports a replay's hits to the counters, and returns them for JMH to consume. */
    private static long reported(long hits, Replay replay, Counters counters, BenchmarkParams params) {
        counters.report(hits, replay.indexes.length, params);
        return hits;
    }

    private static long replayCaffeine(Replay replay, Cache<Long, byte[]> cache) {
        long hits = 0;
        for (int index : replay.indexes) {
            Long key = replay.keys[index];
            if (cache.getIfPresent(key) != null) {
                hits++;
            } else {
                cache.put(key, replay.value);
            }
        }
        return hits;
    }

    @Benchmark
    public long caffeineEqualEntries(Replay replay, FreshCaffeineEqualEntries fresh, Counters counters,
                                     BenchmarkParams params) {
        return reported(replayCaffeine(replay, fresh.cache), replay, counters, params);
    }

    @Benchmark
    public long caffeineEqualMemory(Replay replay, FreshCaffeineEqualMemory fresh, Counters counters,
                                    BenchmarkParams params) {
        return reported(replayCaffeine(replay, fresh.cache), replay, counters, params);
    }

    @Benchmark
    public long offheapTinyLfu(Replay replay, FreshTinyLfu fresh, Counters counters, BenchmarkParams params) {
        return reported(replayOffHeap(replay, fresh.cache), replay, counters, params);
    }

    @Benchmark
    public long offheapLru(Replay replay, FreshLru fresh, Counters counters, BenchmarkParams params) {
        return reported(replayOffHeap(replay, fresh.cache), replay, counters, params);
    }

    @Benchmark
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public long ohcLru(Replay replay, FreshOhcLru fresh, Counters counters, BenchmarkParams params) {
        return reported(replayOhc(replay, fresh.cache), replay, counters, params);
    }

    @Benchmark
    @Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX, Forks.OHC_UNSAFE})
    public long ohcTinyLfu(Replay replay, FreshOhcTinyLfu fresh, Counters counters, BenchmarkParams params) {
        return reported(replayOhc(replay, fresh.cache), replay, counters, params);
    }

    private static long replayOffHeap(Replay replay, OffHeapCache<Long, byte[]> cache) {
        long hits = 0;
        for (int index : replay.indexes) {
            Long key = replay.keys[index];
            if (cache.read(key, CacheGetBenchmark.PEEK) != null) {
                hits++;
            } else {
                cache.put(key, replay.value);
            }
        }
        return hits;
    }

    private static long replayOhc(Replay replay, OHCache<Long, byte[]> cache) {
        long hits = 0;
        for (int index : replay.indexes) {
            Long key = replay.keys[index];
            if (cache.get(key) != null) {
                hits++;
            } else {
                cache.put(key, replay.value);
            }
        }
        return hits;
    }
}
