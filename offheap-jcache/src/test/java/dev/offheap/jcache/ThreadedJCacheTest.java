package dev.offheap.jcache;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** For tests that drive JCaches from several threads: {@link JCacheTestBase} plus a pool, per test. */
abstract class ThreadedJCacheTest extends JCacheTestBase {
    ExecutorService pool;

    @BeforeEach
    void openPool() {
        pool = Executors.newFixedThreadPool(8);
    }

    /** Stops the pool's threads before the provider closes (JUnit runs this before the base's). */
    @AfterEach
    void closePool() throws Exception {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }
}
