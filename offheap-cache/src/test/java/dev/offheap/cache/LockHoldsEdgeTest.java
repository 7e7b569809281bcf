package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.StampedLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The deadlock detection among threads that hold a segment lock across a reader or compute (LockHolds)
 * in its harder cases: a close that is the one chosen to give up, a read that waits behind a queued
 * writer, and a deadlock beside many waiting threads. Caches of one segment, so that every key of a
 * cache shares one lock; threads are daemons and the caches are not closed before they end, so that a deadlock fails a test instead of hanging it.
 */
class LockHoldsEdgeTest {

    private static OffHeapCache<Long, String> cache(String name, Budget budget) {
        return CrossCacheDeadlockTest.cache(name, budget);
    }

    /** A started daemon thread that keeps what its task threw. */
    private static Thread start(String name, Runnable task, AtomicReference<Throwable> failure) {
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

    /**
     * close() of cache a from inside a reader of b, while another thread inside a reader of a writes b:
     * close waits for that reader's lock, which waits for the closer's. The closer has the higher thread id,
     * so it is the one that gives up. Its close threw, the cache stayed closed, and what close had not done
     * yet was never done: the regions stayed allocated and the capacity charged to the budget for good (the
     * cleanable had run, so not even the collector gives them back).
     */
    @Test
    void aCloseThatGivesUpADeadlockStillReleasesTheCachesMemory() throws Exception {
        try (Budget budget = Budget.root("lock-holds", 8 << 20)) {
            OffHeapCache<Long, String> a = cache("a", budget);
            OffHeapCache<Long, String> b = cache("b", null);
            a.put(1L, "a1");
            b.put(1L, "b1");
            CyclicBarrier bothInside = new CyclicBarrier(2);
            AtomicReference<Throwable> readerFailure = new AtomicReference<>();
            AtomicReference<Throwable> closerFailure = new AtomicReference<>();
            // created first: the lower thread id, the one that goes on
            Thread reader = start("reader-of-a", () -> a.read(1L, segment -> {
                await(bothInside);
                b.put(2L, "from a reader of a");
                return null;
            }), readerFailure);
            Thread closer = start("closer-of-a", () -> b.read(1L, segment -> {
                await(bothInside);
                a.close();
                return null;
            }), closerFailure);
            assertThat(closer.threadId()).isGreaterThan(reader.threadId());
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                reader.join();
                closer.join();
            }, "deadlocked");
            assertThat(readerFailure.get()).isNull();
            assertThat(b.getIfPresent(2L)).isEqualTo("from a reader of a");
            assertThat(a.isClosed()).isTrue();
            // whether or not the close reported the deadlock, the closed cache's memory is given back
            assertThat(waitUntilZero(budget)).as("capacity still charged after close: %s (close threw %s)",
                    budget.used(), closerFailure.get()).isZero();
            b.close();
        }
    }

    /**
     * A read that waits through LockHolds (its thread inside a reader of b) for a's lock queued behind a
     * writer of a, and StampedLock's timed tryReadLock does not pass a queued writer. That writer waits for a
     * reader of a which waits to write b: a deadlock of three, but LockHolds takes a held read lock for no
     * obstacle to a read, so it saw no cycle and all three waited forever.
     *
     * <p>The reader of a got its read lock past the queued writer: a writer that takes the lock first and
     * then turns it into a read lock stands in for a reader that barges in between a writer's release and the
     * wake-up of the writer queued behind it (a race of microseconds, too rare for a test).
     */
    @Test
    void aReadQueuedBehindAWriterThatWaitsForTheCycleIsNoHiddenDeadlock() throws Exception {
        OffHeapCache<Long, String> a = cache("a", null);
        OffHeapCache<Long, String> b = cache("b", null);
        a.put(1L, "a1");
        b.put(1L, "b1");
        StampedLock lockOfA = lockOf(a);
        long written = lockOfA.writeLock();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        AtomicReference<Throwable> readerOfBFailure = new AtomicReference<>();
        AtomicReference<Throwable> readerOfAFailure = new AtomicReference<>();
        Thread writer = start("writer-of-a", () -> a.put(5L, "w"), writerFailure);
        awaitParked(writer);
        CountDownLatch insideB = new CountDownLatch(1);
        Thread readerOfB = start("reader-of-b", () -> b.read(1L, segment -> {
            insideB.countDown();
            return a.read(1L, value -> "read a");
        }), readerOfBFailure);
        assertThat(insideB.await(10, TimeUnit.SECONDS)).isTrue();
        awaitParked(readerOfB);
        // now queued behind the writer: the lock passes from the "barging writer" to a reader of a
        long read = lockOfA.tryConvertToReadLock(written);
        assertThat(read).isNotZero();
        CountDownLatch insideA = new CountDownLatch(1);
        CountDownLatch barged = new CountDownLatch(1);
        Thread readerOfA = start("reader-of-a", () -> a.read(1L, segment -> {
            insideA.countDown();
            await(barged);
            b.put(2L, "from a reader of a");
            return null;
        }), readerOfAFailure);
        assertThat(insideA.await(10, TimeUnit.SECONDS)).isTrue();
        lockOfA.unlockRead(read);
        barged.countDown();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            readerOfA.join();
            readerOfB.join();
            writer.join();
        }, "the reader of a, the reader of b and the writer of a deadlocked");
        // a deadlock found would have failed one of the readers; none was needed: the read may pass the writer
        assertThat(readerOfAFailure.get()).isNull();
        assertThat(readerOfBFailure.get()).isNull();
        assertThat(writerFailure.get()).isNull();
        assertThat(b.getIfPresent(2L)).isEqualTo("from a reader of a");
        assertThat(a.getIfPresent(5L)).isEqualTo("w");
        a.close();
        b.close();
    }

    /**
     * A deadlock of two readers (m reads a and writes x, c reads x and writes a) beside threads that merely
     * wait: chains of readers, {@value #WIDE} a layer and {@value #DEEP} layers deep, each reading one cache
     * and writing the next, the last layer waiting for a long reader, hang off both a and x. The search for
     * a cycle walked every path of waits, with no memory of the waiters it had already found to lead nowhere:
     * {@value #WIDE} to the power {@value #DEEP} paths per look, every 10 ms, by every waiter. The deadlock
     * was not broken for seconds (7.6 s here; each layer more multiplies it by {@value #WIDE}), and the
     * waiters kept the cores busy meanwhile; one look at each waiter is enough. (With one chance in
     * {@value #WIDE} the search happens to try c first and the test passes on the old code too.)
     */
    @Test
    void aDeadlockBesideManyWaitersIsFoundAtOnce() throws Exception {
        OffHeapCache<Long, String> a = cache("a", null);
        OffHeapCache<Long, String> x = cache("x", null);
        CountDownLatch endLongReads = new CountDownLatch(1);
        java.util.List<Thread> waiters = new java.util.ArrayList<>();
        java.util.List<OffHeapCache<Long, String>> caches = new java.util.ArrayList<>(java.util.List.of(a, x));
        AtomicReference<Throwable> ignored = new AtomicReference<>();
        try {
            a.put(1L, "a1");
            x.put(1L, "x1");
            for (OffHeapCache<Long, String> top : java.util.List.of(a, x)) {
                // top <- layer 1 reads top and writes chain[1] ... <- the last layer writes chain[DEEP], read long
                java.util.List<OffHeapCache<Long, String>> chain = new java.util.ArrayList<>();
                chain.add(top);
                for (int layer = 1; layer <= DEEP; layer++) {
                    OffHeapCache<Long, String> next = cache((top == a ? "a" : "x") + layer, null);
                    next.put(1L, "v");
                    chain.add(next);
                    caches.add(next);
                }
                CountDownLatch longReadInside = new CountDownLatch(1);
                waiters.add(start("long reader", () -> chain.getLast().read(1L, segment -> {
                    longReadInside.countDown();
                    await(endLongReads);
                    return null;
                }), ignored));
                assertThat(longReadInside.await(10, TimeUnit.SECONDS)).isTrue();
                // from the bottom up, so that each layer finds the next cache held and waits
                for (int layer = DEEP - 1; layer >= 0; layer--) {
                    CountDownLatch inside = new CountDownLatch(WIDE);
                    OffHeapCache<Long, String> read = chain.get(layer);
                    OffHeapCache<Long, String> written = chain.get(layer + 1);
                    for (int i = 0; i < WIDE; i++) {
                        waiters.add(start("waiter", () -> read.read(1L, segment -> {
                            inside.countDown();
                            written.put(2L, "w");
                            return null;
                        }), ignored));
                    }
                    assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
                }
            }
            CyclicBarrier bothInside = new CyclicBarrier(2);
            AtomicReference<Throwable> cFailure = new AtomicReference<>();
            AtomicReference<Throwable> mFailure = new AtomicReference<>();
            Thread c = start("c", () -> x.read(1L, segment -> {
                await(bothInside);
                a.put(2L, "from c");
                return null;
            }), cFailure);
            waiters.add(c);
            // created last: the highest thread id, the one that gives up
            Thread m = start("m", () -> a.read(1L, segment -> {
                await(bothInside);
                x.put(2L, "from m");
                return null;
            }), mFailure);
            waiters.add(m);
            // 20 ms once found; it took 7.6 s here (three runs: 8.3 s with 8 waiters a layer, 7 layers)
            assertTimeoutPreemptively(Duration.ofSeconds(3), () -> m.join(), "the deadlock of m and c stayed");
            assertThat(mFailure.get()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("deadlock").hasMessageContaining("cache 'a'").hasMessageContaining("cache 'x'");
            assertThat(cFailure.get()).isNull();
        } finally {
            endLongReads.countDown();
            for (Thread waiter : waiters) {
                waiter.join(TimeUnit.SECONDS.toMillis(60));
            }
        }
        assertThat(x.getIfPresent(2L)).isNull();
        assertThat(a.getIfPresent(2L)).isEqualTo("from c");
        caches.forEach(OffHeapCache::close);
    }

    private static final int WIDE = 32;
    private static final int DEEP = 4;

    // ------------------------------------------------------------------ helpers

    private static StampedLock lockOf(OffHeapCache<?, ?> cache) throws ReflectiveOperationException {
        Field shardsField = OffHeapCacheImpl.class.getDeclaredField("shards");
        shardsField.setAccessible(true);
        Object shard = ((Object[]) shardsField.get(cache))[0];
        Field lockField = shard.getClass().getDeclaredField("lock");
        lockField.setAccessible(true);
        return (StampedLock) lockField.get(shard);
    }

    /** Waits until the thread parks (after its spins) and a little more, so that it is queued. */
    private static void awaitParked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("%s never parked", thread.getName()).isLessThan(deadline);
            Thread.onSpinWait();
        }
        Thread.sleep(30);
    }

    private static long waitUntilZero(Budget budget) throws InterruptedException {
        for (int i = 0; i < 200 && budget.used() != 0; i++) {
            Thread.sleep(10);
        }
        return budget.used();
    }

    private static void await(CyclicBarrier barrier) {
        CrossCacheDeadlockTest.await(barrier);
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
