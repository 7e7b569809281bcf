package dev.offheap.bench.cache;

import dev.offheap.bench.Baseline;
import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JCache puts (overwrites of 100-byte values over {@code keys} uniformly random keys) with and without
 * a synchronous entry listener, one thread: what delivering an event costs a writer, the per-key
 * ordering of events (a ticket per event, taken under the entry's lock, and a wait for its turn)
 * included.
 *
 * <p>Mode: throughput in puts per second. Higher is better.
 * <ul>
 * <li>{@code putNoListener} (baseline): no listener registered; the put skips the event path.
 * <li>{@code putSyncListener}: a synchronous CREATED/UPDATED listener that consumes each event.
 * </ul>
 * No goal is checked: the issue sets none for listeners.
 */
public class JCacheListenerBenchmark extends CacheThroughputBenchmark {

    /** A listener that only consumes what it is given. */
    public static final class Consumer implements CacheEntryCreatedListener<Long, byte[]>,
            CacheEntryUpdatedListener<Long, byte[]> {
        /**
         * Bytes seen, so that the JIT cannot drop the work; a LongAdder, because a field both threads
         * write would make the two-thread case measure that field's cache line.
         */
        public final LongAdder seen = new LongAdder();

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Long, ? extends byte[]>> events) {
            events.forEach(e -> seen.add(e.getValue().length));
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends Long, ? extends byte[]>> events) {
            events.forEach(e -> seen.add(e.getValue().length));
        }
    }

    /** Two JCaches of the off-heap provider, one with a synchronous listener, each filled with every key. */
    @State(Scope.Benchmark)
    public static class Caches {
        /** Distinct keys: few make two threads meet on one key's stripe often. */
        @Param({"10000"})
        public int keys;

        private OffHeapCachingProvider provider;
        Cache<Long, byte[]> plain;
        Cache<Long, byte[]> listened;
        final byte[] value = new byte[100];

        /** Creates and fills both caches. */
        @Setup(Level.Trial)
        public void setUp() {
            provider = new OffHeapCachingProvider();
            plain = provider.getCacheManager().createCache("plain", configuration(false));
            listened = provider.getCacheManager().createCache("listened", configuration(true));
            for (long key = 0; key < keys; key++) {
                plain.put(key, value);
                listened.put(key, value);
            }
        }

        private OffHeapConfiguration<Long, byte[]> configuration(boolean withListener) {
            OffHeapConfiguration<Long, byte[]> configuration = new OffHeapConfiguration<>();
            configuration.setTypes(Long.class, byte[].class);
            configuration.setCapacityBytes(64L << 20);
            if (withListener) {
                configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                        FactoryBuilder.factoryOf(Consumer.class), null, true, true));
            }
            return configuration;
        }

        /** Closes the provider, which frees the caches' memory. */
        @TearDown(Level.Trial)
        public void tearDown() {
            provider.close();
        }
    }

    /** Each thread's own random key stream. */
    @State(Scope.Thread)
    public static class KeyStream {
        private final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());

        long next(int keys) {
            return random.nextInt(keys);
        }
    }

    @Benchmark
    @Baseline
    public void putNoListener(Caches caches, KeyStream stream) {
        caches.plain.put(stream.next(caches.keys), caches.value);
    }

    @Benchmark
    public void putSyncListener(Caches caches, KeyStream stream) {
        caches.listened.put(stream.next(caches.keys), caches.value);
    }
}
