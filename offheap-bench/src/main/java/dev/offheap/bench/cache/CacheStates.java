package dev.offheap.bench.cache;

import com.github.benmanes.caffeine.cache.Cache;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The JMH states of the throughput benchmarks: the workload, and one full cache per variant, shared by
 * all threads of a benchmark. Each cache is filled with every key of the workload before measuring, and
 * setup fails if any key is missing: the benchmarks measure hits and overwrites, never misses.
 */
public final class CacheStates {
    private CacheStates() {
    }

    /** The workload: {@code <keys>x<valueBytes>}. */
    @State(Scope.Benchmark)
    public static class Keys {
        /** The seed's cases: a million small values, and 5,000 values of 100 KB. */
        @Param({"1000000x100", "5000x100000"})
        public String workload;

        Workload w;

        /** Parses the parameter and makes the keys and value templates. */
        @Setup(Level.Trial)
        public void setUp() {
            w = Workload.parse(workload);
        }
    }

    /** {@code OffHeapCache} with its default policy, W-TinyLFU. */
    @State(Scope.Benchmark)
    public static class OffHeap {
        OffHeapCache<Long, byte[]> cache;

        /** @param keys the workload */
        @Setup(Level.Trial)
        public void setUp(Keys keys) {
            Workload w = keys.w;
            cache = Caches.offheap(Caches.roomForAll(w), EvictionPolicy.W_TINY_LFU);
            w.putEach(cache::put);
            requireAll("offheap", cache.size(), w);
        }

        /** Frees the cache's memory. */
        @TearDown(Level.Trial)
        public void tearDown() {
            cache.close();
        }
    }

    /**
     * Caffeine filled with the workload, bounded by value bytes; the subclasses differ only in where its
     * maintenance (replaying reads into its policy, evicting) runs.
     */
    public abstract static class Caffeines {
        private final Executor maintenance;
        Cache<Long, byte[]> cache;

        /** @param maintenance where Caffeine runs its maintenance */
        Caffeines(Executor maintenance) {
            this.maintenance = maintenance;
        }

        /** @param keys the workload */
        @Setup(Level.Trial)
        public void setUp(Keys keys) {
            Workload w = keys.w;
            cache = Caches.caffeine(w.valueBytesTotal() * 2, maintenance);
            // an array of its own per entry, as every later put stores: filled with the shared templates,
            // the heap would hold 8 value arrays instead of keyCount, and grow towards keyCount of them
            // while the puts of the measurement replace them, so that every iteration measured another heap
            w.putEach((key, template) -> cache.put(key, template.clone()));
            cache.cleanUp();
            requireAll("caffeine", cache.estimatedSize(), w);
        }

        /** Drops the cache so the next trial starts from an empty heap. */
        @TearDown(Level.Trial)
        public void tearDown() {
            cache.invalidateAll();
            cache = null;
        }
    }

    /**
     * Caffeine with its default maintenance on the common pool: on this 2-core machine the pool's one
     * thread replays a one-thread benchmark's reads on the other core.
     */
    @State(Scope.Benchmark)
    public static class OnHeap extends Caffeines {
        /** Created by JMH. */
        public OnHeap() {
            super(ForkJoinPool.commonPool());
        }
    }

    /** Caffeine with its maintenance on the calling thread, as offheap does its own: the same work on one core. */
    @State(Scope.Benchmark)
    public static class OnHeapCallerMaintenance extends Caffeines {
        /** Created by JMH. */
        public OnHeapCallerMaintenance() {
            super(Runnable::run);
        }
    }

    /**
     * OHC filled with the workload, freed after the trial; the subclasses differ only in the eviction,
     * so that both OHC variants are set up and torn down the same way.
     */
    public abstract static class Ohc {
        private final Eviction eviction;
        OHCache<Long, byte[]> cache;

        /** @param eviction the eviction policy the cache is built with */
        Ohc(Eviction eviction) {
            this.eviction = eviction;
        }

        /** @param keys the workload */
        @Setup(Level.Trial)
        public void setUp(Keys keys) {
            cache = filledOhc(keys.w, eviction);
        }

        /** Frees OHC's memory. */
        @TearDown(Level.Trial)
        public void tearDown() throws java.io.IOException {
            cache.close();
        }
    }

    /** OHC with LRU eviction, its default. */
    @State(Scope.Benchmark)
    public static class OhcLru extends Ohc {
        /** Created by JMH. */
        public OhcLru() {
            super(Eviction.LRU);
        }
    }

    /** OHC with W-TinyLFU eviction. */
    @State(Scope.Benchmark)
    public static class OhcTinyLfu extends Ohc {
        /** Created by JMH. */
        public OhcTinyLfu() {
            super(Eviction.W_TINY_LFU);
        }
    }

    /**
     * A thread's position in its own pseudo-random key sequence (xorshift, seeded per thread), so that
     * threads do not walk the keys in step and choosing a key costs a few instructions.
     */
    @State(Scope.Thread)
    public static class Cursor {
        private static final java.util.concurrent.atomic.AtomicLong SEEDS = new java.util.concurrent.atomic.AtomicLong(1);
        private long x;
        private int step;

        /** Seeds this thread's sequence. */
        @Setup(Level.Trial)
        public void setUp() {
            x = SEEDS.getAndIncrement() * 0x9E3779B97F4A7C15L | 1;
        }

        /**
         * @param bound the number of keys
         * @return the next key index, uniform in {@code [0, bound)}
         */
        int next(int bound) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            return (int) (((x >>> 32) * bound) >>> 32);
        }

        /**
         * Clears {@code into} and adds {@code count} keys of the workload drawn uniformly at random.
         *
         * @return {@code into}, which holds fewer than {@code count} keys if it drops duplicates (a set)
         */
        <C extends java.util.Collection<Long>> C drawKeys(C into, Keys workload, int count) {
            into.clear();
            Long[] all = workload.w.keys;
            int keyCount = workload.w.keyCount;
            for (int i = 0; i < count; i++) {
                into.add(all[next(keyCount)]);
            }
            return into;
        }

        /** @return true on one call in ten, in a fixed pattern: the put share of the 90/10 mix */
        boolean putTurn() {
            if (++step == 10) {
                step = 0;
                return true;
            }
            return false;
        }
    }

    static OHCache<Long, byte[]> filledOhc(Workload w, Eviction eviction) {
        int maxEntry = w.valueBytes + Long.BYTES + Caches.OHC_ENTRY_HEADER + 64;
        OHCache<Long, byte[]> cache = Caches.ohc(Caches.roomForAll(w), eviction, maxEntry);
        w.putEach(cache::put);
        requireAll("OHC " + eviction, cache.size(), w);
        return cache;
    }

    static void requireAll(String variant, long size, Workload w) {
        if (size != w.keyCount) {
            throw new IllegalStateException(variant + " kept " + size + " of the " + w.keyCount
                    + " entries of " + w + ": its capacity must hold them all, the benchmark measures hits");
        }
    }
}
