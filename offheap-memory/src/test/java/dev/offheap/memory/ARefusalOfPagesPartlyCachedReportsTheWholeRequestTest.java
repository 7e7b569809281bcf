package dev.offheap.memory;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * allocatePages takes what it can from the thread's cache of free pages first and asks the budget for the rest.
 * Refused, it reported the rest as the request (a request for 5 pages of which 4 were cached: "cannot give 1 page",
 * requested 4 KiB in the exception and in the PageAllocationFailed event) and counted the cached pages it had
 * taken, which go back to the pool, as used (used 64 KiB with 48 KiB held). The refusal names the pages asked for
 * and the bytes in use without those, what {@link MemoryManager#usedBytes()} says once it has thrown.
 */
class ARefusalOfPagesPartlyCachedReportsTheWholeRequestTest {
    @TempDir
    Path tempDir;

    @Test
    void theExceptionAndTheEventNameTheWholeRequestAndTheBytesInUse() throws Exception {
        Path dump = tempDir.resolve("refusal.jfr");
        BudgetExceededException refusal;
        long usedAfter;
        try (Recording recording = new Recording()) {
            recording.enable("dev.offheap.PageAllocationFailed");
            recording.start();
            try (MemoryManager mm = MemoryManager.builder().name("partly-cached").registerMBean(false).pageSize(4096)
                    .totalSize(16 * 4096).pageAccess(PageAccess.SHARED).build()) {
                mm.allocatePages("holder", 12);
                // a single page takes a batch from the pool: released, this thread caches the 4 free pages
                mm.release(mm.allocatePage("probe"));
                assertThat(mm.freePages()).isEqualTo(4);
                assertThat(mm.usedBytes()).isEqualTo(12 * 4096);

                refusal = catchThrowableOfType(BudgetExceededException.class, () -> mm.allocatePages("sorter", 5));
                usedAfter = mm.usedBytes();
                assertThat(mm.freePages()).isEqualTo(4);
                assertThat(mm.allocationFailures()).isEqualTo(1);
            }
            recording.stop();
            recording.dump(dump);
        }
        assertThat(usedAfter).isEqualTo(12 * 4096);
        assertThat(refusal.getMessage()).contains("cannot give 5 pages (20.0 KiB) to owner 'sorter'")
                .contains("used 48.0 KiB (12 of 16 pages held)");
        assertThat(refusal.requestedBytes()).isEqualTo(5 * 4096);
        assertThat(refusal.usedBytes()).isEqualTo(12 * 4096);
        List<RecordedEvent> events = RecordingFile.readAllEvents(dump).stream()
                .filter(e -> e.getEventType().getName().equals("dev.offheap.PageAllocationFailed")).toList();
        assertThat(events).hasSize(1);
        assertThat(events.getFirst().getLong("requestedBytes")).isEqualTo(5 * 4096);
        assertThat(events.getFirst().getLong("usedBytes")).isEqualTo(12 * 4096);
    }
}
