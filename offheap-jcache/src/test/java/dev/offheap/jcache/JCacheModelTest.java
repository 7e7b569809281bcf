package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serializable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.processor.EntryProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random sequences of JCache operations against a {@link HashMap} model: every result, the final contents
 * and the number of created, updated and removed events must match what the model says.
 */
class JCacheModelTest {
    private OffHeapCachingProvider provider;
    private CacheManager manager;

    /** Counts events by type; static because the listener factory makes the instance. */
    public static final class EventCounter implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryUpdatedListener<Integer, String>, CacheEntryRemovedListener<Integer, String>, Serializable {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger CREATED = new AtomicInteger();
        static final AtomicInteger UPDATED = new AtomicInteger();
        static final AtomicInteger REMOVED = new AtomicInteger();

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(event -> CREATED.incrementAndGet());
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(event -> UPDATED.incrementAndGet());
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(event -> REMOVED.incrementAndGet());
        }
    }

    /** Appends its argument to the value, creating it if absent; returns the old value. */
    static final class Append implements EntryProcessor<Integer, String, String> {
        @Override
        public String process(javax.cache.processor.MutableEntry<Integer, String> entry, Object... arguments) {
            String old = entry.exists() ? entry.getValue() : null;
            entry.setValue((old == null ? "" : old) + arguments[0]);
            return old;
        }
    }

    @BeforeEach
    void open() {
        provider = new OffHeapCachingProvider();
        manager = provider.getCacheManager();
        EventCounter.CREATED.set(0);
        EventCounter.UPDATED.set(0);
        EventCounter.REMOVED.set(0);
    }

    @AfterEach
    void close() {
        provider.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 2024, 987_654_321})
    void randomOperationsMatchTheModel(long seed) {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(EventCounter.class), null, false, true));
        Cache<Integer, String> cache = manager.createCache("model-" + seed, configuration);
        Map<Integer, String> model = new HashMap<>();
        int created = 0;
        int updated = 0;
        int removed = 0;
        Random random = new Random(seed);
        for (int step = 0; step < 5_000; step++) {
            int key = random.nextInt(64);
            String value = "v" + random.nextInt(8);
            String old = model.get(key);
            switch (random.nextInt(11)) {
                case 0 -> {
                    cache.put(key, value);
                    model.put(key, value);
                    if (old == null) {
                        created++;
                    } else {
                        updated++;
                    }
                }
                case 1 -> assertThat(cache.get(key)).as("get %s at step %s", key, step).isEqualTo(old);
                case 2 -> {
                    assertThat(cache.remove(key)).isEqualTo(old != null);
                    if (model.remove(key) != null) {
                        removed++;
                    }
                }
                case 3 -> {
                    boolean stored = cache.putIfAbsent(key, value);
                    assertThat(stored).isEqualTo(old == null);
                    if (stored) {
                        model.put(key, value);
                        created++;
                    }
                }
                case 4 -> {
                    assertThat(cache.getAndPut(key, value)).isEqualTo(old);
                    model.put(key, value);
                    if (old == null) {
                        created++;
                    } else {
                        updated++;
                    }
                }
                case 5 -> {
                    boolean matches = old != null && old.equals(value);
                    assertThat(cache.remove(key, value)).isEqualTo(matches);
                    if (matches) {
                        model.remove(key);
                        removed++;
                    }
                }
                case 6 -> {
                    String expected = "v" + random.nextInt(8);
                    boolean matches = old != null && old.equals(expected);
                    assertThat(cache.replace(key, expected, value)).isEqualTo(matches);
                    if (matches) {
                        model.put(key, value);
                        updated++;
                    }
                }
                case 7 -> {
                    assertThat(cache.getAndReplace(key, value)).isEqualTo(old);
                    if (old != null) {
                        model.put(key, value);
                        updated++;
                    }
                }
                case 8 -> {
                    assertThat(cache.getAndRemove(key)).isEqualTo(old);
                    if (model.remove(key) != null) {
                        removed++;
                    }
                }
                case 9 -> {
                    assertThat(cache.invoke(key, new Append(), "x")).isEqualTo(old);
                    model.put(key, (old == null ? "" : old) + "x");
                    if (old == null) {
                        created++;
                    } else {
                        updated++;
                    }
                }
                default -> assertThat(cache.containsKey(key)).isEqualTo(old != null);
            }
        }
        Map<Integer, String> contents = new HashMap<>();
        Set<Integer> seen = new HashSet<>();
        for (Cache.Entry<Integer, String> entry : cache) {
            assertThat(seen.add(entry.getKey())).as("iterator saw key %s twice", entry.getKey()).isTrue();
            contents.put(entry.getKey(), entry.getValue());
        }
        assertThat(contents).isEqualTo(model);
        assertThat(EventCounter.CREATED.get()).isEqualTo(created);
        assertThat(EventCounter.UPDATED.get()).isEqualTo(updated);
        assertThat(EventCounter.REMOVED.get()).isEqualTo(removed);
    }

    @ParameterizedTest
    @ValueSource(longs = {3, 11})
    void concurrentWritersCreateEachKeyExactlyOnce(long seed) throws Exception {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(EventCounter.class), null, false, true));
        Cache<Integer, String> cache = manager.createCache("concurrent-" + seed, configuration);
        int threads = 4;
        int perThread = 3_000;
        int keys = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> absentSeen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Random random = new Random(seed * 31 + t);
            absentSeen.add(pool.submit(() -> {
                start.await();
                int absent = 0;
                for (int i = 0; i < perThread; i++) {
                    if (cache.getAndPut(random.nextInt(keys), "t" + i) == null) {
                        absent++;
                    }
                }
                return absent;
            }));
        }
        start.countDown();
        int absentTotal = 0;
        for (Future<Integer> future : absentSeen) {
            absentTotal += future.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        int present = 0;
        for (int key = 0; key < keys; key++) {
            if (cache.containsKey(key)) {
                present++;
            }
        }
        // Each key that is present was created exactly once, by the one getAndPut that found it absent.
        assertThat(absentTotal).isEqualTo(present);
        assertThat(EventCounter.CREATED.get()).isEqualTo(present);
        assertThat(EventCounter.UPDATED.get()).isEqualTo(threads * perThread - present);
    }
}
