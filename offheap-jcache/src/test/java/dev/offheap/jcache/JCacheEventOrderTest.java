package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The events of one key reach a listener in the order of the key's changes, whichever threads make them
 * (events are made under the entry's lock but delivered after it; before, four threads putting one key
 * produced dozens of UPDATED events whose old value was not the previous event's new value).
 */
class JCacheEventOrderTest extends ThreadedJCacheTest {
    /** Records every CREATED, UPDATED and REMOVED event as {type, key, old value, new value}. */
    static final class Recorder implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryUpdatedListener<Integer, String>, CacheEntryRemovedListener<Integer, String> {
        final List<Object[]> seen = Collections.synchronizedList(new ArrayList<>());

        boolean saw(String value) {
            synchronized (seen) {
                return seen.stream().anyMatch(e -> value.equals(e[3]));
            }
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add(new Object[] {"CREATED", e.getKey(), null, e.getValue()}));
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add(new Object[] {"UPDATED", e.getKey(), e.getOldValue(), e.getValue()}));
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add(new Object[] {"REMOVED", e.getKey(), e.getOldValue(), null}));
        }
    }

    private Cache<Integer, String> cacheWith(String name, Recorder recorder, boolean synchronous) {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(recorder), null, true, synchronous));
        return manager.createCache(name, configuration);
    }

    /**
     * Per key, every event's old value is the value the previous event left (null after a removal or at
     * the start), and the last event leaves the value the cache holds.
     */
    private static void assertChained(List<Object[]> events, Cache<Integer, String> cache, int keys) {
        Map<Integer, String> current = new HashMap<>();
        int position = 0;
        for (Object[] event : events) {
            Integer key = (Integer) event[1];
            String before = current.get(key);
            String type = (String) event[0];
            String label = "event " + position + " " + type + " of key " + key + " (old " + event[2] + ", new " + event[3] + ")";
            switch (type) {
                case "CREATED" -> assertThat(before).as(label + ": the key was absent").isNull();
                case "UPDATED", "REMOVED" -> assertThat(event[2]).as(label + ": its old value is the previous event's value")
                        .isEqualTo(before);
                default -> throw new AssertionError(type);
            }
            current.put(key, (String) event[3]);
            position++;
        }
        for (int key = 0; key < keys; key++) {
            assertThat(cache.get(key)).as("key " + key + " after the last event").isEqualTo(current.get(key));
        }
    }

    @ParameterizedTest(name = "synchronous listener: {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(120)
    void fourThreadsChangingFewKeysDeliverEachKeysEventsInOrder(boolean synchronous) throws Exception {
        Recorder recorder = new Recorder();
        Cache<Integer, String> cache = cacheWith("order-" + synchronous, recorder, synchronous);
        int keys = 3;
        int rounds = 5_000;
        together(4, 100, thread -> {
            for (int i = 0; i < rounds; i++) {
                int key = i % keys;
                String value = thread + ":" + i;
                switch (i % 7) {
                    case 3 -> cache.remove(key);
                    case 5 -> cache.putIfAbsent(key, value);
                    case 6 -> cache.replace(key, value);
                    default -> cache.put(key, value);
                }
            }
        });
        if (!synchronous) {
            // The listener's one thread delivers in the order events were queued: once it saw a last
            // put of another key, it saw everything before.
            cache.put(keys, "sentinel");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!recorder.saw("sentinel") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        List<Object[]> events;
        synchronized (recorder.seen) {
            events = new ArrayList<>(recorder.seen);
        }
        events.removeIf(e -> (Integer) e[1] == keys);
        assertThat(events).hasSizeGreaterThan(rounds);
        assertChained(events, cache, keys);
    }

    /** A synchronous listener that puts into its own cache: its events are delivered at once, no deadlock. */
    static final class Echo implements CacheEntryCreatedListener<Integer, String> {
        volatile Cache<Integer, String> cache;
        final List<Integer> created = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            for (CacheEntryEvent<? extends Integer, ? extends String> event : events) {
                created.add(event.getKey());
                if (event.getKey() < 1_000) {
                    cache.put(event.getKey() + 1_000, "echo"); // another key, maybe of the same stripe
                    cache.put(event.getKey(), "again");        // the same key: an UPDATED nobody listens to
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void aSynchronousListenerWritingItsOwnCacheDoesNotWaitForItself() throws Exception {
        Echo echo = new Echo();
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(echo), null, false, true));
        Cache<Integer, String> cache = manager.createCache("echo", configuration);
        echo.cache = cache;
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                for (int key = thread; key < 1_000; key += 2) {
                    long started = System.nanoTime();
                    cache.put(key, "first");
                    assertThat(System.nanoTime() - started).as("put of key " + key + " waited for its turn")
                            .isLessThan(TimeUnit.SECONDS.toNanos(1));
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get(50, TimeUnit.SECONDS);
        }
        assertThat(echo.created).hasSize(2_000);
        assertThat(cache.get(7)).isEqualTo("again");
        assertThat(cache.get(1_007)).isEqualTo("echo");
    }

    @Test
    @Timeout(60)
    void aPutThatFailsInTheStoreGivesUpItsTurn() throws Exception {
        List<Object> seen = Collections.synchronizedList(new ArrayList<>());
        CacheEntryCreatedListener<Integer, Object> listener = events -> events.forEach(e -> seen.add(e.getValue()));
        OffHeapConfiguration<Integer, Object> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, Object.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(listener), null, false, true));
        Cache<Integer, Object> cache = manager.createCache("unwritable", configuration);

        assertThatThrownBy(() -> cache.put(1, new FailingSerializables.Unwritable())).isInstanceOf(RuntimeException.class);
        assertThat(seen).as("the failed put's event is not delivered").isEmpty();
        // The same key from another thread: its event must not wait for the failed put's turn.
        Future<Long> took = pool.submit(() -> {
            long started = System.nanoTime();
            cache.put(1, "after");
            return System.nanoTime() - started;
        });
        assertThat(took.get(30, TimeUnit.SECONDS)).isLessThan(TimeUnit.SECONDS.toNanos(1));
        assertThat(seen).containsExactly("after");
    }

    @Test
    @Timeout(60)
    void aReadThroughLoadThatFailsAfterDroppingAnExpiredEntryDeliversItsEvent() throws Exception {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        ExpiryRecorder listener = new ExpiryRecorder(seen);
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 20)));
        configuration.setReadThrough(true);
        configuration.setCacheLoaderFactory(new FactoryBuilder.SingletonFactory<>(new CacheLoader<Integer, String>() {
            @Override
            public String load(Integer key) {
                throw new IllegalStateException("the source is down");
            }

            @Override
            public Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
                throw new IllegalStateException("the source is down");
            }
        }));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(listener), null, false, true));
        Cache<Integer, String> cache = manager.createCache("failing-loads", configuration);

        for (boolean bulk : new boolean[] {false, true}) {
            seen.clear();
            int key = bulk ? 2 : 1;
            cache.put(key, "short-lived");
            Thread.sleep(60);
            if (bulk) {
                assertThatThrownBy(() -> cache.getAll(java.util.Set.of(key))).isInstanceOf(CacheLoaderException.class);
            } else {
                assertThatThrownBy(() -> cache.get(key)).isInstanceOf(CacheLoaderException.class);
            }
            assertThat(seen).as("the expired entry the read dropped").containsExactly("CREATED short-lived", "EXPIRED key " + key);
            Future<Long> took = pool.submit(() -> {
                long started = System.nanoTime();
                cache.put(key, "after");
                return System.nanoTime() - started;
            });
            assertThat(took.get(30, TimeUnit.SECONDS)).as("the next put of the key waited").isLessThan(TimeUnit.SECONDS.toNanos(1));
            assertThat(seen).endsWith("CREATED after");
        }
    }

    /** Records CREATED events as "CREATED value" and EXPIRED ones as "EXPIRED key k". */
    static final class ExpiryRecorder implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryExpiredListener<Integer, String> {
        private final List<String> seen;

        ExpiryRecorder(List<String> seen) {
            this.seen = seen;
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add("CREATED " + e.getValue()));
        }

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> seen.add("EXPIRED key " + e.getKey()));
        }
    }
}
