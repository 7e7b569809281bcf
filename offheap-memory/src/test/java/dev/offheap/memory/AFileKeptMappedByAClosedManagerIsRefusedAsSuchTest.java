package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A mapped manager closed while a live thread held one of its CONFINED pages keeps the mapping (and its file
 * lock) until that thread ends. A build on the file meanwhile was refused as "in use by another memory
 * manager ... close that one first": the other manager was closed already, and closing it again does nothing.
 * The refusal names the manager and says what keeps the file.
 */
class AFileKeptMappedByAClosedManagerIsRefusedAsSuchTest {
    @TempDir
    Path tempDir;

    @Test
    void aBuildOnTheFileOfAClosedManagerThatKeptAPageSaysThatManagerIsClosed() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        MemoryManager first = mapped(file).name("first-pages").leakReporter(report -> { }).build();
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            MemorySegment page = first.allocatePage("holder");
            allocated.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            first.release(page);
        });
        try {
            allocated.await();
            first.close();
            assertThat(first.quarantinedPages()).as("the live thread's page is kept").isEqualTo(1);

            Throwable refusal = catchThrowable(() -> mapped(file).build().close());

            assertThat(refusal).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("'first-pages'")
                    .hasMessageContaining("closed")
                    .hasMessageNotContaining("close that one first");
        } finally {
            done.countDown();
            holder.join();
        }
    }

    @Test
    void aBuildOnTheFileOfAnOpenManagerNamesThatManager() {
        Path file = tempDir.resolve("open.bin");
        try (MemoryManager first = mapped(file).name("open-pages").build()) {
            Throwable refusal = catchThrowable(() -> mapped(file).build().close());

            assertThat(refusal).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("in use by memory manager 'open-pages'")
                    .hasMessageContaining("close that one first");
            assertThat(first.totalPages()).isEqualTo(256);
        }
    }
}
