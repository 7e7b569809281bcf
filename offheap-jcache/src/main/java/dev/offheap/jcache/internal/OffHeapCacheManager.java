package dev.offheap.jcache.internal;

import dev.offheap.jcache.OffHeapConfiguration;
import dev.offheap.memory.internal.Failures;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;

/**
 * The cache manager of {@link dev.offheap.jcache.OffHeapCachingProvider}: a set of named
 * {@link OffHeapJCache}s sharing a URI and a class loader. Thread-safe.
 */
public final class OffHeapCacheManager implements CacheManager {
    private final CachingProvider provider;
    private final URI uri;
    private final ClassLoader classLoader;
    private final Properties properties;
    private final Consumer<OffHeapCacheManager> onClose;
    private final ConcurrentHashMap<String, OffHeapJCache<?, ?>> caches = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param provider    the provider that made this manager
     * @param uri         its URI
     * @param classLoader the class loader of values, keys and factories' products
     * @param properties  its properties
     * @param onClose     told once when this manager closes
     */
    public OffHeapCacheManager(CachingProvider provider, URI uri, ClassLoader classLoader, Properties properties,
                               Consumer<OffHeapCacheManager> onClose) {
        this.provider = provider;
        this.uri = uri;
        this.classLoader = classLoader;
        this.properties = properties;
        this.onClose = onClose;
    }

    @Override
    public CachingProvider getCachingProvider() {
        return provider;
    }

    @Override
    public URI getURI() {
        return uri;
    }

    @Override
    public ClassLoader getClassLoader() {
        return classLoader;
    }

    @Override
    public Properties getProperties() {
        return properties;
    }

    @Override
    public <K, V, C extends Configuration<K, V>> Cache<K, V> createCache(String cacheName, C configuration) {
        ensureOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        Objects.requireNonNull(configuration, "configuration");
        OffHeapConfiguration<K, V> copy = copyOf(configuration);
        if (copy.getCapacityBytes() == 0) {
            copy.setCapacityBytes(defaultCapacityBytes());
        }
        if (!copy.isStoreByValue()) {
            throw new UnsupportedOperationException("cache '" + cacheName
                    + "': store-by-reference is not supported; entries are stored by value, off the heap");
        }
        synchronized (caches) {
            ensureOpen();
            if (caches.containsKey(cacheName)) {
                throw new CacheException("a cache named '" + cacheName + "' already exists in " + uri);
            }
            OffHeapJCache<K, V> cache = new OffHeapJCache<>(this, cacheName, copy);
            caches.put(cacheName, cache);
            return cache;
        }
    }

    /**
     * @return the capacity of caches whose configuration sets none: this manager's property, the system
     *         property, or the built-in default
     * @throws IllegalArgumentException if the property is not a positive number of bytes, or not text (a number
     *                                  put into the properties, which {@code getProperty} would pass over)
     */
    long defaultCapacityBytes() {
        Object raw = properties.get(OffHeapConfiguration.CAPACITY_PROPERTY);
        if (raw != null && !(raw instanceof String)) {
            throw new IllegalArgumentException(OffHeapConfiguration.CAPACITY_PROPERTY
                    + " must be text, a positive decimal number of bytes (Properties.setProperty), got a "
                    + raw.getClass().getName() + ": " + raw);
        }
        String text = properties.getProperty(OffHeapConfiguration.CAPACITY_PROPERTY,
                System.getProperty(OffHeapConfiguration.CAPACITY_PROPERTY));
        if (text == null) {
            return OffHeapConfiguration.DEFAULT_CAPACITY_BYTES;
        }
        long bytes;
        try {
            bytes = Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            bytes = -1;
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException(OffHeapConfiguration.CAPACITY_PROPERTY
                    + " must be a positive number of bytes, got '" + text + "'");
        }
        return bytes;
    }

    private static <K, V> OffHeapConfiguration<K, V> copyOf(Configuration<K, V> configuration) {
        if (configuration instanceof CompleteConfiguration<K, V> complete) {
            return new OffHeapConfiguration<>(complete);
        }
        MutableConfiguration<K, V> basic = new MutableConfiguration<K, V>()
                .setTypes(configuration.getKeyType(), configuration.getValueType())
                .setStoreByValue(configuration.isStoreByValue());
        return new OffHeapConfiguration<>(basic);
    }

    @Override
    public <K, V> Cache<K, V> getCache(String cacheName, Class<K> keyType, Class<V> valueType) {
        ensureOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(valueType, "valueType");
        OffHeapJCache<?, ?> cache = caches.get(cacheName);
        if (cache == null) {
            return null;
        }
        Configuration<?, ?> configuration = cache.configuration();
        if (configuration.getKeyType() != keyType) {
            throw new ClassCastException("cache '" + cacheName + "' has keys of " + configuration.getKeyType()
                    + ", not " + keyType);
        }
        if (configuration.getValueType() != valueType) {
            throw new ClassCastException("cache '" + cacheName + "' has values of "
                    + configuration.getValueType() + ", not " + valueType);
        }
        @SuppressWarnings("unchecked")
        Cache<K, V> typed = (Cache<K, V>) cache;
        return typed;
    }

    @Override
    public <K, V> Cache<K, V> getCache(String cacheName) {
        ensureOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        @SuppressWarnings("unchecked")
        Cache<K, V> cache = (Cache<K, V>) caches.get(cacheName);
        return cache;
    }

    @Override
    public Iterable<String> getCacheNames() {
        ensureOpen();
        return Collections.unmodifiableSet(new LinkedHashSet<>(caches.keySet()));
    }

    @Override
    public void destroyCache(String cacheName) {
        ensureOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        OffHeapJCache<?, ?> cache = caches.get(cacheName);
        if (cache != null) {
            try {
                cache.clear();
            } catch (IllegalStateException e) {
                // Another thread destroyed or closed it meanwhile: nothing left to clear. A call from inside
                // the cache's own writer or entry processor (the cache still open) is refused as before.
                if (!cache.isClosed()) {
                    throw e;
                }
            }
            cache.close();
        }
    }

    @Override
    public void enableManagement(String cacheName, boolean enabled) {
        ensureOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        OffHeapJCache<?, ?> cache = caches.get(cacheName);
        if (cache != null) {
            cache.setManagementEnabled(enabled);
        }
    }

    @Override
    public void enableStatistics(String cacheName, boolean enabled) {
        ensureOpen();
        Objects.requireNonNull(cacheName, "cacheName");
        OffHeapJCache<?, ?> cache = caches.get(cacheName);
        if (cache != null) {
            cache.setStatisticsEnabled(enabled);
        }
    }

    @Override
    public void close() {
        synchronized (caches) {
            if (closed) {
                return;
            }
            closed = true;
        }
        onClose.accept(this);
        // every cache, even where one's close throws (a loader's close that throws an Error): the first
        // failure is thrown once all are closed and their memory freed
        Throwable failure = null;
        for (OffHeapJCache<?, ?> cache : caches.values()) {
            failure = Failures.run(failure, cache::close);
        }
        caches.clear();
        Failures.throwIfAny(failure);
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return Unwrapping.unwrap(this, type, "a cache manager of " + provider.getClass().getName());
    }

    /** Forgets a cache that closed; called by the cache. */
    void release(String cacheName, OffHeapJCache<?, ?> cache) {
        caches.remove(cacheName, cache);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("cache manager " + uri + " is closed");
        }
    }
}
