package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * An entry that had expired, removed by an entry processor's {@code remove()} or by the iterator's
 * {@code remove()}, is reported as EXPIRED, as {@code remove(key)} and a get report it, and is not counted
 * as a removal.
 *
 * <p>An entry processor's {@code remove()} dropped the expired entry with no event at all, so a listener
 * that keeps track of the cache's entries (CREATED in, REMOVED or EXPIRED out) kept that one forever. The
 * iterator's {@code remove()} of an entry that expired after {@code next()} handed it out sent REMOVED,
 * with the expired value, and counted a removal in the statistics.
 */
class RemovingAnEntryThatHadExpiredReportsItsExpiryTest extends JCacheTestBase {
    private static final Duration LIFETIME = new Duration(TimeUnit.MILLISECONDS, 300);

    /** Records each event as "TYPE key". */
    static final class Recorder implements CacheEntryCreatedListener<String, String>,
            CacheEntryRemovedListener<String, String>, CacheEntryExpiredListener<String, String> {
        final List<String> events = new CopyOnWriteArrayList<>();

        private void record(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
            batch.forEach(event -> events.add(event.getEventType() + " " + event.getKey()));
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
            record(batch);
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
            record(batch);
        }

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) {
            record(batch);
        }
    }

    private final Recorder recorder = new Recorder();

    private Cache<String, String> cache(String name) {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(LIFETIME));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                () -> recorder, null, true, true));
        return manager.createCache(name, configuration);
    }

    private static void awaitExpiry(Cache<String, String> cache, String key) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cache.containsKey(key)) { // containsKey neither drops the entry nor sends an event
            assertThat(System.nanoTime()).as("expired within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private long removals(String cacheName) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
        return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, "CacheRemovals");
    }

    @Test
    void anEntryProcessorRemovingAnExpiredEntryReportsItExpired() throws Exception {
        Cache<String, String> cache = cache("processor");
        cache.put("k", "v");
        awaitExpiry(cache, "k");

        Boolean existed = cache.invoke("k", (entry, arguments) -> {
            boolean exists = entry.exists();
            entry.remove();
            return exists;
        });

        assertThat(existed).as("the processor saw the expired entry").isFalse();
        assertThat(recorder.events).containsExactly("CREATED k", "EXPIRED k");
        assertThat(removals("processor")).isZero();
    }

    /** Eternal entries whose every access (a get, an iteration's next) ends them at once. */
    public static final class AccessEndsTheEntry implements ExpiryPolicy, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public Duration getExpiryForCreation() {
            return Duration.ETERNAL;
        }

        @Override
        public Duration getExpiryForAccess() {
            return Duration.ZERO;
        }

        @Override
        public Duration getExpiryForUpdate() {
            return null;
        }
    }

    /**
     * The iteration's own access, with a zero access duration, expires the entry that {@code next()} hands
     * out: the entry is gone (JCache: a zero duration for an access expires the entry at once), so the
     * iterator's {@code remove()} finds an expired entry and reports it EXPIRED, counting no removal, as
     * {@code remove(key)} does with it. JCache says nothing of this case; the reference implementation's
     * iterator sends REMOVED for whatever it handed out. docs/jcache.md says which.
     */
    @Test
    void theIteratorsRemoveAfterAZeroDurationAccessReportsTheEntryExpired() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(AccessEndsTheEntry.class));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                () -> recorder, null, true, true));
        Cache<String, String> cache = manager.createCache("zero-access", configuration);
        cache.put("k", "v");
        Iterator<Cache.Entry<String, String>> iterator = cache.iterator();
        assertThat(iterator.next().getValue()).isEqualTo("v");
        assertThat(cache.containsKey("k")).as("expired by the iteration's access").isFalse();

        iterator.remove();

        assertThat(recorder.events).containsExactly("CREATED k", "EXPIRED k");
        assertThat(removals("zero-access")).as("removals counted").isZero();
    }

    @Test
    void theIteratorsRemoveOfAnEntryThatExpiredAfterNextReportsItExpiredAndCountsNoRemoval() throws Exception {
        Cache<String, String> cache = cache("iterator");
        cache.put("k", "v");
        Iterator<Cache.Entry<String, String>> iterator = cache.iterator();
        assertThat(iterator.next().getKey()).isEqualTo("k");
        awaitExpiry(cache, "k");

        iterator.remove();

        assertThat(recorder.events).containsExactly("CREATED k", "EXPIRED k");
        assertThat(removals("iterator")).as("removals counted").isZero();
        assertThat(cache.get("k")).isNull();
    }
}
