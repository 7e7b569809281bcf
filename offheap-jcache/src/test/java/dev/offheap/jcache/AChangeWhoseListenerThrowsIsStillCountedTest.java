package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A synchronous listener that throws reaches the caller as a {@code CacheEntryListenerException} after the
 * change is made, and the change stays made. Its statistics were lost: the operations counted their hits,
 * misses, puts and removals after the step that threw the listener's failure, so a put whose listener
 * threw counted no put though the entry was stored. Now every change made counts, listener failure or not.
 */
class AChangeWhoseListenerThrowsIsStillCountedTest extends JCacheTestBase {

    /** Throws on every event it gets. */
    public static final class ThrowingListener implements CacheEntryCreatedListener<String, String>,
            CacheEntryUpdatedListener<String, String>, CacheEntryRemovedListener<String, String> {
        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            throw new IllegalStateException("listener failed on purpose");
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            throw new IllegalStateException("listener failed on purpose");
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            throw new IllegalStateException("listener failed on purpose");
        }
    }

    private Cache<String, String> cache;

    @BeforeEach
    void createCache() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(ThrowingListener.class), null, false, true));
        cache = manager.createCache("throwingListener", configuration);
    }

    private long statistic(String attribute) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cache.getName());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        return ((Number) server.getAttribute(statistics, attribute)).longValue();
    }

    private void failsOnItsListener(Runnable operation) {
        assertThatThrownBy(operation::run).isInstanceOf(CacheEntryListenerException.class)
                .hasRootCauseMessage("listener failed on purpose");
    }

    @Test
    void aPutCountsAPut() throws Exception {
        failsOnItsListener(() -> cache.put("k", "v"));
        assertThat(cache.get("k")).isEqualTo("v");
        assertThat(statistic("CachePuts")).isEqualTo(1);
    }

    @Test
    void anEntryProcessorThatSetsAndOneThatRemovesCountTheirGetPutAndRemoval() throws Exception {
        failsOnItsListener(() -> cache.invoke("k", (entry, arguments) -> {
            entry.setValue("v");
            return null;
        }));
        assertThat(statistic("CacheMisses")).isEqualTo(1);
        assertThat(statistic("CachePuts")).isEqualTo(1);

        failsOnItsListener(() -> cache.invoke("k", (entry, arguments) -> {
            entry.remove();
            return null;
        }));
        assertThat(statistic("CacheHits")).isEqualTo(1);
        assertThat(statistic("CacheRemovals")).isEqualTo(1);
        assertThat(cache.containsKey("k")).isFalse();
    }

    @Test
    void theOtherWritesCountTheirGetsPutsAndRemovals() throws Exception {
        failsOnItsListener(() -> cache.getAndPut("k", "v1")); // miss, put
        failsOnItsListener(() -> cache.replace("k", "v1", "v2")); // hit, put
        failsOnItsListener(() -> cache.getAndReplace("k", "v3")); // hit, put
        failsOnItsListener(() -> cache.remove("k", "v3")); // hit, removal
        failsOnItsListener(() -> cache.putIfAbsent("k", "v4")); // miss, put
        failsOnItsListener(() -> cache.getAndRemove("k")); // hit, removal
        failsOnItsListener(() -> cache.put("k", "v5")); // put
        failsOnItsListener(() -> cache.remove("k")); // removal

        assertThat(statistic("CacheHits")).isEqualTo(4);
        assertThat(statistic("CacheMisses")).isEqualTo(2);
        assertThat(statistic("CachePuts")).isEqualTo(5);
        assertThat(statistic("CacheRemovals")).isEqualTo(3);
    }

    @Test
    void anIteratorsRemoveCountsARemoval() throws Exception {
        failsOnItsListener(() -> cache.put("k", "v"));
        var entries = cache.iterator();
        entries.next();
        failsOnItsListener(entries::remove);
        assertThat(cache.containsKey("k")).isFalse();
        assertThat(statistic("CacheRemovals")).isEqualTo(1);
    }
}
