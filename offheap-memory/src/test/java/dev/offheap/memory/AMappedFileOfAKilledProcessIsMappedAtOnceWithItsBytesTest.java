package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.AFileMappedByAnotherProcessIsRefusedAsInUseTest.holdInAnotherProcess;
import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What docs/memory.md says of a mapped file whose process was killed (SIGKILL, no close): the system drops
 * the manager's lock with the process, so a new manager maps the file at once, and the file keeps the
 * bytes the pages held, which the new manager's pages show.
 */
class AMappedFileOfAKilledProcessIsMappedAtOnceWithItsBytesTest {
    @TempDir
    Path tempDir;

    @Test
    void aNewManagerMapsTheFileOfAKilledProcessAtOnceAndSeesWhatItsPagesHeld() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        Process holder = holdInAnotherProcess(file, 1L << 20);
        holder.destroyForcibly();
        assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        try (MemoryManager again = mapped(file, 1L << 20).build()) {
            List<MemorySegment> pages = again.allocatePages("reader", again.totalPages());
            assertThat(pages.stream().filter(page -> page.get(ValueLayout.JAVA_LONG, 0) == 77L))
                    .as("the killed process's page, with the long it wrote").hasSize(1);
            again.releaseAll("reader");
        }
    }
}
