package dev.offheap.jcache;

import dev.offheap.jcache.internal.OffHeapCacheManager;
import dev.offheap.memory.internal.Failures;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.WeakHashMap;
import javax.cache.CacheManager;
import javax.cache.configuration.OptionalFeature;
import javax.cache.spi.CachingProvider;

/**
 * The JCache (JSR-107) provider of offheap: its caches keep keys and values serialized outside the Java
 * heap, in an {@link dev.offheap.cache.OffHeapCache} with a capacity in bytes. Found through the
 * {@link java.util.ServiceLoader} ({@code Caching.getCachingProvider()}).
 *
 * <p>Caches store by value only: {@link OptionalFeature#STORE_BY_REFERENCE} is not supported. Keys and
 * values of the types {@code String}, {@code Long}, {@code Integer} and {@code byte[]} (as the
 * configuration's {@code setTypes} declares them) use compact built-in serializers; any other type must be
 * {@link java.io.Serializable} and goes through Java serialization. {@link OffHeapConfiguration} sets the
 * capacity (default {@link OffHeapConfiguration#DEFAULT_CAPACITY_BYTES}) and the eviction policy.
 *
 * <p>Threading: every method is thread-safe. Cache managers are kept per class loader and URI until they
 * are closed.
 */
public final class OffHeapCachingProvider implements CachingProvider {
    private static final URI DEFAULT_URI = URI.create(OffHeapCachingProvider.class.getName());

    private final Map<ClassLoader, Map<URI, OffHeapCacheManager>> managers = new WeakHashMap<>();

    /** Made by the ServiceLoader, or directly; each instance keeps its own cache managers. */
    public OffHeapCachingProvider() {
    }

    /**
     * Gets the cache manager of a URI and class loader, making it if there is none open.
     *
     * @param uri         the manager's URI, or null for {@link #getDefaultURI()}
     * @param classLoader the class loader for deserializing keys and values and making factories' products,
     *                    or null for {@link #getDefaultClassLoader()}
     * @param properties  the manager's properties, or null for {@link #getDefaultProperties()}; used only when
     *                    the manager is made
     * @return the manager
     */
    @Override
    public synchronized CacheManager getCacheManager(URI uri, ClassLoader classLoader, Properties properties) {
        URI managerUri = uri == null ? getDefaultURI() : uri;
        ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
        Properties managerProperties = properties == null ? new Properties() : properties;
        Map<URI, OffHeapCacheManager> ofLoader = managers.computeIfAbsent(loader, l -> new HashMap<>());
        OffHeapCacheManager manager = ofLoader.get(managerUri);
        // A manager another thread is closing is marked closed before it leaves this table (release): a new
        // one replaces it, as after the close; release removes only the manager it was given.
        if (manager == null || manager.isClosed()) {
            manager = new OffHeapCacheManager(this, managerUri, loader, managerProperties, this::release);
            ofLoader.put(managerUri, manager);
        }
        return manager;
    }

    /** @return the class loader that loaded this provider */
    @Override
    public ClassLoader getDefaultClassLoader() {
        return getClass().getClassLoader();
    }

    /** @return this provider's class name as a URI */
    @Override
    public URI getDefaultURI() {
        return DEFAULT_URI;
    }

    /** @return new empty properties */
    @Override
    public Properties getDefaultProperties() {
        return new Properties();
    }

    /**
     * @param uri         the manager's URI, or null for the {@linkplain #getDefaultURI() default}
     * @param classLoader the class loader, or null for the default
     * @return the manager of that URI and class loader; one is made, with no properties, if there is none open
     */
    @Override
    public CacheManager getCacheManager(URI uri, ClassLoader classLoader) {
        return getCacheManager(uri, classLoader, getDefaultProperties());
    }

    /** @return the manager of the default URI and class loader */
    @Override
    public CacheManager getCacheManager() {
        return getCacheManager(getDefaultURI(), getDefaultClassLoader());
    }

    /**
     * Closes every cache manager of this provider, and their caches: all of them, even where one's close
     * throws (a cache loader, writer or listener whose {@code close()} throws an {@code Error}), which is
     * rethrown once all are closed, later failures suppressed in it.
     */
    @Override
    public void close() {
        closeAll(allManagers());
    }

    private static void closeAll(Collection<OffHeapCacheManager> toClose) {
        Throwable failure = null;
        for (OffHeapCacheManager manager : toClose) {
            failure = Failures.run(failure, manager::close);
        }
        Failures.throwIfAny(failure);
    }

    /**
     * Closes the managers of a class loader, all of them even where one's close throws, as {@link #close()}.
     *
     * @param classLoader the class loader, or null for the default
     */
    @Override
    public void close(ClassLoader classLoader) {
        ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
        Map<URI, OffHeapCacheManager> ofLoader;
        synchronized (this) {
            ofLoader = managers.get(loader);
            ofLoader = ofLoader == null ? Map.of() : Map.copyOf(ofLoader);
        }
        closeAll(ofLoader.values());
    }

    /**
     * Closes the manager of a URI and class loader, if open.
     *
     * @param uri         the URI, or null for the default
     * @param classLoader the class loader, or null for the default
     */
    @Override
    public void close(URI uri, ClassLoader classLoader) {
        URI managerUri = uri == null ? getDefaultURI() : uri;
        ClassLoader loader = classLoader == null ? getDefaultClassLoader() : classLoader;
        OffHeapCacheManager manager;
        synchronized (this) {
            Map<URI, OffHeapCacheManager> ofLoader = managers.get(loader);
            manager = ofLoader == null ? null : ofLoader.get(managerUri);
        }
        if (manager != null) {
            manager.close();
        }
    }

    /**
     * @param feature the feature
     * @return false: store-by-reference is not supported (entries live serialized outside the heap)
     * @throws NullPointerException if {@code feature} is null
     */
    @Override
    public boolean isSupported(OptionalFeature feature) {
        Objects.requireNonNull(feature, "feature");
        return false;
    }

    private synchronized void release(CacheManager manager) {
        Map<URI, OffHeapCacheManager> ofLoader = managers.get(manager.getClassLoader());
        if (ofLoader != null) {
            ofLoader.remove(manager.getURI(), manager);
            if (ofLoader.isEmpty()) {
                managers.remove(manager.getClassLoader());
            }
        }
    }

    private synchronized List<OffHeapCacheManager> allManagers() {
        List<OffHeapCacheManager> all = new ArrayList<>();
        for (Map<URI, OffHeapCacheManager> ofLoader : managers.values()) {
            all.addAll(ofLoader.values());
        }
        return all;
    }
}
