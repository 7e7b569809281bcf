package dev.offheap.jcache;

import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A provider and its default manager per test, closed after it with every cache they made. */
abstract class JCacheTestBase {
    static final long SMALL = 4L << 20;

    OffHeapCachingProvider provider;
    CacheManager manager;

    @BeforeEach
    void openProvider() {
        provider = new OffHeapCachingProvider();
        manager = provider.getCacheManager();
    }

    @AfterEach
    void closeProvider() {
        provider.close();
    }

    /** @return a configuration of the given types with a capacity of {@link #SMALL} bytes */
    static <K, V> OffHeapConfiguration<K, V> small(Class<K> keys, Class<V> values) {
        OffHeapConfiguration<K, V> configuration = new OffHeapConfiguration<>();
        configuration.setTypes(keys, values);
        configuration.setCapacityBytes(SMALL);
        return configuration;
    }
}
