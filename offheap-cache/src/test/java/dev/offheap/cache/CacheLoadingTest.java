package dev.offheap.cache;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** One load per key at a time: concurrent callers wait for it and share its result or its failure. */
class CacheLoadingTest {

    private static OffHeapCache<String, String> cache() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).build();
    }

    @Test
    void concurrentCallersShareOneLoad() throws Exception {
        try (OffHeapCache<String, String> cache = cache()) {
            AtomicInteger loads = new AtomicInteger();
            CountDownLatch release = new CountDownLatch(1);
            int callers = 8;
            CyclicBarrier ready = new CyclicBarrier(callers);
            List<String> results = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        ready.await();
                        results.add(cache.get("key", k -> {
                            loads.incrementAndGet();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                            return "value";
                        }));
                    } catch (Exception e) {
                        results.add("failed: " + e);
                    }
                }));
            }
            Thread.sleep(100);
            release.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(results).hasSize(callers).containsOnly("value");
            assertThat(loads.get()).isEqualTo(1);
            assertThat(cache.stats().loadSuccessCount()).isEqualTo(1);
        }
    }

    @Test
    void waitersGetTheLoadersFailureAndTheNextCallLoadsAgain() throws Exception {
        try (OffHeapCache<String, String> cache = cache()) {
            CountDownLatch loading = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> ownerFailure = new AtomicReference<>();
            Thread owner = Thread.ofPlatform().start(() -> {
                try {
                    cache.get("key", k -> {
                        loading.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                        throw new UnsupportedOperationException("backend down");
                    });
                } catch (Throwable e) {
                    ownerFailure.set(e);
                }
            });
            loading.await();
            AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
            AtomicInteger waiterLoads = new AtomicInteger();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    cache.get("key", k -> {
                        waiterLoads.incrementAndGet();
                        return "mine";
                    });
                } catch (Throwable e) {
                    waiterFailure.set(e);
                }
            });
            Thread.sleep(100);
            release.countDown();
            owner.join();
            waiter.join();
            assertThat(ownerFailure.get()).isInstanceOf(CacheLoadException.class)
                    .hasCauseInstanceOf(UnsupportedOperationException.class);
            if (waiterLoads.get() == 0) {
                assertThat(waiterFailure.get()).isInstanceOf(CacheLoadException.class)
                        .hasMessageContaining("backend down");
            }
            assertThat(cache.get("key", k -> "retry")).isIn("retry", "mine");
        }
    }

    @Test
    void getAllWaitsForALoadAnotherThreadIsRunningInsteadOfLoadingTheKeyAgain() throws Exception {
        AtomicInteger loadsOfK = new AtomicInteger();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CacheLoader<String, String> loader = key -> {
            loadsOfK.incrementAndGet();
            if (Thread.currentThread().getName().equals("first")) {
                loading.countDown();
                release.await();
            }
            return "v-" + Thread.currentThread().getName();
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(loader).build()) {
            Thread first = Thread.ofPlatform().name("first").daemon().start(() -> cache.get("k"));
            assertThat(loading.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Map<String, String>> all = CompletableFuture.supplyAsync(() -> cache.getAll(List.of("k", "j")));
            Thread.sleep(50);
            release.countDown();
            assertThat(all.get(5, TimeUnit.SECONDS)).containsEntry("k", "v-first").containsKey("j");
            first.join(5000);
            assertThat(loadsOfK.get()).as("loads of k and j, one each").isEqualTo(2);
        }
    }

    @Test
    void aKeyLeftOutOfAGetAllsLoadIsLoadedByTheGetThatWaitedForIt() throws Exception {
        CountDownLatch loadAllStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CacheLoader<String, String> loader = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "single-" + key;
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) throws Exception {
                loadAllStarted.countDown();
                release.await();
                return Map.of(); // leaves every key out
            }
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(loader).build()) {
            CompletableFuture<Map<String, String>> all = CompletableFuture.supplyAsync(() -> cache.getAll(List.of("k")));
            assertThat(loadAllStarted.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<String> single = CompletableFuture.supplyAsync(() -> cache.get("k"));
            Thread.sleep(50);
            release.countDown();
            assertThat(all.get(5, TimeUnit.SECONDS)).isEmpty();
            assertThat(single.get(5, TimeUnit.SECONDS)).isEqualTo("single-k");
        }
    }

    @Test
    void aLoaderThatThrowsAnErrorCountsAsALoadFailure() {
        CacheLoader<String, String> failingAll = new CacheLoader<>() {
            @Override
            public String load(String key) {
                throw new AssertionError("boom");
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                throw new AssertionError("boom all");
            }
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).recordStats(true).loader(failingAll).build()) {
            assertThatThrownBy(() -> cache.get("k", k -> {
                throw new AssertionError("boom");
            })).isInstanceOf(AssertionError.class);
            assertThat(cache.stats().loadFailureCount()).isEqualTo(1);
            assertThatThrownBy(() -> cache.getAll(List.of("a", "b"))).isInstanceOf(AssertionError.class);
            assertThat(cache.stats().loadFailureCount()).isEqualTo(2);
            assertThatThrownBy(() -> cache.get("k")).as("the failed loads left nothing running")
                    .isInstanceOf(AssertionError.class);
        }
    }
}
