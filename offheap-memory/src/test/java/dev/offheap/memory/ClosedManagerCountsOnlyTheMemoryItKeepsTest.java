package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a closed manager says it still holds: {@link MemoryManager#quarantinedPages()} and
 * {@link MemoryManager#usedBytes()} after {@link MemoryManager#close()}. close() frees every page it can
 * revoke, quarantined ones included, and keeps the memory of pages confined to a live thread until that
 * thread has ended. Before the fix quarantinedPages() went on counting the pages quarantined before close,
 * which close had freed, and counted none of the pages close kept, whose memory usedBytes() (0 once the
 * budget was closed) did not count either.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClosedManagerCountsOnlyTheMemoryItKeepsTest {
    private static final int PAGE = 4096;

    private final List<String> reports = new CopyOnWriteArrayList<>();

    private MemoryManager newManager() {
        return MemoryManager.builder().registerMBean(false).leakReporter(reports::add)
                .pageAccess(PageAccess.CONFINED).pageSize(PAGE).totalSize(8L * PAGE).build();
    }

    /** A thread that allocates one page for each owner, then waits until it is let go. */
    private static final class Holder {
        final CountDownLatch allocated = new CountDownLatch(1);
        final CountDownLatch mayEnd = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread;

        static Holder start(MemoryManager mm, String... owners) throws InterruptedException {
            Holder holder = new Holder();
            CountDownLatch allocated = holder.allocated;
            CountDownLatch mayEnd = holder.mayEnd;
            AtomicReference<Throwable> failure = holder.failure;
            // the thread's task references neither the holder nor a page after it ends: nothing keeps the
            // Thread reachable once the test lets go of it
            holder.thread = Thread.ofPlatform().start(() -> {
                try {
                    for (String owner : owners) {
                        MemorySegment page = mm.allocatePage(owner);
                        page.fill((byte) 1);
                    }
                } catch (Throwable e) {
                    failure.set(e);
                } finally {
                    allocated.countDown();
                }
                try {
                    mayEnd.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            allocated.await();
            assertThat(failure.get()).as("the holder's allocations").isNull();
            return holder;
        }

        void end() throws InterruptedException {
            mayEnd.countDown();
            thread.join(10_000);
            assertThat(thread.isAlive()).isFalse();
            thread = null;
        }
    }

    @Test
    void aQuarantinedPageThatCloseFreesIsNoLongerCounted() throws Exception {
        MemoryManager mm = newManager();
        Holder holder = Holder.start(mm, "worker");
        mm.releaseAll("worker"); // confined to the live holder: quarantined
        assertThat(mm.quarantinedPages()).isEqualTo(1);
        assertThat(mm.usedBytes()).isEqualTo(PAGE);
        holder.end();

        mm.close(); // the holder has ended: its page is revoked and freed with the rest
        assertThat(mm.quarantinedPages()).as("quarantined pages after a close that freed them").isZero();
        assertThat(mm.usedBytes()).isZero();
        assertThat(mm.usedPages()).isZero();
        assertThat(reports).as("nothing was kept").isEmpty();
    }

    @Test
    void pagesThatCloseKeepsForALiveThreadAreCountedUntilTheirMemoryIsFreed() throws Exception {
        MemoryManager mm = newManager();
        Holder holder = Holder.start(mm, "held", "dropped");
        mm.releaseAll("dropped");
        assertThat(mm.quarantinedPages()).isEqualTo(1);

        mm.close(); // the holder is alive: neither its held page nor its quarantined one can be revoked here
        assertThat(reports).singleElement().asString().contains("2 pages confined to live threads are kept");
        assertThat(mm.quarantinedPages()).as("pages whose memory close kept").isEqualTo(2);
        assertThat(mm.usedBytes()).as("bytes close kept").isEqualTo(2L * PAGE);
        assertThat(mm.usedPages()).as("held by no owner").isZero();
        assertThat(mm.toString()).contains("used 8.0 KiB");

        holder.end();
        holder = null;
        // the kept memory is freed once the ended thread is collected
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (mm.quarantinedPages() != 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(mm.quarantinedPages()).as("kept pages after their thread ended and was collected").isZero();
        assertThat(mm.usedBytes()).isZero();
    }
}
