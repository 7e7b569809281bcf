package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.expiry.AccessedExpiryPolicy;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.Test;

/** The iterator against entries that expire while it runs: each entry is judged by the clock of its own look. */
class IteratorExpiryClockTest extends JCacheTestBase {
    private Cache<Integer, String> cache(String name, javax.cache.configuration.Factory<? extends javax.cache.expiry.ExpiryPolicy> expiry) {
        OffHeapConfiguration<Integer, String> configuration = small(Integer.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setExpiryPolicyFactory(expiry);
        return manager.createCache(name, configuration);
    }

    /**
     * The iterator read the clock once, when it was made: an entry that expired while the iteration went on
     * was still handed out (docs/jcache.md: "the iterator skips expired entries").
     */
    @Test
    void theIteratorSkipsEntriesThatExpiredAfterItWasMade() throws InterruptedException {
        Cache<Integer, String> cache = cache("created", FactoryBuilder.factoryOf(
                new CreatedExpiryPolicy(new Duration(TimeUnit.MILLISECONDS, 300))));
        cache.put(1, "one");
        Iterator<Cache.Entry<Integer, String>> iterator = cache.iterator();
        Thread.sleep(500); // the entry's creation expiry passes
        assertThat(cache.containsKey(1)).as("containsKey").isFalse();
        assertThat(iterator.hasNext()).as("the iterator has an expired entry").isFalse();
    }

    /**
     * Worse with an access expiry: the stale clock's access renewed the expired entry, from the time the
     * iterator was made, and a get then found it again.
     */
    @Test
    void theIteratorDoesNotRenewAnEntryThatHasExpired() throws InterruptedException {
        Cache<Integer, String> cache = cache("accessed", FactoryBuilder.factoryOf(
                new AccessedExpiryPolicy(new Duration(TimeUnit.MILLISECONDS, 1_000))));
        cache.put(1, "one");
        Thread.sleep(600);
        Iterator<Cache.Entry<Integer, String>> iterator = cache.iterator(); // about 400 ms before expiry
        Thread.sleep(700); // expired now, for good: about 300 ms ago
        assertThat(cache.containsKey(1)).as("containsKey").isFalse();
        boolean handedOut = iterator.hasNext();
        assertThat(cache.get(1)).as("the expired entry came back").isNull();
        assertThat(handedOut).as("the iterator has an expired entry").isFalse();
    }
}
