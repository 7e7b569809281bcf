package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A load whose write tells the removal listener of another entry (one it expired) and the listener throws
 * an Error: the value is stored and is the load's result, so a caller that waited for the load gets it; only
 * the loading caller gets the listener's Error, as from any other write. The waiter got a
 * {@link CacheLoadException} caused by the listener's Error, for a value the cache holds.
 */
class AWaiterGetsTheLoadedValueWhenTheListenerFailsOnTheLoadsWriteTest {

    /** The listener's own failure. */
    private static final class ListenerFailure extends Error {
        private static final long serialVersionUID = 1L;

        ListenerFailure() {
            super("the listener's own failure");
        }
    }

    @Test
    void theWaiterGetsTheValueAndTheLoaderTheListenersError() throws Exception {
        AtomicLong nanos = new AtomicLong();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).clock(nanos::get).expireAfterWrite(Duration.ofSeconds(1))
                .removalListener((k, v, cause) -> {
                    throw new ListenerFailure();
                }).build()) {
            cache.put("old", "1");
            nanos.addAndGet(Duration.ofSeconds(2).toNanos()); // the load's write removes "old", EXPIRED

            CompletableFuture<Object> loader = new CompletableFuture<>();
            Thread loaderThread = Thread.ofPlatform().start(() -> {
                try {
                    loader.complete(cache.get("k", key -> {
                        loading.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        return "loaded";
                    }));
                } catch (Throwable e) {
                    loader.complete(e);
                }
            });
            loading.await();
            CompletableFuture<Object> waiter = new CompletableFuture<>();
            Thread waiterThread = Thread.ofPlatform().start(() -> {
                try {
                    waiter.complete(cache.get("k", key -> "the waiter's own load"));
                } catch (Throwable e) {
                    waiter.complete(e);
                }
            });
            awaitWaiting(waiterThread);
            release.countDown();
            loaderThread.join();
            waiterThread.join();

            assertThat(waiter.get()).isEqualTo("loaded");
            assertThat(loader.get()).isInstanceOf(ListenerFailure.class);
            assertThat(cache.getIfPresent("k")).isEqualTo("loaded");
        }
    }

    /** Waits until {@code thread} parks (waiting for the load), or 20 s. */
    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING
                && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
