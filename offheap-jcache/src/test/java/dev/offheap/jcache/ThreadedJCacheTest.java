package dev.offheap.jcache;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** For tests that drive JCaches from several threads: a provider, its default manager and a pool, per test. */
abstract class ThreadedJCacheTest {
    OffHeapCachingProvider provider;
    CacheManager manager;
    ExecutorService pool;

    @BeforeEach
    void open() {
        provider = new OffHeapCachingProvider();
        manager = provider.getCacheManager();
        pool = Executors.newFixedThreadPool(8);
    }

    /** Stops the pool's threads, then closes the provider with every cache it made. */
    @AfterEach
    void close() throws Exception {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        provider.close();
    }
}
