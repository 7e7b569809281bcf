package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Page groups against releaseAll, close and native calls that hold a group's scope: every page of a group
 * must be revoked, kept or quarantined, never lost and never freed under a thread that can still reach it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReleaseAllOfUnrevocablePagesTest {

    /**
     * releaseAll of an owner whose SHARED group is in a native call: the JDK refuses to close the group's
     * scope then. Before the fix releaseAll threw IllegalStateException (not documented) after emptying the
     * page's slot: the page was neither leased nor free, so it never came back (the budget kept it), and a
     * close() that followed freed its memory while the call still used it.
     */
    @Test
    void releaseAllOfASharedGroupInANativeCallLosesNoPage() throws Exception {
        List<String> reports = new CopyOnWriteArrayList<>();
        int pages = 8;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(reports::add)
                .pageAccess(PageAccess.SHARED).pageSize(4096).totalSize(pages * 4096L).build()) {
            PageGroup group = mm.allocateGroup("sorter", 3);
            MemorySegment first = group.page(0);
            HeldInDowncall held = new HeldInDowncall(first);
            try {
                assertThatCode(() -> mm.releaseAll("sorter")).as("releaseAll documents no exception")
                        .doesNotThrowAnyException();
                // held by the call, so not handed to anyone else meanwhile
                assertThat(mm.usedPages() + mm.freePages()).isLessThanOrEqualTo(pages);
            } finally {
                held.release();
            }
            // the call returned: every page can be had again, none twice
            List<MemorySegment> all = mm.allocatePages("next", pages);
            assertThat(all.stream().map(MemorySegment::address).distinct().count()).isEqualTo(pages);
            mm.release(all);
            assertThat(mm.usedPages()).isZero();
            assertThat(mm.freePages()).isEqualTo(pages);
            assertThat(mm.quarantinedPages()).isZero();
        }
        assertThat(reports).isEmpty();
    }

    /**
     * The same, and the group's owner closes the group once the call returned: the close gives every page
     * back (none lost to the refused releaseAll).
     */
    @Test
    void aSharedGroupQuarantinedByReleaseAllDuringANativeCallCanBeClosedAfterIt() throws Exception {
        int pages = 4;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { })
                .pageAccess(PageAccess.SHARED).pageSize(4096).totalSize(pages * 4096L).build()) {
            PageGroup group = mm.allocateGroup("sorter", 2);
            HeldInDowncall held = new HeldInDowncall(group.page(1));
            try {
                assertThatCode(() -> mm.releaseAll("sorter")).doesNotThrowAnyException();
                assertThat(mm.freePages()).isEqualTo(pages - 2);
            } finally {
                held.release();
            }
            group.close();
            assertThat(group.isAlive()).isFalse();
            assertThat(mm.quarantinedPages()).isZero();
            assertThat(mm.freePages()).isEqualTo(pages);
            assertThat(mm.usedPages()).isZero();
        }
    }

    /**
     * releaseAll on one thread and close() on another while a third thread holds a CONFINED group: the
     * third thread's pages cannot be revoked from either, so close() must report them kept (its chunk is
     * not freed under them). Before the fix releaseAll emptied each slot before its refused revocation and
     * only then marked it quarantined: a close() scanning meanwhile saw no page there and freed the memory
     * the live thread still wrote.
     */
    @Test
    void closeRacingReleaseAllKeepsEveryPageOfALiveThreadsConfinedGroup() throws Exception {
        int groupPages = 64;
        int missed = 0;
        java.util.Random random = new java.util.Random(13);
        for (int round = 0; round < 200; round++) {
            List<String> reports = new CopyOnWriteArrayList<>();
            MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(reports::add)
                    .pageSize(4096).totalSize(256 * 4096L).build();
            CountDownLatch allocated = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().daemon().start(() -> {
                PageGroup group = mm.allocateGroup("holder", groupPages);
                allocated.countDown();
                try {
                    done.await(30, TimeUnit.SECONDS); // alive across releaseAll and close
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                group.close(); // after the manager's close: does nothing
            });
            assertThat(allocated.await(10, TimeUnit.SECONDS)).isTrue();
            CyclicBarrier start = new CyclicBarrier(2);
            int spins = random.nextInt(2000);
            Thread releaser = Thread.ofPlatform().daemon().start(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                    mm.releaseAll("holder");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            start.await(10, TimeUnit.SECONDS);
            for (int i = 0; i < spins; i++) {
                Thread.onSpinWait();
            }
            mm.close();
            releaser.join(10_000);
            String report = String.join("\n", reports);
            if (!report.contains(groupPages + " pages confined to live threads are kept")) {
                missed++;
            }
            done.countDown();
            holder.join(10_000);
        }
        assertThat(missed).as("rounds in which close() freed the memory of a live thread's confined group").isZero();
    }

    /**
     * A CONFINED group closed by its thread while another thread's releaseAll quarantines its pages: the
     * close must take back every page, quarantined or not, so that none stays quarantined while the thread
     * lives on (a pool thread may live as long as the manager). Before the fix a page that releaseAll
     * quarantined between the close's read of its slot and its compare-and-set (or that releaseAll had
     * emptied for a moment) was skipped, and stayed out of use until the thread ended.
     */
    @Test
    void aConfinedGroupClosedWhileReleaseAllQuarantinesItLeavesNoPageQuarantined() throws Exception {
        int pages = 256;
        int groupPages = 64;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { })
                .pageSize(4096).totalSize(pages * 4096L).build()) {
            CyclicBarrier allocated = new CyclicBarrier(2);
            CyclicBarrier roundDone = new CyclicBarrier(2);
            CyclicBarrier checked = new CyclicBarrier(2);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int rounds = 300;
            java.util.Random random = new java.util.Random(21);
            int[] spins = new int[rounds];
            for (int i = 0; i < rounds; i++) {
                spins[i] = random.nextInt(3000);
            }
            Thread worker = Thread.ofPlatform().daemon().start(() -> {
                try {
                    for (int round = 0; round < rounds; round++) {
                        PageGroup group = mm.allocateGroup("worker", groupPages);
                        allocated.await(10, TimeUnit.SECONDS);
                        for (int i = 0; i < spins[round]; i++) {
                            Thread.onSpinWait();
                        }
                        try {
                            group.close();
                        } catch (IllegalStateException takenByReleaseAll) {
                            assertThat(takenByReleaseAll).hasMessageContaining("already released");
                        }
                        roundDone.await(10, TimeUnit.SECONDS);
                        checked.await(10, TimeUnit.SECONDS);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            int stranded = 0;
            for (int round = 0; round < rounds && failure.get() == null; round++) {
                allocated.await(10, TimeUnit.SECONDS);
                mm.releaseAll("worker");
                roundDone.await(10, TimeUnit.SECONDS);
                // the worker lives on: whatever releaseAll quarantined, its close took back
                if (mm.quarantinedPages() != 0 || mm.usedPages() != 0) {
                    stranded++;
                }
                checked.await(10, TimeUnit.SECONDS);
            }
            worker.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(stranded).as("rounds that left pages of a closed group quarantined; quarantined now "
                    + mm.quarantinedPages()).isZero();
        }
    }
}
