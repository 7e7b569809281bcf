package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryListenerException;
import org.junit.jupiter.api.Test;

/**
 * A synchronous listener's filter that throws reaches the caller as a {@code CacheEntryListenerException}
 * that names the filter, not the listener, which never ran. Before, the message said the listener failed.
 */
class AFailingFilterIsNamedInTheListenerExceptionTest extends JCacheTestBase {

    public static final class Quiet implements CacheEntryCreatedListener<String, String> {
        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
        }

        @Override
        public String toString() {
            return "the quiet listener";
        }
    }

    public static final class Failing implements CacheEntryEventFilter<String, String> {
        @Override
        public boolean evaluate(CacheEntryEvent<? extends String, ? extends String> event) {
            throw new IllegalStateException("filter failed on purpose");
        }

        @Override
        public String toString() {
            return "the failing filter";
        }
    }

    @Test
    void theExceptionOfAFilterThatThrowsNamesTheFilter() {
        Cache<String, String> cache = manager.createCache("filtered", small(String.class, String.class));
        cache.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(Quiet.class), FactoryBuilder.factoryOf(Failing.class), false, true));

        assertThatThrownBy(() -> cache.put("k", "v"))
                .isInstanceOf(CacheEntryListenerException.class)
                .hasMessageContaining("filter the failing filter")
                .hasMessageNotContaining("listener the quiet listener failed")
                .hasRootCauseMessage("filter failed on purpose");
        assertThat(cache.get("k")).isEqualTo("v"); // the change was made before its events
    }
}
