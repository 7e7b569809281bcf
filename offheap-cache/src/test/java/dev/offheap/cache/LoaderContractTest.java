package dev.offheap.cache;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The loader paths against what OffHeapCache and CacheLoader promise, and Caffeine's loading cache where
 * they are silent: a loader that returns null or throws (checked, unchecked, {@link InterruptedException}),
 * a loader that calls back into the cache, a caller interrupted while it waits for another thread's load.
 */
class LoaderContractTest {
    private static final Duration LIMIT = Duration.ofSeconds(20);

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted(); // a failed assertion must not leave this thread interrupted for the next test
    }

    private static CacheBuilder<String, String> builder() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20);
    }

    /**
     * As Caffeine's CacheLoader has it: an InterruptedException is treated like any other exception (the
     * call fails with a CacheLoadException whose cause it is), except that the thread's interrupt status is
     * set again, since catching it cleared the status that the code calling the cache may need to see.
     */
    @Test
    void aLoaderInterruptedLeavesTheThreadInterrupted() {
        try (OffHeapCache<String, String> cache = builder().loader(key -> {
            throw new InterruptedException("load of " + key + " interrupted");
        }).build()) {
            assertThatThrownBy(() -> cache.get("k")).isInstanceOf(CacheLoadException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).as("interrupt status after get").isTrue();

            assertThatThrownBy(() -> cache.getAll(List.of("a", "b"))).isInstanceOf(CacheLoadException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).as("interrupt status after getAll").isTrue();

            assertThat(cache.size()).isZero();
            assertThat(cache.stats().loadFailureCount()).isEqualTo(2);
        }
    }

    /** The same for a loader function that throws it undeclared (Kotlin, Lombok's @SneakyThrows). */
    @Test
    void aLoaderFunctionThrowingInterruptedExceptionUndeclaredLeavesTheThreadInterrupted() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            assertThatThrownBy(() -> cache.get("k", key -> sneakyThrow(new InterruptedException())))
                    .isInstanceOf(CacheLoadException.class).hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).as("interrupt status after get(key, loader)").isTrue();

            assertThatThrownBy(() -> cache.readOrLoad("k", key -> sneakyThrow(new InterruptedException()),
                    segment -> segment.byteSize()))
                    .isInstanceOf(CacheLoadException.class).hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).as("interrupt status after readOrLoad").isTrue();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable, R> R sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    @Test
    void aLoaderReturningNullFailsTheCallCachesNothingAndCountsAFailure() {
        try (OffHeapCache<String, String> cache = builder().loader(key -> null).build()) {
            assertThatThrownBy(() -> cache.get("k")).isInstanceOf(CacheLoadException.class)
                    .hasMessageContaining("returned null");
            assertThatThrownBy(() -> cache.get("k", key -> null)).isInstanceOf(CacheLoadException.class);
            assertThatThrownBy(() -> cache.readOrLoad("k", key -> null, segment -> 1))
                    .isInstanceOf(CacheLoadException.class);
            // loadAll's result without the key: absent from the result, not cached, no failure
            assertThat(cache.getAll(List.of("k"))).isEmpty();
            assertThat(cache.containsKey("k")).isFalse();
            assertThat(cache.stats().loadFailureCount()).isEqualTo(3);
        }
    }

    @Test
    void aBulkLoaderReturningNullFailsTheCall() {
        CacheLoader<String, String> nullBulk = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "v";
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                return null;
            }
        };
        try (OffHeapCache<String, String> cache = builder().loader(nullBulk).build()) {
            assertThatThrownBy(() -> cache.getAll(List.of("a", "b"))).isInstanceOf(CacheLoadException.class);
            assertThat(cache.get("a")).isEqualTo("v"); // no load left registered
        }
    }

    @Test
    void uncheckedAndCheckedFailuresAreCacheLoadExceptionsWithTheLoadersCause() {
        IllegalArgumentException unchecked = new IllegalArgumentException("no such row");
        java.io.IOException checked = new java.io.IOException("database down");
        AtomicReference<Exception> next = new AtomicReference<>();
        try (OffHeapCache<String, String> cache = builder().loader(key -> {
            throw next.get();
        }).build()) {
            next.set(unchecked);
            assertThatThrownBy(() -> cache.get("k")).isInstanceOf(CacheLoadException.class).hasCause(unchecked);
            assertThatThrownBy(() -> cache.getAll(List.of("k"))).isInstanceOf(CacheLoadException.class)
                    .hasCause(unchecked);
            assertThatThrownBy(() -> cache.get("k", key -> {
                throw unchecked;
            })).isInstanceOf(CacheLoadException.class).hasCause(unchecked);
            next.set(checked);
            assertThatThrownBy(() -> cache.get("k")).isInstanceOf(CacheLoadException.class).hasCause(checked);
            assertThatThrownBy(() -> cache.getAll(List.of("k"))).isInstanceOf(CacheLoadException.class)
                    .hasCause(checked);
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    /** A loader that asks for the key it loads, directly or through getAll: an IllegalStateException cause. */
    @Test
    void aLoaderAskingForTheKeyItLoadsFailsAtOnce() {
        AtomicReference<OffHeapCache<String, String>> self = new AtomicReference<>();
        try (OffHeapCache<String, String> cache = builder().loader(key -> self.get().get(key)).build()) {
            self.set(cache);
            assertTimeoutPreemptively(LIMIT, () -> {
                assertThatThrownBy(() -> cache.get("k")).isInstanceOf(CacheLoadException.class)
                        .hasRootCauseInstanceOf(IllegalStateException.class).hasStackTraceContaining("recursive load");
                assertThatThrownBy(() -> cache.getAll(List.of("a", "b"))).isInstanceOf(CacheLoadException.class)
                        .hasStackTraceContaining("recursive load");
                assertThatThrownBy(() -> cache.get("k", key -> cache.get(key, k2 -> "inner")))
                        .isInstanceOf(CacheLoadException.class).hasStackTraceContaining("recursive load");
            });
            assertThat(cache.get("k", key -> "v")).isEqualTo("v");
        }
    }

    /** A loader may use the cache for other keys, and a put of its own key wins over what it loads. */
    @Test
    void aLoaderMayUseTheCacheForOtherKeys() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            String value = assertTimeoutPreemptively(LIMIT, () -> cache.get("k", key -> {
                cache.put("other", "o");
                cache.put("k", "put meanwhile");
                return "loaded " + cache.get("third", k3 -> "3");
            }));
            assertThat(value).isEqualTo("loaded 3");
            assertThat(cache.getIfPresent("k")).as("the put made while it loaded").isEqualTo("put meanwhile");
            assertThat(cache.getIfPresent("other")).isEqualTo("o");
            assertThat(cache.getIfPresent("third")).isEqualTo("3");
        }
    }

    /**
     * A caller interrupted while it waits for another thread's load: it stops waiting with a
     * CacheLoadException whose cause is the InterruptedException, its interrupt status set; the load goes on
     * and its value is stored for the next caller.
     */
    @Test
    void aCallerInterruptedWhileWaitingForAnotherThreadsLoadStopsWaiting() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OffHeapCache<String, String> cache = builder().build()) {
            CompletableFuture<String> loader = CompletableFuture.supplyAsync(() -> cache.get("k", key -> loadAfter(loading, release)), runnable -> Thread.ofPlatform().daemon().start(runnable));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();

            AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            Thread waiter = Thread.ofPlatform().daemon().start(() -> {
                try {
                    cache.get("k", key -> "not this");
                } catch (Throwable t) {
                    waiterFailure.set(t);
                }
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            });
            awaitWaiting(waiter);
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(waiter.isAlive()).as("the interrupted waiter still waits").isFalse();
            assertThat(waiterFailure.get()).isInstanceOf(CacheLoadException.class)
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(interruptedAfter).isTrue();

            release.countDown();
            assertThat(loader.get(20, TimeUnit.SECONDS)).isEqualTo("v");
            assertThat(cache.getIfPresent("k")).isEqualTo("v");
        } finally {
            release.countDown();
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

    /**
     * close() while a getAll's bulk load runs: a get waiting for one of its keys gets the closed cache's
     * IllegalStateException at once; the getAll itself fails with it once the loader returns.
     */
    @Test
    void closeWhileABulkLoadRunsReleasesItsWaiters() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CacheLoader<String, String> slowBulk = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "v";
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) throws InterruptedException {
                loading.countDown();
                release.await(20, TimeUnit.SECONDS);
                return Map.of("a", "1", "b", "2");
            }
        };
        OffHeapCache<String, String> cache = builder().loader(slowBulk).build();
        try {
            CompletableFuture<Map<String, String>> all = CompletableFuture.supplyAsync(
                    () -> cache.getAll(List.of("a", "b")), runnable -> Thread.ofPlatform().daemon().start(runnable));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> waiter = CompletableFuture.supplyAsync(() -> cache.get("a"),
                    runnable -> Thread.ofPlatform().daemon().start(runnable));
            Thread.sleep(100); // waiting for the bulk load
            cache.close();
            assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            release.countDown();
            assertThatThrownBy(() -> all.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        } finally {
            release.countDown();
            cache.close();
        }
    }

    /**
     * close() while a readOrLoad's load runs: a readOrLoad waiting for it throws the closed cache's
     * IllegalStateException at once; the loading call throws it once its loader returns, its reader never run.
     */
    @Test
    void closeWhileAReadOrLoadLoadsReleasesItsWaiters() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean readerRan = new AtomicBoolean();
        OffHeapCache<String, String> cache = builder().build();
        try {
            CompletableFuture<Long> loader = CompletableFuture.supplyAsync(() -> cache.readOrLoad("k", key -> loadAfter(loading, release), segment -> {
                readerRan.set(true);
                return segment.byteSize();
            }), runnable -> Thread.ofPlatform().daemon().start(runnable));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(
                    () -> cache.readOrLoad("k", key -> "w", segment -> segment.byteSize()),
                    runnable -> Thread.ofPlatform().daemon().start(runnable));
            Thread.sleep(100); // waiting for the load
            cache.close();
            assertThatThrownBy(() -> waiter.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            release.countDown();
            assertThatThrownBy(() -> loader.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
            assertThat(readerRan).isFalse();
        } finally {
            release.countDown();
            cache.close();
        }
    }

    /** A load that says it has begun, then waits (at most 20 s) for {@code release} and gives "v". */
    private static String loadAfter(CountDownLatch loading, CountDownLatch release) {
        loading.countDown();
        try {
            release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return "v";
    }
}
