package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CompletionListener;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * JCache semantics at their edges: statistics switched on while an operation runs, array keys and a
 * read-through load, an access racing a put, loadAll listeners, destroy and close from odd places, and
 * an entry processor that changes the value it read in place.
 */
class JCacheSemanticsEdgeTest extends JCacheTestBase {
    // ---------------------------------------------------------------------------------------------------
    // 1. Statistics switched on while an operation runs

    /** Blocks its first write until released. */
    public static final class BlockingWriter extends WriteOnlyWriter {
        @Serial
        private static final long serialVersionUID = 1L;
        static final CountDownLatch ENTERED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {
            ENTERED.countDown();
            try {
                RELEASE.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void enablingStatisticsWhileAPutRunsKeepsTheAveragePutTimeSane() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(BlockingWriter.class));
        Cache<String, String> cache = manager.createCache("timed", configuration);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<?> put = pool.submit(() -> cache.put("k", "v"));
        BlockingWriter.ENTERED.await(10, TimeUnit.SECONDS);
        manager.enableStatistics("timed", true);
        BlockingWriter.RELEASE.countDown();
        put.get(10, TimeUnit.SECONDS);
        pool.shutdown();
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI() + ",Cache=timed");
        var server = ManagementFactory.getPlatformMBeanServer();
        assertThat(server.getAttribute(statistics, "CachePuts")).isEqualTo(1L);
        // before: System.nanoTime() - 0, about 6e10 microseconds (days) for one put
        assertThat((Float) server.getAttribute(statistics, "AveragePutTime")).isLessThan(10_000_000f);
    }

    // ---------------------------------------------------------------------------------------------------
    // 2. Read-through with array keys: a remove during the load is lost

    /** Blocks its first load until released, then returns "stale". */
    public static final class BlockingLoader implements CacheLoader<Object, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static final CountDownLatch ENTERED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        @Override
        public String load(Object key) {
            ENTERED.countDown();
            try {
                RELEASE.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "stale";
        }

        @Override
        public Map<Object, String> loadAll(Iterable<?> keys) {
            return Map.of();
        }
    }

