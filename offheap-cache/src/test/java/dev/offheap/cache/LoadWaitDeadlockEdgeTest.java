package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Waits for another thread's load in the deadlock detection of LockHolds, in their harder cases: a reader
 * whose awaited load has ended but which has not run since (its wait still published) is no part of a
 * cycle, and a load that ends with a checked exception (thrown undeclared, as Kotlin or Lombok's
 * {@code @SneakyThrows} do) releases the threads that wait for it. Caches of one segment, so that every key
 * of a cache shares one lock; the threads are daemons and the caches are not closed before they end, so
 * that a hang fails a test instead of hanging it.
 */
class LoadWaitDeadlockEdgeTest {

    private static OffHeapCache<Long, String> cache(String name) {
        OffHeapCache<Long, String> cache = CrossCacheDeadlockTest.cache(name, null);
        cache.put(1L, name + "1");
        return cache;
    }

    /**
     * A reader of b waits for the load of 7 of a by thread l. The load ends, but the reader (a virtual
     * thread, all of whose carriers are busy) does not run at once, so its wait stays published a while.
     * Meanwhile l loads 8, whose loader writes b: it waits for the reader's lock, and the reader will release
     * it as soon as it runs. There is no cycle: the load the reader waits for is done. The search followed
     * the reader's finished load wait to l's new wait and took it for a deadlock; l, the higher thread id,
     * gave up: its load of 8 failed with a CacheLoadException caused by a "deadlock" (within about 20 ms).
     */
    @Test
    void aReaderWhoseAwaitedLoadEndedButWhichHasNotRunYetIsNoDeadlock() throws Exception {
        OffHeapCache<Long, String> a = cache("a");
        OffHeapCache<Long, String> b = cache("b");
        CountDownLatch loadOf7Registered = new CountDownLatch(1);
        AtomicReference<Object> readerResult = new AtomicReference<>();
        // first: the lower thread id, so that the loader is the one a deadlock found would fail
        Thread reader = Thread.ofVirtual().name("reader-of-b").unstarted(() -> {
            try {
                readerResult.set(b.read(1L, segment -> {
                    await(loadOf7Registered);
                    return a.get(7L, key -> "the reader's own load");
                }));
            } catch (Throwable t) {
                readerResult.set(t);
            }
        });
        AtomicBoolean spin = new AtomicBoolean(true);
        List<Thread> spinners = new ArrayList<>();
        AtomicReference<Object> loaderResult = new AtomicReference<>();
        Thread loader = new Thread(() -> {
            try {
                a.get(7L, key -> {
                    loadOf7Registered.countDown();
                    awaitInAwaitLoad(reader);
                    // every carrier busy: the reader, woken by the end of this load, cannot run for a while
                    spinners.addAll(occupyCarriers(spin));
                    return "seven";
                });
                loaderResult.set(a.get(8L, key -> {
                    b.put(2L, "from the load of 8");
                    return "eight";
                }));
            } catch (Throwable t) {
                loaderResult.set(t);
            } finally {
                spin.set(false);
            }
        }, "loader-of-a");
        loader.setDaemon(true);
        reader.start();
        loader.start();
        assertThat(loader.threadId()).isGreaterThan(reader.threadId());
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            loader.join();
            reader.join();
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }, "hung");
        assertThat(loaderResult.get()).isEqualTo("eight");
        assertThat(readerResult.get()).isEqualTo("seven");
        assertThat(b.getIfPresent(2L)).isEqualTo("from the load of 8");
        a.close();
        b.close();
    }

    /**
     * A loader that throws a checked exception undeclared: the load ended with neither a value nor a
     * failure for its waiters, which waited for its result forever; its own caller got the bare checked
     * exception instead of the documented CacheLoadException.
     */
    @Test
    void aLoadThatThrowsACheckedExceptionFailsItsWaitersAndItsCaller() throws Exception {
        OffHeapCache<Long, String> a = cache("a");
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch waiterWaits = new CountDownLatch(1);
        AtomicReference<Throwable> loaderFailure = new AtomicReference<>();
        AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
        Thread loader = daemon("loader", () -> a.get(7L, key -> {
            loading.countDown();
            await(waiterWaits);
            throw sneaky(new IOException("the source is down"));
        }), loaderFailure);
        assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
        Thread waiter = daemon("waiter", () -> a.get(7L, key -> "the waiter's own load"), waiterFailure);
        awaitInAwaitLoad(waiter);
        waiterWaits.countDown();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            loader.join();
            waiter.join();
        }, "the waiter waited for the failed load forever");
        for (Throwable failure : List.of(loaderFailure.get(), waiterFailure.get())) {
            assertThat(failure).isInstanceOf(CacheLoadException.class).hasCauseInstanceOf(IOException.class);
        }
        // nothing was stored, and the key loads again
        assertThat(a.getIfPresent(7L)).isNull();
        assertThat(a.get(7L, key -> "again")).isEqualTo("again");
        a.close();
    }

    /**
     * getAll whose store of a loaded value fails with a checked exception thrown undeclared (by the value
     * serializer): the loads it registered were never completed, and a get of such a key that waited for
     * it waited forever. Now the waiter of the key whose value could not be stored gets that failure.
     */
    @Test
    void aGetAllWhoseStoreThrowsACheckedExceptionFailsItsWaiters() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch waiterWaits = new CountDownLatch(1);
        Serializer<String> failsOnBad = new Serializer<>() {
            @Override
            public int serializedSize(String value) {
                if (value.equals("bad")) {
                    throw sneaky(new IOException("cannot serialize"));
                }
                return Serializer.strings().serializedSize(value);
            }

            @Override
            public void write(String value, MemorySegment target) {
                Serializer.strings().write(value, target);
            }

            @Override
            public String read(MemorySegment source) {
                return Serializer.strings().read(source);
            }
        };
        OffHeapCache<Long, String> a = OffHeapCache.builder(Serializer.longs(), failsOnBad).name("a")
                .capacity(1 << 20).concurrencyLevel(1).loader(new CacheLoader<Long, String>() {
                    @Override
                    public String load(Long key) {
                        return "one";
                    }

                    @Override
                    public Map<Long, String> loadAll(Set<? extends Long> keys) {
                        loading.countDown();
                        await(waiterWaits);
                        return Map.of(6L, "bad", 7L, "good");
                    }
                }).build();
        AtomicReference<Throwable> getAllFailure = new AtomicReference<>();
        AtomicReference<Throwable> waiterFailure = new AtomicReference<>();
        Thread getAll = daemon("getAll", () -> a.getAll(List.of(6L, 7L)), getAllFailure);
        assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
        Thread waiter = daemon("waiter", () -> a.get(6L), waiterFailure);
        awaitInAwaitLoad(waiter);
        waiterWaits.countDown();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            getAll.join();
            waiter.join();
        }, "the waiter waited for getAll's load forever");
        assertThat(getAllFailure.get()).isNotNull();
        // the serializer's documented failure (SerializerCheckedExceptionTest), the cause of the waiter's own
        // CacheLoadException
        assertThat(waiterFailure.get()).isInstanceOf(CacheLoadException.class)
                .hasCauseInstanceOf(SerializationException.class).hasRootCauseInstanceOf(java.io.IOException.class);
        // the other key's value was stored all the same (GetAllStoresEveryLoadedValueItCanTest)
        assertThat(a.getIfPresent(7L)).isEqualTo("good");
        a.close();
    }

    // ------------------------------------------------------------------ helpers

    /** Starts a daemon thread that keeps what its task threw. */
    private static Thread daemon(String name, Runnable task, AtomicReference<Throwable> failure) {
        Thread thread = new Thread(() -> {
            try {
                task.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Waits until {@code thread} is parked waiting for another thread's load. */
    private static void awaitInAwaitLoad(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING)
                || Arrays.stream(thread.getStackTrace()).noneMatch(frame -> frame.getMethodName().equals("awaitLoad"))) {
            assertThat(System.nanoTime()).as("%s never waited for the load", thread.getName()).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /**
     * Starts a virtual thread per carrier of the virtual threads' scheduler (one per processor, unless set
     * otherwise), each spinning while {@code spin} and for at most a second, and returns once they all run:
     * no other virtual thread runs meanwhile.
     */
    private static List<Thread> occupyCarriers(AtomicBoolean spin) {
        String configured = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        int carriers = configured != null ? Integer.parseInt(configured) : Runtime.getRuntime().availableProcessors();
        CountDownLatch running = new CountDownLatch(carriers);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < carriers; i++) {
            spinners.add(Thread.ofVirtual().name("spinner").start(() -> {
                running.countDown();
                while (spin.get() && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }));
        }
        await(running);
        return spinners;
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
