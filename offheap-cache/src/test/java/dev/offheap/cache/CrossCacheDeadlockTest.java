package dev.offheap.cache;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Two threads that each use the other's cache from inside a reader or compute of their own (which hold a
 * segment's lock while they run) waited for each other forever. Now one of them gets an
 * {@link IllegalStateException} naming the deadlock, the other finishes, and both caches stay usable;
 * a thread that only waits for a long reader, with no cycle, still waits and succeeds.
 */
class CrossCacheDeadlockTest {

    /** One segment, so that every key of the cache shares one lock; drawing from {@code budget} if not null. */
    static OffHeapCache<Long, String> cache(String name, Budget budget) {
        CacheBuilder<Long, String> builder = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                .name(name).capacity(1 << 20).concurrencyLevel(1);
        return budget == null ? builder.build() : builder.budget(budget).build();
    }

    /**
     * Two caches of one segment each, holding key 1, and two daemon threads. Neither the caches nor the
     * pool are closed before the threads ended: a deadlock then fails the test instead of hanging it
     * (close waits for the segment locks the threads hold).
     */
    private record TwoCaches(ExecutorService threads, OffHeapCache<Long, String> a, OffHeapCache<Long, String> b) {
        static TwoCaches open() {
            ExecutorService threads = Executors.newFixedThreadPool(2, task -> {
                Thread thread = new Thread(task);
                thread.setDaemon(true);
                return thread;
            });
            TwoCaches caches = new TwoCaches(threads, cache("a", null), cache("b", null));
            caches.a.put(1L, "a1");
            caches.b.put(1L, "b1");
            return caches;
        }

        void close() {
            threads.shutdown();
            a.close();
            b.close();
        }
    }

    /** What a thread does inside its own cache's call: the other cache's write. */
    private interface Inside {
        void run(OffHeapCache<Long, String> mine, OffHeapCache<Long, String> theirs, Runnable whenBothInside);
    }

    private static final Inside READER_WRITES_OTHER = (mine, theirs, bothInside) ->
            mine.read(1L, segment -> {
                bothInside.run();
                theirs.put(2L, "from a reader");
                return null;
            });

    private static final Inside COMPUTE_WRITES_OTHER = (mine, theirs, bothInside) ->
            mine.compute(1L, (key, old) -> {
                bothInside.run();
                theirs.put(2L, "from a compute");
                return old + "+";
            });

    @Test
    void twoReadersThatWriteEachOthersCacheEndWithOneFailure() throws Exception {
        crosswise(READER_WRITES_OTHER, READER_WRITES_OTHER);
    }

    @Test
    void twoComputesThatWriteEachOthersCacheEndWithOneFailure() throws Exception {
        crosswise(COMPUTE_WRITES_OTHER, COMPUTE_WRITES_OTHER);
    }

    @Test
    void aReaderAndAComputeThatWriteEachOthersCacheEndWithOneFailure() throws Exception {
        crosswise(READER_WRITES_OTHER, COMPUTE_WRITES_OTHER);
    }

    private static void crosswise(Inside first, Inside second) throws Exception {
        TwoCaches caches = TwoCaches.open();
        OffHeapCache<Long, String> a = caches.a();
        OffHeapCache<Long, String> b = caches.b();
        ExecutorService threads = caches.threads();
        CyclicBarrier bothInside = new CyclicBarrier(2);
        Runnable meet = () -> await(bothInside);
        List<Future<Object>> done = List.of(threads.submit(() -> first.run(a, b, meet), null),
                threads.submit(() -> second.run(b, a, meet), null));
        List<Throwable> failures = new ArrayList<>();
        awaitAll(done, new ArrayList<>(), failures, "the two threads deadlocked");
        assertThat(failures).singleElement()
                .isInstanceOf(IllegalStateException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains("deadlock").contains("cache 'a'")
                        .contains("cache 'b'"));
        // the thread that went on wrote the other cache; the one that gave up changed nothing of its own
        assertThat(a.getIfPresent(2L) != null ^ b.getIfPresent(2L) != null).isTrue();
        assertBothUsable(a, b);
        caches.close();
    }