    @Test
    void aReadThroughLoadOfAnArrayKeyDoesNotStoreOverARemoveMadeWhileItLoaded() throws Exception {
        OffHeapConfiguration<Object, String> configuration = small(Object.class, String.class);
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(BlockingLoader.class));
        Cache<Object, String> cache = manager.createCache("arrays", configuration);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<String> get = pool.submit(() -> cache.get(new int[] {7}));
        BlockingLoader.ENTERED.await(10, TimeUnit.SECONDS);
        // an equal key (same serialized bytes), another array instance
        cache.put(new int[] {7}, "new");
        cache.remove(new int[] {7});
        BlockingLoader.RELEASE.countDown();
        assertThat(get.get(10, TimeUnit.SECONDS)).isEqualTo("stale");
        pool.shutdown();
        // docs/jcache.md: the load stores "unless another thread wrote, removed or cleared the key meanwhile"
        assertThat(cache.containsKey(new int[] {7})).isFalse();
    }

    // ---------------------------------------------------------------------------------------------------
    // 3. An access's expiry written over a later put's

    /** Creation and update: 200 ms; access: eternal, the first call blocking until released. */
    public static final class BlockingAccessPolicy implements ExpiryPolicy, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static final CountDownLatch ENTERED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);
        static final AtomicBoolean FIRST = new AtomicBoolean(true);

        @Override
        public Duration getExpiryForCreation() {
            return new Duration(TimeUnit.MILLISECONDS, 200);
        }

        @Override
        public Duration getExpiryForUpdate() {
            return new Duration(TimeUnit.MILLISECONDS, 200);
        }

        @Override
        public Duration getExpiryForAccess() {
            if (FIRST.compareAndSet(true, false)) {
                ENTERED.countDown();
                try {
                    RELEASE.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Duration.ETERNAL;
        }
    }

    @Test
    void aGetsAccessExpiryDoesNotOverrideThatOfAPutMadeAfterItRead() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(BlockingAccessPolicy.class));
        Cache<String, String> cache = manager.createCache("accessed", configuration);
        cache.put("k", "v1");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<String> get = pool.submit(() -> cache.get("k"));
        BlockingAccessPolicy.ENTERED.await(10, TimeUnit.SECONDS);
        cache.put("k", "v2"); // an update after the get read v1: v2 expires in 200 ms
        BlockingAccessPolicy.RELEASE.countDown();
        assertThat(get.get(10, TimeUnit.SECONDS)).isEqualTo("v1");
        pool.shutdown();
        Thread.sleep(400);
        assertThat(cache.get("k")).isNull(); // before: v2, made eternal by the access to v1
    }

    // ---------------------------------------------------------------------------------------------------
    // 4. loadAll's CompletionListener told twice

    /** Loads "L" + key. */
    public static final class PrefixLoader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            return "L" + key;
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            Map<String, String> loaded = new java.util.HashMap<>();
            keys.forEach(key -> loaded.put(key, "L" + key));
            return loaded;
        }
    }

    @Test
    void aCompletionListenerWhoseOnCompletionThrowsIsNotAlsoToldOfAnException() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(PrefixLoader.class));
        Cache<String, String> cache = manager.createCache("completion", configuration);
        AtomicInteger completions = new AtomicInteger();
        AtomicInteger exceptions = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        cache.loadAll(Set.of("a"), false, new CompletionListener() {
            @Override
            public void onCompletion() {
                completions.incrementAndGet();
                done.countDown();
                throw new IllegalStateException("a bug in the listener");
            }

            @Override
            public void onException(Exception e) {
                exceptions.incrementAndGet();
            }
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(200);
        assertThat(cache.get("a")).isEqualTo("La");
        assertThat(completions.get()).isEqualTo(1);
        assertThat(exceptions.get()).isZero(); // before: 1, after onCompletion had been called
    }

    // ---------------------------------------------------------------------------------------------------
    // 5. Closing a cache from its loadAll's CompletionListener

    @Test
    void closingTheCacheFromALoadAllCompletionListenerDoesNotWaitForItself() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(PrefixLoader.class));
        Cache<String, String> cache = manager.createCache("self-closing", configuration);
        CountDownLatch closed = new CountDownLatch(1);
        long start = System.nanoTime();
        cache.loadAll(Set.of("a"), false, new CompletionListener() {
            @Override
            public void onCompletion() {
                cache.close();
                closed.countDown();
            }

            @Override
            public void onException(Exception e) {
                closed.countDown();
            }
        });
        assertThat(closed.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(cache.isClosed()).isTrue();
        // before: 10 s, close() waiting for the load thread it ran on
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
    }

    // ---------------------------------------------------------------------------------------------------
    // 6. destroyCache from two threads

    @Test
    void destroyingACacheFromTwoThreadsAtOnceDoesNotThrow() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 200; round++) {
                Cache<String, String> cache = manager.createCache("destroyed", small(String.class, String.class));
                cache.put("k", "v");
                CyclicBarrier barrier = new CyclicBarrier(2);
                List<Future<?>> destroys = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    destroys.add(pool.submit(() -> {
                        barrier.await();
                        manager.destroyCache("destroyed"); // before: now and then IllegalStateException
                        return null;
                    }));
                }
                for (Future<?> destroy : destroys) {
                    destroy.get(10, TimeUnit.SECONDS);
                }
                assertThat(cache.isClosed()).isTrue();
                assertThat(manager.getCache("destroyed")).isNull();
            }
        } finally {
            pool.shutdown();
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // 7. An entry processor changing the value it read in place

    /** Records the old values of UPDATED and REMOVED events. */
    public static final class OldValueRecorder implements CacheEntryUpdatedListener<Object, Object>,
            CacheEntryRemovedListener<Object, Object>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static final List<String> SEEN = new CopyOnWriteArrayList<>();

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<?, ?>> events) {
            events.forEach(event -> SEEN.add("updated " + event.getOldValue() + " -> " + event.getValue()));
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<?, ?>> events) {
            events.forEach(event -> SEEN.add("removed " + event.getOldValue()));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void anEntryProcessorChangingTheValueItReadInPlaceDoesNotChangeTheEventsOldValue() {
        OffHeapConfiguration<Object, Object> configuration = small(Object.class, Object.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(OldValueRecorder.class), null, true, true));
        Cache<Object, Object> cache = manager.createCache("in-place", configuration);
        cache.put("k", new ArrayList<>(List.of("a")));
        cache.invoke("k", (entry, arguments) -> {
            List<String> list = (List<String>) entry.getValue();
            list.add("b");
            entry.setValue(list);
            return null;
        });
        cache.invoke("k", (entry, arguments) -> {
            ((List<String>) entry.getValue()).add("c");
            entry.remove();
            return null;
        });
        // before: "updated [a, b] -> [a, b]", "removed [a, b, c]"
        assertThat(OldValueRecorder.SEEN).containsExactly("updated [a] -> [a, b]", "removed [a, b]");
    }
}
