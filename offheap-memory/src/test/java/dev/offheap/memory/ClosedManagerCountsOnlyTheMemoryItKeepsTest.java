package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

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

    /** A worker thread that has allocated one page for each owner and waits to end. */
    private static MemoryManagerConformanceTest.Worker holder(MemoryManager mm, String... owners) throws InterruptedException {
        return MemoryManagerConformanceTest.Worker.start(() -> {
            for (String owner : owners) {
                mm.allocatePage(owner).fill((byte) 1);
            }
        }, () -> { });
    }

    @Test
    void aQuarantinedPageThatCloseFreesIsNoLongerCounted() throws Exception {
        MemoryManager mm = newManager();
        MemoryManagerConformanceTest.Worker holder = holder(mm, "worker");
        mm.releaseAll("worker"); // confined to the live holder: quarantined
        assertThat(mm.quarantinedPages()).isEqualTo(1);
        assertThat(mm.usedBytes()).isEqualTo(PAGE);
        holder.finish();

        mm.close(); // the holder has ended: its page is revoked and freed with the rest
        assertThat(mm.quarantinedPages()).as("quarantined pages after a close that freed them").isZero();
        assertThat(mm.usedBytes()).isZero();
        assertThat(mm.usedPages()).isZero();
        assertThat(reports).as("nothing was kept").isEmpty();
    }

    @Test
    void pagesThatCloseKeepsForALiveThreadAreCountedUntilTheirMemoryIsFreed() throws Exception {
        MemoryManager mm = newManager();
        MemoryManagerConformanceTest.Worker holder = holder(mm, "held", "dropped");
        mm.releaseAll("dropped");
        assertThat(mm.quarantinedPages()).isEqualTo(1);

        mm.close(); // the holder is alive: neither its held page nor its quarantined one can be revoked here
        assertThat(reports).singleElement().asString().contains("2 pages confined to live threads are kept");
        assertThat(mm.quarantinedPages()).as("pages whose memory close kept").isEqualTo(2);
        assertThat(mm.usedBytes()).as("bytes close kept").isEqualTo(2L * PAGE);
        assertThat(mm.usedPages()).as("held by no owner").isZero();
        assertThat(mm.toString()).contains("used 8.0 KiB");

        holder.finish();
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
