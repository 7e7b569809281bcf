package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.Test;

/**
 * Sweeps racing writers and readers: a sweep never removes a live entry, and every entry that expires is
 * reported exactly once, whether a sweep or an operation finds it.
 */
class ExpiryCleanUpStressTest {
    private static final ConcurrentHashMap<Integer, AtomicInteger> CREATED = new ConcurrentHashMap<>();
    private static final ConcurrentHashMap<Integer, AtomicInteger> EXPIRED = new ConcurrentHashMap<>();

    /** Counts CREATED and EXPIRED events per key. */
    public static final class Counter implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryExpiredListener<Integer, String>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> CREATED.computeIfAbsent(e.getKey(), k -> new AtomicInteger()).incrementAndGet());
        }

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> EXPIRED.computeIfAbsent(e.getKey(), k -> new AtomicInteger()).incrementAndGet());
        }
    }

    @Test
    void sweepsNeverRemoveLiveEntriesAndReportEachExpiryOnce() throws Exception {
        CREATED.clear();
        EXPIRED.clear();
        try (OffHeapCachingProvider provider = new OffHeapCachingProvider()) {
            OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
            configuration.setTypes(Integer.class, String.class);
            configuration.setCapacityBytes(16L << 20); // room for every key: no evictions
            configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(PerThreadCreationExpiry.class));
            configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(Counter.class), null, false, true));
            Cache<Integer, String> cache = provider.getCacheManager().createCache("stress", configuration);
            ExpiryCleanUp cleanUp = cache.unwrap(ExpiryCleanUp.class);
            int keys = 2_000;
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder sweptTotal = new LongAdder();
            ExecutorService threads = Executors.newFixedThreadPool(4);
            List<Future<?>> work = new ArrayList<>();
            // even keys live forever, odd keys for 1 ms; every writer writes both kinds through its own policy
            work.add(threads.submit(() -> {
                PerThreadCreationExpiry.set(Duration.ETERNAL);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int key = random.nextInt(keys / 2) * 2;
                    cache.put(key, "eternal " + key);
                }
            }));
            work.add(threads.submit(() -> {
                PerThreadCreationExpiry.set(new Duration(TimeUnit.MILLISECONDS, 1));
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int key = random.nextInt(keys / 2) * 2 + 1;
                    if (random.nextBoolean()) {
                        cache.put(key, "short " + key);
                    } else {
                        cache.get(key);
                    }
                }
            }));
            work.add(threads.submit(() -> {
                while (!stop.get()) {
                    sweptTotal.add(cleanUp.cleanUp());
                }
            }));
            work.add(threads.submit(() -> {
                while (!stop.get()) {
                    sweptTotal.add(cleanUp.cleanUp());
                }
            }));
            Thread.sleep(1_500);
            stop.set(true);
            for (Future<?> f : work) {
                f.get(30, TimeUnit.SECONDS);
            }
            threads.shutdown();
            Thread.sleep(3); // the last short-lived entries expire
            sweptTotal.add(cleanUp.cleanUp());

            assertThat(sweptTotal.sum()).as("the sweeps found expired entries").isPositive();
            for (int key = 0; key < keys; key++) {
                int created = CREATED.getOrDefault(key, new AtomicInteger()).get();
                int expired = EXPIRED.getOrDefault(key, new AtomicInteger()).get();
                if (key % 2 == 0) {
                    assertThat(expired).as("eternal key %d expired", key).isZero();
                    assertThat(created).as("eternal key %d created once", key).isLessThanOrEqualTo(1);
                    assertThat(cache.containsKey(key)).isEqualTo(created == 1);
                } else {
                    assertThat(expired).as("key %d: one EXPIRED per creation", key).isEqualTo(created);
                    assertThat(cache.containsKey(key)).isFalse();
                }
            }
            assertThat(cache.unwrap(dev.offheap.cache.OffHeapCache.class).size())
                    .isEqualTo(CREATED.keySet().stream().filter(k -> k % 2 == 0).count());
        }
    }
}
