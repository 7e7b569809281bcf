package dev.offheap.bench.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.offheap.bench.Baseline;
import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import dev.offheap.jcache.ExpiryCleanUp;
import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Warmup;

import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.EternalExpiryPolicy;

/**
 * Removing the expired entries of a cache that expires after write and holds the whole workload,
 * every entry expired ({@code expired=all}: the clean-up removes them all) or none ({@code expired=none}:
 * it removes nothing), with no other traffic. The caches run on a clock the benchmark moves, filled
 * afresh before each measurement.
 *
 * <p>Mode: {@link Mode#SingleShotTime}, milliseconds per clean-up; lower is better.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code caffeine} (baseline): Caffeine 3 with {@code expireAfterWrite} and its maintenance on the
 *     calling thread. It keeps its entries in write order, so it finds the expired ones without looking
 *     at the rest: with none expired its clean-up looks at one entry. One {@code cleanUp()} of Caffeine
 *     3.3.1 removed a thousand expired entries here, so this variant calls it until no expired entry is
 *     left (a thousand calls for a million entries), as a cache that is not written to would need.
 * <li>{@code offheap}: one {@code OffHeapCache.cleanUp()}, which looks at every entry of a segment
 *     (bucket by bucket, 1,024 buckets per hold of the segment's lock) once the earliest deadline the
 *     segment knows of has come, and skips the segment before that.
 * <li>{@code jcache}: one {@code ExpiryCleanUp.cleanUp()} of a JCache of this project's provider, whose
 *     entries live 1 ms ({@code expired=all}) or forever ({@code none}) on the wall clock. JCache keeps
 *     each entry's expiry time inside its value, so once the earliest expiry time the cache knows of has
 *     come, the sweep reads it, in place, for every key of every segment, and removes an expired entry
 *     through the same atomic step (with its EXPIRED event) as an operation that finds it. Before that
 *     time (here: {@code none}, whose entries never expire) it returns at once.
 * </ul>
 * No goal is checked; the ratios say what a clean-up costs against Caffeine's, and the {@code none}
 * row what a clean-up costs when no entry is due: every variant then returns without looking at the
 * entries (offheap skips each segment, jcache returns at once, Caffeine looks at one entry), so that
 * row does not measure a pass over every entry.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX})
public class CacheCleanUpBenchmark {

    /** How long entries live; the clock moves past it before a clean-up of {@code expired=all}. */
    static final Duration EXPIRY = Duration.ofMinutes(1);

    /** The workload and whether its entries have expired by the clean-up. */
    @State(Scope.Benchmark)
    public static class Params {
        /** {@code <keys>x<valueBytes>}, as in the other cache benchmarks. */
        @Param({"1000000x100"})
        public String workload;

        /** {@code all} or {@code none}. */
        @Param({"all", "none"})
        public String expired;

        Workload w;

        /** Parses the workload. */
        @Setup(Level.Trial)
        public void setUp() {
            w = Workload.parse(workload);
            if (!expired.equals("all") && !expired.equals("none")) {
                throw new IllegalArgumentException("expired must be all or none, got '" + expired + "'");
            }
        }

        long advanceNanos() {
            return expired.equals("all") ? EXPIRY.toNanos() + 1 : 0;
        }
    }

    /** An off-heap cache filled with the workload before each clean-up. */
    @State(Scope.Thread)
    public static class OffHeap {
        final AtomicLong nanos = new AtomicLong(1);
        OffHeapCache<Long, byte[]> cache;

        /** @param p the workload */
        @Setup(Level.Invocation)
        public void fill(Params p) {
            Workload w = p.w;
            cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                    .capacity(Caches.roomForAll(w)).expireAfterWrite(EXPIRY).clock(nanos::get)
                    .recordStats(false).name("bench-clean-up").build();
            w.putEach(cache::put);
            nanos.addAndGet(p.advanceNanos());
        }

        /** Frees the cache. */
        @TearDown(Level.Invocation)
        public void close() {
            cache.close();
        }
    }

    /** A Caffeine filled with the workload before each clean-up. */
    @State(Scope.Thread)
    public static class OnHeap {
        final AtomicLong nanos = new AtomicLong(1);
        Cache<Long, byte[]> cache;

        /** @param p the workload */
        @Setup(Level.Invocation)
        public void fill(Params p) {
            Workload w = p.w;
            cache = Caffeine.newBuilder().expireAfterWrite(EXPIRY).ticker(nanos::get).executor(Runnable::run).build();
            w.putEach(cache::put);
            cache.cleanUp(); // the writes' own maintenance, before the clock moves
            nanos.addAndGet(p.advanceNanos());
        }

        /** Drops the cache. */
        @TearDown(Level.Invocation)
        public void close() {
            cache.invalidateAll();
            cache = null;
        }
    }

    /** A JCache of this project's provider filled with the workload before each sweep. */
    @State(Scope.Thread)
    public static class JCache {
        private OffHeapCachingProvider provider;
        ExpiryCleanUp cleanUp;

        /**
         * @param p the workload
         * @throws InterruptedException if interrupted while the last entries expire
         */
        @Setup(Level.Invocation)
        public void fill(Params p) throws InterruptedException {
            Workload w = p.w;
            provider = new OffHeapCachingProvider();
            OffHeapConfiguration<Long, byte[]> configuration = new OffHeapConfiguration<>();
            configuration.setTypes(Long.class, byte[].class);
            // each JCache entry carries its expiry time, 8 bytes more than the off-heap cache's
            configuration.setCapacityBytes(Caches.roomForAll(w) + (long) w.keyCount * Long.BYTES);
            configuration.setExpiryPolicyFactory(p.expired.equals("all")
                    ? CreatedExpiryPolicy.factoryOf(new javax.cache.expiry.Duration(TimeUnit.MILLISECONDS, 1))
                    : EternalExpiryPolicy.factoryOf());
            javax.cache.Cache<Long, byte[]> cache = provider.getCacheManager().createCache("bench-clean-up", configuration);
            w.putEach(cache::put);
            long size = cache.unwrap(OffHeapCache.class).size();
            if (size != w.keyCount) {
                throw new IllegalStateException("the JCache kept " + size + " of " + w.keyCount + " entries");
            }
            Thread.sleep(2); // the last entries put expire too
            cleanUp = cache.unwrap(ExpiryCleanUp.class);
        }

        /** Frees the cache. */
        @TearDown(Level.Invocation)
        public void close() {
            provider.close();
        }
    }

    @Benchmark
    @Baseline
    public long caffeine(OnHeap onHeap, Params p) {
        long left = p.expired.equals("all") ? 0 : p.w.keyCount;
        do {
            onHeap.cache.cleanUp();
        } while (onHeap.cache.estimatedSize() > left);
        return onHeap.cache.estimatedSize();
    }

    @Benchmark
    public long offheap(OffHeap offHeap) {
        offHeap.cache.cleanUp();
        return offHeap.cache.size();
    }

    @Benchmark
    public long jcache(JCache jcache) {
        return jcache.cleanUp.cleanUp();
    }
}
