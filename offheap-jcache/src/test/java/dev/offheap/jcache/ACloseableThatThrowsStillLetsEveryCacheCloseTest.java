package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.OffHeapCache;

import java.io.Closeable;
import java.io.Serial;
import java.io.Serializable;
import java.net.URI;
import java.util.List;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.Test;

/**
 * A cache closes the {@code Closeable} loader, writer, expiry policy and listeners its factories made. One
 * whose {@code close()} threw an {@code Error} (an assertion in a test double, say) ended the cache's close
 * there: the off-heap memory was not freed (the store stayed open), the resources after it were not closed,
 * and a cache manager's or provider's close left its remaining caches open, the manager already marked
 * closed and forgotten by the provider. Every step now runs, and the first failure is thrown at the end.
 */
class ACloseableThatThrowsStillLetsEveryCacheCloseTest extends JCacheTestBase {

    static final class LoaderThatFailsToClose implements CacheLoader<String, String>, Closeable, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            return null;
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            return Map.of();
        }

        @Override
        public void close() {
            throw new AssertionError("the loader's close failed");
        }
    }

    /** A listener whose close records that it ran. */
    static final class ClosedListener implements CacheEntryCreatedListener<String, String>, Closeable, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static volatile boolean closed;

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static OffHeapConfiguration<String, String> failingToClose() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(new LoaderThatFailsToClose()));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(new ClosedListener()), null, false, true));
        return configuration;
    }

    @Test
    void theCacheFreesItsMemoryAndClosesItsOtherResources() {
        ClosedListener.closed = false;
        Cache<String, String> cache = manager.createCache("failing", failingToClose());

        assertThatThrownBy(cache::close).isInstanceOf(AssertionError.class)
                .hasMessage("the loader's close failed");

        assertThat(cache.isClosed()).isTrue();
        assertThat(cache.unwrap(OffHeapCache.class).isClosed()).isTrue();
        assertThat(ClosedListener.closed).isTrue();
        assertThat(manager.getCache("failing")).isNull();
    }

    @Test
    void theManagerClosesEveryOtherCache() {
        CacheManager closing = provider.getCacheManager(URI.create("closing"), getClass().getClassLoader());
        Cache<String, String> first = closing.createCache("first", small(String.class, String.class));
        Cache<String, String> failing = closing.createCache("failing", failingToClose());
        Cache<String, String> last = closing.createCache("last", small(String.class, String.class));

        assertThatThrownBy(closing::close).isInstanceOf(AssertionError.class);

        for (Cache<String, String> cache : List.of(first, failing, last)) {
            assertThat(cache.isClosed()).as(cache.getName()).isTrue();
            assertThat(cache.unwrap(OffHeapCache.class).isClosed()).as(cache.getName()).isTrue();
        }
        assertThat(closing.isClosed()).isTrue();
    }

    @Test
    void theProviderClosesEveryOtherManager() {
        CacheManager failingManager = provider.getCacheManager(URI.create("a"), getClass().getClassLoader());
        CacheManager otherManager = provider.getCacheManager(URI.create("b"), getClass().getClassLoader());
        failingManager.createCache("failing", failingToClose());
        Cache<String, String> other = otherManager.createCache("other", small(String.class, String.class));

        assertThatThrownBy(provider::close).isInstanceOf(AssertionError.class);

        assertThat(failingManager.isClosed()).isTrue();
        assertThat(otherManager.isClosed()).isTrue();
        assertThat(other.unwrap(OffHeapCache.class).isClosed()).isTrue();
    }
}
