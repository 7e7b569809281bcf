package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.Serializer;

import java.io.Closeable;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import org.junit.jupiter.api.Test;

/**
 * A {@code createCache} whose configuration has a factory that throws (a listener's, a filter's, the
 * expiry policy's, a serializer's) closes what the factories before it made: the loader, the writer, the
 * expiry policy and the listeners, as a cache's close would.
 *
 * <p>Only a failure to build the off-heap store closed them: one of these factories failing left a
 * {@code Closeable} loader or writer (a connection pool, a file) open, with nobody holding it to close it.
 */
class ACacheThatFailsToBuildClosesWhatItsFactoriesMadeTest extends JCacheTestBase {

    /** A loader, writer, expiry policy and listener in one, counting its closes. */
    static final class Resource implements CacheLoader<String, String>, CacheWriter<String, String>, ExpiryPolicy,
            CacheEntryCreatedListener<String, String>, Closeable {
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public String load(String key) {
            return null;
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            return Map.of();
        }

        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {
        }

        @Override
        public void writeAll(Collection<Cache.Entry<? extends String, ? extends String>> entries) {
        }

        @Override
        public void delete(Object key) {
        }

        @Override
        public void deleteAll(Collection<?> keys) {
        }

        @Override
        public Duration getExpiryForCreation() {
            return Duration.ETERNAL;
        }

        @Override
        public Duration getExpiryForAccess() {
            return null;
        }

        @Override
        public Duration getExpiryForUpdate() {
            return null;
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    private final Resource loader = new Resource();
    private final Resource writer = new Resource();
    private final Resource expiry = new Resource();

    /** @return a configuration whose loader, writer and expiry policy are this test's resources */
    private OffHeapConfiguration<String, String> withResources() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(() -> loader).setReadThrough(true);
        configuration.setCacheWriterFactory(() -> writer).setWriteThrough(true);
        configuration.setExpiryPolicyFactory(() -> expiry);
        return configuration;
    }

    private static <T> Factory<T> failing(String what) {
        return () -> {
            throw new IllegalStateException(what + " cannot be made");
        };
    }

    private void assertNothingLeftOpen(String cacheName) {
        assertThat(loader.closes).as("closes of the loader").hasValue(1);
        assertThat(writer.closes).as("closes of the writer").hasValue(1);
        assertThat(manager.getCache(cacheName)).isNull();
    }

    @Test
    void aListenerFactoryThatThrowsClosesTheLoaderWriterExpiryPolicyAndListenersMadeBefore() {
        OffHeapConfiguration<String, String> configuration = withResources();
        Resource listener = new Resource();
        AtomicInteger listenersMade = new AtomicInteger();
        Factory<CacheEntryListener<String, String>> counted = () -> {
            listenersMade.incrementAndGet();
            return listener;
        };
        configuration.addCacheEntryListenerConfiguration(
                new MutableCacheEntryListenerConfiguration<>(counted, null, false, true));
        Factory<CacheEntryListener<String, String>> broken = failing("the listener");
        configuration.addCacheEntryListenerConfiguration(
                new MutableCacheEntryListenerConfiguration<>(broken, null, false, true));

        assertThatThrownBy(() -> manager.createCache("listeners", configuration))
                .hasMessageContaining("the listener cannot be made");

        assertNothingLeftOpen("listeners");
        assertThat(expiry.closes).as("closes of the expiry policy").hasValue(1);
        // the listeners' order is the configuration's set's: the good one was made before the broken one or not
        assertThat(listener.closes).as("closes of the listener made").hasValue(listenersMade.get());
    }

    @Test
    void anExpiryPolicyFactoryThatThrowsClosesTheLoaderAndWriter() {
        OffHeapConfiguration<String, String> configuration = withResources();
        configuration.setExpiryPolicyFactory(failing("the expiry policy"));

        assertThatThrownBy(() -> manager.createCache("expiry", configuration))
                .hasMessageContaining("the expiry policy cannot be made");

        assertNothingLeftOpen("expiry");
    }

    @Test
    void aSerializerFactoryThatThrowsClosesTheLoaderWriterAndExpiryPolicy() {
        OffHeapConfiguration<String, String> configuration = withResources();
        Factory<Serializer<String>> broken = failing("the key serializer");
        configuration.setKeySerializerFactory(broken);

        assertThatThrownBy(() -> manager.createCache("serializer", configuration))
                .hasMessageContaining("the key serializer cannot be made");

        assertNothingLeftOpen("serializer");
        assertThat(expiry.closes).as("closes of the expiry policy").hasValue(1);
    }
}
