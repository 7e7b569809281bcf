package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads allocate and release at once. Every page carries a pattern unique to its holder, written on
 * allocation and checked before release; a map from address to holder proves no page is ever held twice.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MemoryManagerStressTest {
    private static final int PAGE = 4096;
    private static final int PAGES = 64;
    private static final int THREADS = 4;

    @ParameterizedTest(name = "{0}, seed {1}, {2} iterations")
    @CsvSource({"CONFINED, 11, 3000", "CONFINED, 4242, 3000", "SHARED, 17, 400"})
    void noPageIsEverHeldTwiceAndEverythingComesBack(PageAccess access, long seed, int iterations) throws Exception {
        List<String> leaks = new ArrayList<>();
        try (MemoryManager mm = MemoryManager.builder().name("stress-" + access).registerMBean(false).pageAccess(access)
                .leakReporter(leaks::add).pageSize(PAGE).totalSize((long) PAGES * PAGE).build()) {
            ConcurrentHashMap<Long, Long> holders = new ConcurrentHashMap<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong allocations = new AtomicLong();
            AtomicLong refusals = new AtomicLong();
            // SHARED: all threads allocate for one owner; CONFINED: each thread for its own
            boolean sharedOwner = access == PageAccess.SHARED;
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int threadNumber = t;
                Thread worker = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(seed * 1_000_003 + threadNumber);
                    Object owner = sharedOwner ? "shared" : "worker-" + threadNumber;
                    List<MemorySegment> held = new ArrayList<>();
                    List<Long> tags = new ArrayList<>();
                    long nextTag = ((long) threadNumber << 48) + 1;
                    try {
                        start.await();
                        for (int i = 0; i < iterations && failure.get() == null; i++) {
                            if (!held.isEmpty() && (held.size() > 24 || random.nextInt(3) == 0)) {
                                int n = 1 + random.nextInt(held.size());
                                List<MemorySegment> batch = new ArrayList<>();
                                for (int k = 0; k < n; k++) {
                                    int at = random.nextInt(held.size());
                                    MemorySegment page = held.remove(at);
                                    long tag = tags.remove(at);
                                    verify(page, tag);
                                    if (holders.remove(page.address()) != tag) {
                                        throw new AssertionError("page " + page + " lost its holder");
                                    }
                                    batch.add(page);
                                }
                                if (batch.size() == 1 || random.nextBoolean()) {
                                    batch.forEach(mm::release);
                                } else {
                                    mm.release(batch);
                                }
                                continue;
                            }
                            int n = 1 + random.nextInt(8);
                            List<MemorySegment> got;
                            try {
                                got = n == 1 && random.nextBoolean() ? List.of(mm.allocatePage(owner)) : mm.allocatePages(owner, n);
                            } catch (BudgetExceededException e) {
                                refusals.incrementAndGet();
                                continue;
                            }
                            if (got.size() != n) {
                                throw new AssertionError("asked for " + n + " pages, got " + got.size());
                            }
                            allocations.incrementAndGet();
                            for (MemorySegment page : got) {
                                long tag = nextTag++;
                                Long previous = holders.putIfAbsent(page.address(), tag);
                                if (previous != null) {
                                    throw new AssertionError("page at " + Long.toHexString(page.address())
                                            + " handed out while held (tag " + Long.toHexString(previous) + ")");
                                }
                                stamp(page, tag);
                                held.add(page);
                                tags.add(tag);
                            }
                        }
                        for (int k = 0; k < held.size(); k++) {
                            verify(held.get(k), tags.get(k));
                            holders.remove(held.get(k).address());
                        }
                        mm.release(held);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "stress-" + threadNumber);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("worker failed", failure.get());
            }
            assertThat(allocations.get()).isPositive();
            assertThat(refusals.get()).as("the manager ran full at times").isPositive();
            assertThat(mm.usedPages()).isZero();
            assertThat(mm.quarantinedPages()).isZero();
            assertThat(mm.freePages()).isEqualTo(PAGES);
            assertThat(mm.usageByOwner().values()).allMatch(v -> v == 0);
            assertThat(mm.peakUsedBytes()).isLessThanOrEqualTo(mm.totalBytes());

            // every page can be allocated again, once
            List<MemorySegment> all = mm.allocatePages("final", PAGES);
            MemoryManagerConformanceTest.assertDistinct(all);
            for (int i = 0; i < all.size(); i++) {
                stamp(all.get(i), i);
            }
            for (int i = 0; i < all.size(); i++) {
                verify(all.get(i), i);
            }
            assertThat(mm.usedBytes()).isEqualTo(mm.totalBytes());
            mm.release(all);
            assertThat(mm.usedPages()).isZero();
        }
        assertThat(leaks).isEmpty();
    }

    /** Concurrent release of the same page: one wins, the other gets IllegalStateException, and the pool stays right. */
    @Test
    void concurrentDoubleReleaseIsDetected() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().name("double-release").registerMBean(false)
                .pageAccess(PageAccess.SHARED).pageSize(PAGE).totalSize(8L * PAGE).build()) {
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            for (int round = 0; round < 200 && unexpected.get() == null; round++) {
                MemorySegment page = mm.allocatePage("a");
                CountDownLatch go = new CountDownLatch(1);
                AtomicLong successes = new AtomicLong();
                AtomicLong detected = new AtomicLong();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    Thread thread = new Thread(() -> {
                        try {
                            go.await();
                            mm.release(page);
                            successes.incrementAndGet();
                        } catch (IllegalStateException e) {
                            detected.incrementAndGet();
                        } catch (Throwable e) {
                            unexpected.compareAndSet(null, e);
                        }
                    });
                    threads.add(thread);
                    thread.start();
                }
                go.countDown();
                for (Thread thread : threads) {
                    thread.join();
                }
                if (unexpected.get() == null) {
                    assertThat(successes.get()).as("round " + round).isEqualTo(1);
                    assertThat(detected.get()).as("round " + round).isEqualTo(1);
                }
            }
            if (unexpected.get() != null) {
                throw new AssertionError("a concurrent double release threw something other than IllegalStateException",
                        unexpected.get());
            }
            assertThat(mm.usedPages()).isZero();
            MemoryManagerConformanceTest.assertDistinct(mm.allocatePages("b", 8));
        }
    }

    private static void stamp(MemorySegment page, long tag) {
        for (long offset = 0; offset < page.byteSize(); offset += 8) {
            page.set(ValueLayout.JAVA_LONG, offset, tag ^ offset);
        }
    }

    private static void verify(MemorySegment page, long tag) {
        for (long offset = 0; offset < page.byteSize(); offset += 8) {
            long found = page.get(ValueLayout.JAVA_LONG, offset);
            if (found != (tag ^ offset)) {
                throw new AssertionError("page at " + Long.toHexString(page.address()) + " offset " + offset
                        + " holds " + Long.toHexString(found) + ", expected tag " + Long.toHexString(tag)
                        + ": another holder wrote into it");
            }
        }
    }
}
