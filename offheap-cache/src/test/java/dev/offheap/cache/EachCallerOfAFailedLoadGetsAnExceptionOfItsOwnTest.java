package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A load whose value the cache cannot store (over the entry limit) fails the loading caller with that
 * failure, and each caller that waited for the load with a {@link CacheLoadException} of its own whose
 * cause it is. The waiters were thrown the loading thread's exception object itself: one object, with the
 * loading thread's stack trace, thrown in several threads at once. The same for a close during the load:
 * each waiter throws an IllegalStateException of its own.
 */
class EachCallerOfAFailedLoadGetsAnExceptionOfItsOwnTest {
    private static final String TOO_LARGE = "x".repeat(4096);

    private static OffHeapCache<String, String> cache(CacheLoader<String, String> loader) {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20)
                .maxEntryBytes(1024).loader(loader).build();
    }

    @Test
    void theWaitersOfALoadWhoseValueIsTooLargeGetACacheLoadExceptionEachWithTheFailureAsCause() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OffHeapCache<String, String> cache = cache(key -> TOO_LARGE)) {
            CompletableFuture<Throwable> loader = failureOf(() -> cache.get("k", key -> loadAfter(loading, release)));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            Waiter first = new Waiter(() -> cache.get("k", key -> "the first waiter's own"));
            Waiter second = new Waiter(() -> cache.readOrLoad("k", key -> "the second waiter's own",
                    segment -> segment.byteSize()));
            first.awaitWaiting();
            second.awaitWaiting();
            release.countDown();

            Throwable original = loader.get(20, TimeUnit.SECONDS);
            assertThat(original).isInstanceOf(ValueTooLargeException.class);
            for (Throwable waited : List.of(first.failure(), second.failure())) {
                assertThat(waited).isInstanceOf(CacheLoadException.class).isNotSameAs(original)
                        .hasMessageContaining("k");
                assertThat(waited.getCause()).isSameAs(original);
            }
            assertThat(first.failure()).isNotSameAs(second.failure());
            assertThat(cache.getIfPresent("k")).isNull();
        }
    }

    /** As the table in docs/cache.md has it: the loading caller gets the Error as it is, the waiter a wrapper. */
    @Test
    void theWaiterOfALoaderThatThrowsAnErrorGetsACacheLoadExceptionWithTheErrorAsCause() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OffHeapCache<String, String> cache = cache(key -> "v")) {
            CompletableFuture<Throwable> loader = failureOf(() -> cache.get("k", key -> {
                loadAfter(loading, release);
                throw new AssertionError("the loader's own failure");
            }));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            Waiter waiter = new Waiter(() -> cache.get("k"));
            waiter.awaitWaiting();
            release.countDown();

            Throwable original = loader.get(20, TimeUnit.SECONDS);
            assertThat(original).isInstanceOf(AssertionError.class);
            assertThat(waiter.failure()).isInstanceOf(CacheLoadException.class);
            assertThat(waiter.failure().getCause()).isSameAs(original);
        }
    }

    @Test
    void theWaitersOfABulkLoadWhoseValueIsTooLargeGetACacheLoadExceptionWithTheFailureAsCause() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CacheLoader<String, String> bulk = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "v";
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                loadAfter(loading, release);
                return Map.of("a", TOO_LARGE, "b", TOO_LARGE);
            }
        };
        try (OffHeapCache<String, String> cache = cache(bulk)) {
            CompletableFuture<Throwable> loader = failureOf(() -> cache.getAll(List.of("a", "b")));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            Waiter waiter = new Waiter(() -> cache.get("a"));
            waiter.awaitWaiting();
            release.countDown();

            Throwable original = loader.get(20, TimeUnit.SECONDS);
            assertThat(original).isInstanceOf(ValueTooLargeException.class);
            assertThat(waiter.failure()).isInstanceOf(CacheLoadException.class).isNotSameAs(original);
            assertThat(waiter.failure().getCause()).isSameAs(original);
        }
    }

    @Test
    void theWaitersOfALoadThatACloseEndsThrowAClosedCacheExceptionEach() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OffHeapCache<String, String> cache = cache(key -> "v");
        try {
            CompletableFuture<Throwable> loader = failureOf(() -> cache.get("k", key -> {
                loadAfter(loading, release);
                return "v";
            }));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            Waiter first = new Waiter(() -> cache.get("k"));
            Waiter second = new Waiter(() -> cache.get("k"));
            first.awaitWaiting();
            second.awaitWaiting();
            cache.close();

            for (Throwable waited : List.of(first.failure(), second.failure())) {
                assertThat(waited).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            }
            assertThat(first.failure()).isNotSameAs(second.failure());
            release.countDown();
            assertThat(loader.get(20, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        } finally {
            release.countDown();
            cache.close();
        }
    }

    /** A load that says it has begun, then waits (at most 20 s) for {@code release} and gives a value too large. */
    private static String loadAfter(CountDownLatch loading, CountDownLatch release) {
        loading.countDown();
        try {
            release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return TOO_LARGE;
    }

    /** Runs {@code call} on a thread of its own; completes with what it threw, or null if it returned. */
    private static CompletableFuture<Throwable> failureOf(Supplier<?> call) {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                call.get();
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        return failure;
    }

    /** A caller on a thread of its own. */
    private static final class Waiter {
        private final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        private final Thread thread;

        Waiter(Supplier<?> call) {
            thread = Thread.ofPlatform().daemon().start(() -> {
                try {
                    call.get();
                    failure.complete(null);
                } catch (Throwable e) {
                    failure.complete(e);
                }
            });
        }

        /** Waits until the thread parks (waiting for the load), or 20 s. */
        void awaitWaiting() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }

        Throwable failure() throws Exception {
            return failure.get(20, TimeUnit.SECONDS);
        }
    }
}
