package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Closeable;
import java.io.Serial;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryListener;
import org.junit.jupiter.api.Test;

/**
 * A {@code registerCacheEntryListener} whose listener factory or filter factory throws registers nothing.
 *
 * <p>The configuration was added to the cache's before the factories ran, and stayed there when they threw:
 * the cache's configuration reported a listener that did not exist, and every later registration of the
 * same configuration (once the factory's cause was mended, a class that could not load, a resource not
 * ready yet) was refused with "can be registered only once", so the listener could never be registered. A
 * listener made before its filter factory threw was never closed.
 */
class RegisteringAListenerWhoseFactoryFailsRegistersNothingTest extends JCacheTestBase {

    /** Records the keys of the entries created. */
    static final class Recorder implements CacheEntryCreatedListener<String, String>, Closeable {
        final List<String> created = new CopyOnWriteArrayList<>();
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            events.forEach(event -> created.add(event.getKey()));
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    /** Throws at its first call, then makes {@link #listener}. */
    static final class FailingOnceFactory implements Factory<CacheEntryListener<String, String>> {
        @Serial
        private static final long serialVersionUID = 1L;
        final transient Recorder listener = new Recorder();
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CacheEntryListener<String, String> create() {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("the listener's resource is not ready yet");
            }
            return listener;
        }
    }

    private static int listenersOf(Cache<String, String> cache) {
        @SuppressWarnings("unchecked")
        CompleteConfiguration<String, String> configuration = cache.getConfiguration(CompleteConfiguration.class);
        int count = 0;
        for (Object ignored : configuration.getCacheEntryListenerConfigurations()) {
            count++;
        }
        return count;
    }

    @Test
    void aListenerFactoryThatThrowsLeavesTheConfigurationUnregisteredAndItCanBeRegisteredLater() {
        Cache<String, String> cache = manager.createCache("listened", small(String.class, String.class));
        FailingOnceFactory factory = new FailingOnceFactory();
        MutableCacheEntryListenerConfiguration<String, String> listenerConfiguration =
                new MutableCacheEntryListenerConfiguration<>(factory, null, false, true);

        assertThatThrownBy(() -> cache.registerCacheEntryListener(listenerConfiguration))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not ready");
        assertThat(listenersOf(cache)).as("listeners the configuration reports after the failure").isZero();

        cache.registerCacheEntryListener(listenerConfiguration); // before: IllegalArgumentException, "only once"
        cache.put("k", "v");
        assertThat(factory.listener.created).containsExactly("k");
        assertThat(listenersOf(cache)).isEqualTo(1);
    }

    @Test
    void aFilterFactoryThatThrowsClosesTheListenerAlreadyMadeAndRegistersNothing() {
        Cache<String, String> cache = manager.createCache("filtered", small(String.class, String.class));
        Recorder listener = new Recorder();
        Factory<CacheEntryEventFilter<String, String>> failingFilters = () -> {
            throw new IllegalStateException("no filter");
        };
        MutableCacheEntryListenerConfiguration<String, String> listenerConfiguration =
                new MutableCacheEntryListenerConfiguration<>(() -> listener, failingFilters, false, true);

        assertThatThrownBy(() -> cache.registerCacheEntryListener(listenerConfiguration))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no filter");
        assertThat(listener.closes).as("closes of the listener made before the filter factory threw").hasValue(1);
        assertThat(listenersOf(cache)).isZero();
        cache.put("k", "v");
        assertThat(listener.created).isEmpty();
    }
}
