package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import org.junit.jupiter.api.Test;

/**
 * docs/jcache.md: "the operation that finds [an expired entry] drops it and sends an EXPIRED event";
 * only {@code containsKey} and the iterator skip one without removing it. {@code replace} (both),
 * {@code getAndReplace}, {@code remove(key, value)} and an entry processor that did not remove the entry
 * left it in place, its memory held and its EXPIRED event owed until a get or a sweep came by.
 *
 * <p>The entry is made to expire without waiting: its expiry policy gives a read access a zero duration,
 * which sets its expiry time to the read's own clock reading, so every later operation finds it expired.
 */
class AnOperationThatFindsAnExpiredEntryDropsItAndReportsItsExpiryTest extends JCacheTestBase {
    /** Eternal at creation and update; the access duration is the test's to set. */
    static final class AccessExpiry implements ExpiryPolicy {
        volatile Duration access;

        @Override
        public Duration getExpiryForCreation() {
            return Duration.ETERNAL;
        }

        @Override
        public Duration getExpiryForAccess() {
            return access;
        }

        @Override
        public Duration getExpiryForUpdate() {
            return null;
        }
    }

    private final AccessExpiry expiry = new AccessExpiry();
    private final List<String> expired = new CopyOnWriteArrayList<>();
    private int caches;

    private Cache<String, String> cacheWithAnExpiredEntry() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setExpiryPolicyFactory(() -> expiry);
        CacheEntryExpiredListener<String, String> listener =
                (Iterable<CacheEntryEvent<? extends String, ? extends String>> batch) ->
                        batch.forEach(event -> expired.add(event.getKey()));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                () -> listener, null, true, true));
        Cache<String, String> cache = manager.createCache("cache" + caches++, configuration);
        expiry.access = Duration.ZERO;
        cache.put("k", "v");
        assertThat(cache.get("k")).isEqualTo("v"); // the access that expires it
        expiry.access = null;
        expired.clear();
        return cache;
    }

    private void assertDroppedWithItsExpiry(String operation, Consumer<Cache<String, String>> call) {
        Cache<String, String> cache = cacheWithAnExpiredEntry();
        call.accept(cache);
        assertThat(expired).as("EXPIRED events of %s", operation).containsExactly("k");
        assertThat(cache.unwrap(ExpiryCleanUp.class).cleanUp()).as("entries %s left for the sweep", operation)
                .isZero();
        assertThat(expired).as("EXPIRED events after the sweep, %s", operation).containsExactly("k");
    }

    @Test
    void aReplaceThatFindsTheEntryExpiredDropsIt() {
        assertDroppedWithItsExpiry("replace(k, v)", cache -> assertThat(cache.replace("k", "w")).isFalse());
    }

    @Test
    void aCompareAndReplaceThatFindsTheEntryExpiredDropsIt() {
        assertDroppedWithItsExpiry("replace(k, old, new)",
                cache -> assertThat(cache.replace("k", "v", "w")).isFalse());
    }

    @Test
    void aGetAndReplaceThatFindsTheEntryExpiredDropsIt() {
        assertDroppedWithItsExpiry("getAndReplace", cache -> assertThat(cache.getAndReplace("k", "w")).isNull());
    }

    @Test
    void aCompareAndRemoveThatFindsTheEntryExpiredDropsIt() {
        assertDroppedWithItsExpiry("remove(k, v)", cache -> assertThat(cache.remove("k", "v")).isFalse());
    }

    @Test
    void anEntryProcessorThatReadsAnExpiredEntryDropsIt() {
        assertDroppedWithItsExpiry("invoke", cache -> assertThat(cache.<Boolean>invoke("k",
                (entry, arguments) -> entry.exists() || entry.getValue() != null)).isFalse());
    }

    @Test
    void invokeAllDropsTheExpiredEntriesItFinds() {
        assertDroppedWithItsExpiry("invokeAll",
                cache -> assertThat(cache.invokeAll(Set.of("k"), (entry, arguments) -> entry.getValue())).isEmpty());
    }

    @Test
    void containsKeyStillOnlySkipsAnExpiredEntry() {
        Cache<String, String> cache = cacheWithAnExpiredEntry();
        assertThat(cache.containsKey("k")).isFalse();
        assertThat(expired).isEmpty();
        assertThat(cache.unwrap(ExpiryCleanUp.class).cleanUp()).isEqualTo(1);
        assertThat(expired).containsExactly("k");
    }
}