    @Test
    void aWriteThatOnlyWaitsForALongReaderWaitsAndSucceeds() throws Exception {
        TwoCaches caches = TwoCaches.open();
        OffHeapCache<Long, String> a = caches.a();
        OffHeapCache<Long, String> b = caches.b();
        ExecutorService threads = caches.threads();
        CyclicBarrier bothInside = new CyclicBarrier(2);
        // holds b's read lock for 20 check periods of the waiter, without waiting for anything itself
        Future<?> longReader = threads.submit(() -> b.read(1L, segment -> {
            await(bothInside);
            sleep(200);
            return null;
        }));
        Future<?> writer = threads.submit(() -> a.read(1L, segment -> {
            await(bothInside);
            b.put(2L, "after the long read");
            return null;
        }));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            longReader.get();
            writer.get();
        });
        assertThat(b.getIfPresent(2L)).isEqualTo("after the long read");
        caches.close();
    }

    /**
     * A reader of b that waits for another thread's load of a key of a, whose loader writes b: the loader
     * waits for the reader's lock and the reader for the load. Both waited forever before; now one of them
     * gives up: the reader with the deadlock's IllegalStateException, or the loader, whose put fails
     * with it and whose load then fails for both (a CacheLoadException caused by it).
     */
    @Test
    void aReaderThatWaitsForALoadWhoseLoaderWritesItsCacheEndsWithOneFailure() throws Exception {
        TwoCaches caches = TwoCaches.open();
        OffHeapCache<Long, String> a = caches.a();
        OffHeapCache<Long, String> b = caches.b();
        ExecutorService threads = caches.threads();
        CyclicBarrier loading = new CyclicBarrier(2);
        CyclicBarrier readerInside = new CyclicBarrier(2);
        Future<String> loader = threads.submit(() -> a.get(7L, key -> {
            await(loading);
            await(readerInside);
            b.put(2L, "from a loader");
            return "loaded";
        }));
        Future<String> reader = threads.submit(() -> b.read(1L, segment -> {
            await(loading); // the load of 7 is registered: this get waits for it
            await(readerInside);
            return a.get(7L, key -> "the reader's own load");
        }));
        List<Throwable> failures = new ArrayList<>();
        List<String> results = new ArrayList<>();
        awaitAll(List.of(loader, reader), results, failures, "the reader and the loader deadlocked");
        assertThat(failures).as("results " + results).isNotEmpty().allSatisfy(failure -> {
            Throwable deadlock = failure instanceof CacheLoadException ? failure.getCause() : failure;
            assertThat(deadlock).isInstanceOf(IllegalStateException.class);
            assertThat(deadlock.getMessage()).contains("deadlock").contains("cache 'a'").contains("cache 'b'")
                    .contains("load");
        });
        if (failures.size() == 1) {
            // the reader gave up: the loader went on and stored its value and its write
            assertThat(results).containsExactly("loaded");
            assertThat(a.getIfPresent(7L)).isEqualTo("loaded");
            assertThat(b.getIfPresent(2L)).isEqualTo("from a loader");
        } else {
            // the loader gave up: its load failed, for the reader too, and nothing was stored
            assertThat(a.getIfPresent(7L)).isNull();
            assertThat(b.getIfPresent(2L)).isNull();
        }
        assertBothUsable(a, b);
        caches.close();
    }

    /** A reader that waits for a load that is merely long, with no cycle, waits and gets its value. */
    @Test
    void aReaderThatWaitsForALongLoadWaitsAndGetsItsValue() throws Exception {
        TwoCaches caches = TwoCaches.open();
        OffHeapCache<Long, String> a = caches.a();
        OffHeapCache<Long, String> b = caches.b();
        ExecutorService threads = caches.threads();
        CyclicBarrier loading = new CyclicBarrier(2);
        Future<String> loader = threads.submit(() -> a.get(7L, key -> {
            await(loading);
            sleep(200);
            return "loaded";
        }));
        Future<String> reader = threads.submit(() -> b.read(1L, segment -> {
            await(loading);
            return a.get(7L, key -> "the reader's own load");
        }));
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThat(loader.get()).isEqualTo("loaded");
            assertThat(reader.get()).isEqualTo("loaded");
        });
        caches.close();
    }

    @Test
    void theOwnCacheIsStillRefusedAtOnceInsideAReaderOrACompute() {
        try (OffHeapCache<Long, String> a = cache("a", null)) {
            a.put(1L, "a1");
            BiFunction<Long, String, String> writesItsOwnCache = (key, old) -> {
                a.put(2L, "x");
                return old;
            };
            assertThatThrownBy(() -> a.compute(1L, writesItsOwnCache))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("inside compute");
            assertThatThrownBy(() -> a.read(1L, segment -> {
                a.put(2L, "x");
                return null;
            })).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside read()");
            assertThat(a.getIfPresent(2L)).isNull();
            assertThat(a.getIfPresent(1L)).isEqualTo("a1");
        }
    }

    /**
     * Waits at most 20 s for every call, failing with {@code hang} if they do not end; collects what each
     * returned or threw.
     */
    private static <T> void awaitAll(List<Future<T>> calls, List<T> results, List<Throwable> failures, String hang) {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (Future<T> call : calls) {
                try {
                    results.add(call.get());
                } catch (ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
        }, hang);
    }

    /** Both caches take and give a new entry: nothing of a broken deadlock is left in them. */
    private static void assertBothUsable(OffHeapCache<Long, String> a, OffHeapCache<Long, String> b) {
        a.put(3L, "usable");
        b.put(3L, "usable");
        assertThat(a.getIfPresent(3L)).isEqualTo("usable");
        assertThat(b.getIfPresent(3L)).isEqualTo("usable");
    }

    static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
