package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * JCache operations racing listener deregistration, close, and read-through loads: a put racing the
 * deregistration or close of an asynchronous listener threw RejectedExecutionException; a read-through
 * load that began before a put and a remove of its key stored its older value again.
 */
class JCacheConcurrencyTest extends ThreadedJCacheTest {
    /** Records (old -> new) for every CREATED/UPDATED event. */
    static final class Recorder implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryUpdatedListener<Integer, String> {
        final List<String[]> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add(new String[] {null, e.getValue()}));
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add(new String[] {e.getOldValue(), e.getValue()}));
        }
    }

    @RepeatedTest(5)
    @Timeout(60)
    void deregisteringAnAsyncListenerDoesNotFailConcurrentPuts() throws Exception {
        Recorder recorder = new Recorder();
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        Cache<Integer, String> cache = manager.createCache("dereg", configuration);
        MutableCacheEntryListenerConfiguration<Integer, String> listener = new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(recorder), null, true, false);
        cache.registerCacheEntryListener(listener);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong puts = new AtomicLong();
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                int i = 0;
                while (!stop.get()) {
                    cache.put(id * 1_000_000 + (i++ % 1000), "v" + i);
                    puts.incrementAndGet();
                }
                return null;
            }));
        }
        // the deregistration comes while the puts are going on, once the listener has had events from them, and
        // the puts go on after it (before, fixed sleeps did not make sure of either)
        while (recorder.seen.isEmpty() && !futures.stream().allMatch(Future::isDone)) {
            Thread.sleep(1);
        }
        int eventsBefore = recorder.seen.size();
        cache.deregisterCacheEntryListener(listener);
        long putsAtDeregistration = puts.get();
        while (puts.get() < putsAtDeregistration + 10_000 && !futures.stream().allMatch(Future::isDone)) {
            Thread.sleep(1);
        }
        stop.set(true);
        for (Future<?> f : futures) {
            f.get(30, TimeUnit.SECONDS); // a put failing with RejectedExecutionException fails here
        }
        assertThat(eventsBefore).as("events the listener had before its deregistration").isPositive();
        assertThat(puts.get() - putsAtDeregistration).as("puts after the deregistration").isGreaterThanOrEqualTo(10_000);
    }

    @RepeatedTest(5)
    @Timeout(60)
    void closingACacheMakesConcurrentOperationsThrowIllegalStateException() throws Exception {
        Recorder recorder = new Recorder();
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(recorder), null, true, false));
        Cache<Integer, String> cache = manager.createCache("closing", configuration);
        List<Throwable> wrong = new CopyOnWriteArrayList<>();
        CountDownLatch running = new CountDownLatch(4);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                running.countDown();
                for (int i = 0; ; i++) {
                    try {
                        int key = id * 1_000_000 + (i % 1000);
                        cache.put(key, "v" + i);
                        cache.get(key);
                        cache.remove(key);
                    } catch (IllegalStateException expected) {
                        return null;
                    } catch (Throwable other) {
                        wrong.add(other);
                        return null;
                    }
                }
            }));
        }
        running.await(10, TimeUnit.SECONDS);
        Thread.sleep(50);
        cache.close();
        for (Future<?> f : futures) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertThat(wrong).as("exceptions other than IllegalStateException").isEmpty();
    }

    static final Map<Integer, String> DB = new ConcurrentHashMap<>();

    /** Loader of the test below: every key's value is its number. */
    public static final class NumberLoader implements CacheLoader<Integer, String>, java.io.Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public String load(Integer key) {
            return "v" + key;
        }

        @Override
        public Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
            Map<Integer, String> all = new java.util.HashMap<>();
            keys.forEach(key -> all.put(key, load(key)));
            return all;
        }
    }

    @org.junit.jupiter.api.Test
    @Timeout(30)
    void aReadThroughGetAllStoresEveryKeyItLoaded() {
        // its own first store of a stripe of keys once counted as a change, and the stripe's other keys,
        // loaded in the same call, were returned but not stored
        OffHeapConfiguration<Integer, String> c = new OffHeapConfiguration<>();
        c.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        c.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(NumberLoader.class));
        Cache<Integer, String> cache = manager.createCache("getAll-stripes", c);
        java.util.Set<Integer> keys = new java.util.HashSet<>();
        for (int k = 0; k < 5_000; k++) {
            keys.add(k);
        }
        assertThat(cache.getAll(keys)).hasSize(5_000);
        long stored = keys.stream().filter(cache::containsKey).count();
        assertThat(stored).as("keys stored by the getAll that loaded them").isEqualTo(5_000);
    }

    @RepeatedTest(2)
    @Timeout(30)
    void aReadThroughLoadDoesNotResurrectAnEntryRemovedDuringTheLoad() throws Exception {
        DB.clear();
        DB.put(1, "old");
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CacheLoader<Integer, String> loader = new CacheLoader<>() {
            @Override
            public String load(Integer key) {
                String value = DB.get(key);
                loading.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return value;
            }

            @Override
            public Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
                throw new UnsupportedOperationException();
            }
        };
        CacheWriter<Integer, String> writer = new CacheWriter<>() {
            @Override
            public void write(Cache.Entry<? extends Integer, ? extends String> entry) {
                DB.put(entry.getKey(), entry.getValue());
            }

            @Override
            public void writeAll(java.util.Collection<Cache.Entry<? extends Integer, ? extends String>> entries) {
                entries.forEach(this::write);
                entries.clear();
            }

            @Override
            public void delete(Object key) {
                DB.remove(key);
            }

            @Override
            public void deleteAll(java.util.Collection<?> keys) {
                keys.forEach(this::delete);
                keys.clear();
            }
        };
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.setReadThrough(true).setWriteThrough(true)
                .setCacheLoaderFactory(new FactoryBuilder.SingletonFactory<>(loader))
                .setCacheWriterFactory(new FactoryBuilder.SingletonFactory<>(writer));
        Cache<Integer, String> cache = manager.createCache("stale", configuration);
        Future<String> reader = pool.submit(() -> cache.get(1));
        assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
        cache.put(1, "new");   // writes "new" through
        cache.remove(1);       // deletes through: the key no longer exists anywhere
        release.countDown();
        reader.get(10, TimeUnit.SECONDS);
        assertThat(DB).doesNotContainKey(1);
        assertThat(cache.containsKey(1)).as("the stale load came back after put+remove").isFalse();
    }
}
