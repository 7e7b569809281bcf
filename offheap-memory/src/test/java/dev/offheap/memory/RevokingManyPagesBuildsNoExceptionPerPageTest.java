package dev.offheap.memory;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * releaseAll, close and the recycling of quarantined pages revoke every page of a {@link PageAccess#CONFINED}
 * manager that another thread allocated. The JDK does not let a confined scope be closed from another thread:
 * each attempt builds a new WrongThreadException, stack trace and all. Before the fix each of these loops
 * tried, and caught the exception, for every page: a releaseAll of 2,000 pages of an ended thread built
 * 2,000 exceptions (about a microsecond each, and garbage: a releaseAll of 10,000 pages took 10 ms, now 1 ms),
 * and so did a close, whether their thread had ended (the page is freed) or was alive (its memory is kept).
 * Now the thread is checked first and no exception is built. JFR's jdk.JavaExceptionThrow event, emitted by every Throwable constructor while it
 * is enabled, counts them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RevokingManyPagesBuildsNoExceptionPerPageTest {
    private static final int PAGE = 4096;
    private static final int PAGES = 2_000;

    @TempDir
    Path tempDir;

    private final List<String> reports = new CopyOnWriteArrayList<>();

    private MemoryManager newManager() {
        return MemoryManager.builder().registerMBean(false).leakReporter(reports::add)
                .pageAccess(PageAccess.CONFINED).pageSize(PAGE).totalSize((long) PAGES * PAGE).build();
    }

    /** A worker thread that has allocated {@code count} pages for {@code owner} and waits to end. */
    private static MemoryManagerConformanceTest.Worker allocateOnAnotherThread(MemoryManager mm, String owner, int count)
            throws InterruptedException {
        return MemoryManagerConformanceTest.Worker.start(() -> mm.allocatePages(owner, count), () -> { });
    }

    private static void allocatedByAnEndedThread(MemoryManager mm, String owner, int count) throws InterruptedException {
        allocateOnAnotherThread(mm, owner, count).finish();
    }

    /** Runs {@code action} on this thread and counts the WrongThreadExceptions built on it meanwhile. */
    private long wrongThreadExceptionsBuiltBy(ThrowingRunnable action) throws Exception {
        Path dump = tempDir.resolve("exceptions-" + System.nanoTime() + ".jfr");
        Thread self = Thread.currentThread();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.JavaExceptionThrow").withoutStackTrace();
            recording.start();
            action.run();
            recording.stop();
            recording.dump(dump);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(dump);
        return events.stream()
                .filter(e -> e.getEventType().getName().equals("jdk.JavaExceptionThrow"))
                .filter(e -> e.getThread() != null && e.getThread().getJavaThreadId() == self.threadId())
                .filter(e -> e.getClass("thrownClass").getName().equals(WrongThreadException.class.getName()))
                .count();
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void releaseAllOfPagesOfAnEndedThread() throws Exception {
        try (MemoryManager mm = newManager()) {
            allocatedByAnEndedThread(mm, "worker", PAGES);
            long built = wrongThreadExceptionsBuiltBy(() -> mm.releaseAll("worker"));
            assertThat(built).as("WrongThreadExceptions built by a releaseAll of %d pages", PAGES).isZero();
            assertThat(mm.usedPages()).isZero();
            assertThat(mm.quarantinedPages()).isZero();
            assertThat(mm.freePages()).isEqualTo(PAGES);
        }
        assertThat(reports).isEmpty();
    }

    @Test
    void closeWithPagesOfAnEndedThread() throws Exception {
        MemoryManager mm = newManager();
        allocatedByAnEndedThread(mm, "worker", PAGES);
        long built = wrongThreadExceptionsBuiltBy(mm::close);
        assertThat(built).as("WrongThreadExceptions built by a close that frees %d pages", PAGES).isZero();
        assertThat(reports).singleElement().asString().contains("worker: " + PAGES + " pages")
                .doesNotContain("kept");
    }

    @Test
    void closeWithPagesOfALiveThread() throws Exception {
        MemoryManager mm = newManager();
        MemoryManagerConformanceTest.Worker worker = allocateOnAnotherThread(mm, "worker", PAGES);
        try {
            long built = wrongThreadExceptionsBuiltBy(mm::close);
            assertThat(built).as("WrongThreadExceptions built by a close that keeps %d pages", PAGES).isZero();
            assertThat(reports).singleElement().asString()
                    .contains(PAGES + " pages confined to live threads are kept");
        } finally {
            worker.finish();
        }
    }

    @Test
    void recyclingQuarantinedPagesOfAnEndedThread() throws Exception {
        try (MemoryManager mm = newManager()) {
            MemoryManagerConformanceTest.Worker worker = allocateOnAnotherThread(mm, "worker", PAGES);
            mm.releaseAll("worker"); // the thread is alive: every page is quarantined
            assertThat(mm.quarantinedPages()).isEqualTo(PAGES);
            worker.finish(); // the thread has ended
            long built = wrongThreadExceptionsBuiltBy(() -> {
                List<MemorySegment> pages = mm.allocatePages("next", PAGES); // needs the quarantined pages back
                mm.release(pages);
            });
            assertThat(built).as("WrongThreadExceptions built recycling %d quarantined pages", PAGES).isZero();
            assertThat(mm.quarantinedPages()).isZero();
        }
        assertThat(reports).isEmpty();
    }
}
