package dev.offheap.jcache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    /** One thread's part of {@link #together}. */
    interface Part {
        /** @param thread the thread's number, from 0 */
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code part} on {@code threads} threads of the pool, released at once, and returns when all are
     * done.
     *
     * @throws java.util.concurrent.ExecutionException the first part's failure
     * @throws java.util.concurrent.TimeoutException   if a part is still running after {@code timeoutSeconds}
     */
    void together(int threads, long timeoutSeconds, Part part) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                start.await();
                part.run(thread);
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get(timeoutSeconds, TimeUnit.SECONDS);
        }
    }

    /** Stops the pool's threads before the provider closes (JUnit runs this before the base's). */
    @AfterEach
    void closePool() throws Exception {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }
}
