package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.OffHeapCache;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.expiry.Duration;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link ExpiryCleanUp}: expired entries swept out on demand and in the background, with their events. */
class ExpiryCleanUpTest {
    /** What {@link RecordingListener}s saw (listener factories make new instances). */
    private static final List<String> EXPIRED = new CopyOnWriteArrayList<>();
    private static volatile boolean listenerThrows;

    private OffHeapCachingProvider provider;
    private CacheManager manager;

    @BeforeEach
    void open() {
        provider = new OffHeapCachingProvider();
        manager = provider.getCacheManager();
        EXPIRED.clear();
        listenerThrows = false;
        PerThreadCreationExpiry.set(Duration.ETERNAL);
    }

    @AfterEach
    void close() {
        provider.close();
    }

    /** Records "key=oldValue" of each EXPIRED event; throws after recording if {@link #listenerThrows}. */
    public static final class RecordingListener implements CacheEntryExpiredListener<Integer, String>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            for (CacheEntryEvent<? extends Integer, ? extends String> event : events) {
                EXPIRED.add(event.getKey() + "=" + event.getOldValue());
                if (listenerThrows) {
                    throw new IllegalStateException("listener failure on " + event.getKey());
                }
            }
        }
    }

    private OffHeapConfiguration<Integer, String> configuration() {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setTypes(Integer.class, String.class);
        configuration.setCapacityBytes(4L << 20);
        configuration.setStatisticsEnabled(true);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(PerThreadCreationExpiry.class));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(RecordingListener.class), null, true, true));
        return configuration;
    }

    /** Puts keys [from, to) that expire 1 ms after creation, and waits until they have. */
    private static void putShortLived(Cache<Integer, String> cache, int from, int to) throws InterruptedException {
        PerThreadCreationExpiry.set(new Duration(java.util.concurrent.TimeUnit.MILLISECONDS, 1));
        for (int i = from; i < to; i++) {
            cache.put(i, "v" + i);
        }
        PerThreadCreationExpiry.set(Duration.ETERNAL);
        long putAt = System.currentTimeMillis();
        while (System.currentTimeMillis() <= putAt + 1) {
            Thread.sleep(1);
        }
    }

    @SuppressWarnings("unchecked")
    private static OffHeapCache<Integer, ?> store(Cache<Integer, String> cache) {
        return cache.unwrap(OffHeapCache.class);
    }

    @Test
    void cleanUpRemovesExactlyTheExpiredEntriesWithTheirEvents() throws Exception {
        Cache<Integer, String> cache = manager.createCache("sweep", configuration());
        putShortLived(cache, 0, 100);
        for (int i = 100; i < 200; i++) {
            cache.put(i, "v" + i);
        }
        assertThat(store(cache).size()).as("expired entries hold their memory until touched").isEqualTo(200);
        assertThat(EXPIRED).isEmpty();

        long removed = cache.unwrap(ExpiryCleanUp.class).cleanUp();

        assertThat(removed).isEqualTo(100);
        assertThat(store(cache).size()).isEqualTo(100);
        assertThat(EXPIRED).hasSize(100).contains("0=v0", "99=v99").noneMatch(e -> e.startsWith("100="));
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replace(':', '.') + ",Cache=sweep");
        assertThat(server.getAttribute(statistics, "CacheHits")).as("the sweep reads nothing as a hit").isEqualTo(0L);
        assertThat(server.getAttribute(statistics, "CacheMisses")).isEqualTo(0L);
        assertThat(server.getAttribute(statistics, "CacheRemovals")).as("nor removes as JCache removals").isEqualTo(0L);
        for (int i = 100; i < 200; i++) {
            assertThat(cache.get(i)).isEqualTo("v" + i);
        }
        assertThat(cache.unwrap(ExpiryCleanUp.class).cleanUp()).as("nothing left to remove").isZero();
        assertThat(EXPIRED).hasSize(100);
    }

    @Test
    void aBackgroundSweepRemovesExpiredEntriesNobodyTouches() throws InterruptedException {
        OffHeapConfiguration<Integer, String> configuration = configuration();
        configuration.setCleanUpInterval(java.time.Duration.ofMillis(20));
        Cache<Integer, String> cache = manager.createCache("background", configuration);
        putShortLived(cache, 0, 50);
        cache.put(50, "stays");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (store(cache).size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(store(cache).size()).isEqualTo(1);
        assertThat(EXPIRED).hasSize(50);
        assertThat(cache.get(50)).isEqualTo("stays");
        cache.close();
        assertThat(cache.isClosed()).isTrue();
    }

    @Test
    void aFailingListenerDoesNotStopTheSweep() throws InterruptedException {
        Cache<Integer, String> cache = manager.createCache("failing", configuration());
        putShortLived(cache, 0, 10);
        listenerThrows = true;
        ExpiryCleanUp cleanUp = cache.unwrap(ExpiryCleanUp.class);
        assertThatThrownBy(cleanUp::cleanUp).isInstanceOf(CacheEntryListenerException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(9));
        assertThat(store(cache).size()).as("every expired entry removed all the same").isZero();
        assertThat(EXPIRED).hasSize(10);
    }

    @Test
    void badUse() {
        OffHeapConfiguration<Integer, String> configuration = configuration();
        assertThatThrownBy(() -> configuration.setCleanUpInterval(java.time.Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cleanUpInterval must be positive");
        assertThatThrownBy(() -> configuration.setCleanUpInterval(java.time.Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        configuration.setCleanUpInterval(java.time.Duration.ofMinutes(1));
        OffHeapConfiguration<Integer, String> copy = new OffHeapConfiguration<>(configuration);
        assertThat(copy.getCleanUpInterval()).isEqualTo(java.time.Duration.ofMinutes(1));
        assertThat(copy).isEqualTo(configuration);
        copy.setCleanUpInterval(null);
        assertThat(copy).isNotEqualTo(configuration);

        Cache<Integer, String> cache = manager.createCache("bad", configuration);
        @SuppressWarnings("unchecked")
        OffHeapConfiguration<Integer, String> reported = cache.getConfiguration(OffHeapConfiguration.class);
        assertThat(reported.getCleanUpInterval()).isEqualTo(java.time.Duration.ofMinutes(1));
        cache.put(1, "one");
        ExpiryCleanUp cleanUp = cache.unwrap(ExpiryCleanUp.class);
        assertThatThrownBy(() -> cache.invoke(1, (entry, arguments) -> cleanUp.cleanUp()))
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .rootCause().hasMessageContaining("called from its own");
        cache.close();
        assertThatThrownBy(cleanUp::cleanUp).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
