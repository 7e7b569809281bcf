package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * close() racing releases of reservations and of pages on other threads: whatever order they take, close
 * completes, no release throws, and the parent budget gets back exactly what the manager drew from it.
 * Before, close() read its budget's count and then released it: a release landing in between made one of
 * the two an over-release (close threw, leaving the budget open and its bytes with the parent for good,
 * or the release threw at its caller).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ManagerCloseAccountingRaceTest {

    private static final int ROUNDS = 3000;

    @Test
    void reservationsReleasedWhileCloseRunsNeverMakeItOrThemThrow() throws Exception {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        Budget parent = Budget.root("parent", 1L << 30, report -> { });
        for (int round = 0; round < ROUNDS; round++) {
            MemoryManager mm = MemoryManager.builder().name("m" + round).registerMBean(false).leakReporter(r -> { })
                    .parentBudget(parent).pageSize(4096).totalSize(1 << 20).build();
            mm.reserve("owner", 1 << 16);
            CountDownLatch started = new CountDownLatch(1);
            Thread releaser = Thread.ofPlatform().daemon().start(() -> {
                started.countDown();
                try {
                    for (int i = 0; i < 1 << 16 && !mm.isClosed(); i++) {
                        mm.releaseReservation("owner", 1);
                    }
                    while (!mm.isClosed()) {
                        Thread.onSpinWait();
                    }
                    for (int i = 0; i < 64; i++) {
                        mm.releaseReservation("owner", 1 << 20); // after close: does nothing
                    }
                } catch (RuntimeException e) {
                    failures.add("releaseReservation: " + e);
                }
            });
            started.await();
            spin(round);
            closeRecording(mm, failures);
            releaser.join(10_000);
            assertThat(parent.used()).as("bytes the parent still counts after round " + round).isZero();
        }
        assertThat(failures).as("exceptions from close() or a release racing it").isEmpty();
        parent.close();
    }

    @Test
    void pagesReleasedWhileCloseRunsNeverMakeItOrThemThrow() throws Exception {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        Budget parent = Budget.root("parent", 1L << 30, report -> { });
        for (int round = 0; round < ROUNDS; round++) {
            MemoryManager mm = MemoryManager.builder().name("m" + round).registerMBean(false).leakReporter(r -> { })
                    .pageAccess(PageAccess.SHARED).parentBudget(parent).pageSize(4096).totalSize(1 << 20).build();
            List<MemorySegment> pages = mm.allocatePages("owner", 64);
            CountDownLatch started = new CountDownLatch(1);
            AtomicReference<Thread> thread = new AtomicReference<>();
            thread.set(Thread.ofPlatform().daemon().start(() -> {
                started.countDown();
                for (MemorySegment page : pages) {
                    try {
                        mm.release(page);
                    } catch (IllegalStateException e) {
                        if (!mm.isClosed()) {
                            failures.add("release: " + e);
                        }
                        // after close the page is revoked: a refusal naming the closed manager is expected
                    } catch (RuntimeException e) {
                        failures.add("release: " + e);
                    }
                }
            }));
            started.await();
            spin(round);
            closeRecording(mm, failures);
            thread.get().join(10_000);
            assertThat(parent.used()).as("bytes the parent still counts after round " + round).isZero();
        }
        assertThat(failures).as("exceptions from close() or a release racing it").isEmpty();
        parent.close();
    }

    private static void spin(int round) {
        for (int spin = (round % 64) * 8; spin > 0; spin--) {
            Thread.onSpinWait();
        }
    }

    private static void closeRecording(MemoryManager mm, Queue<String> failures) {
        try {
            mm.close();
        } catch (RuntimeException e) {
            failures.add("close: " + e);
        }
    }
}
