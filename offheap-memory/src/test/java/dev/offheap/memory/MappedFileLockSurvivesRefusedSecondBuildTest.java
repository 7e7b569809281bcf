package dev.offheap.memory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped manager's lock on its file is what keeps a manager in another process from mapping the same
 * bytes. It was a POSIX lock, which the system drops when the process closes any descriptor of the file:
 * a second build on the file in the same JVM opened it (and FileSpace opened it again), was refused, and
 * closed its descriptors, and with them dropped the first manager's lock, so that another process could
 * then map the file the first manager was still handing out. (On Linux it is now an open file
 * description's lock, which other descriptors' closing leaves alone; where there is none, still POSIX's.)
 */
class MappedFileLockSurvivesRefusedSecondBuildTest {
    @TempDir
    Path tempDir;

    /**
     * @return the locks on the file's inode this process holds: its POSIX locks (the lines of /proc/locks with its
     *         pid) and the open file descriptions' locks of its descriptors (/proc/self/fdinfo, as /proc/locks gives
     *         those no pid)
     */
    private static List<String> locksOf(Path file) throws IOException {
        long inode = (Long) Files.getAttribute(file, "unix:ino");
        long pid = ProcessHandle.current().pid();
        List<String> locks = new ArrayList<>();
        try (Stream<String> lines = Files.lines(Path.of("/proc/locks"))) {
            lines.map(line -> line.trim().split("\\s+"))
                    .filter(f -> f.length > 5 && f[4].equals(Long.toString(pid)) && f[5].endsWith(":" + inode))
                    .map(f -> String.join(" ", f)).forEach(locks::add);
        }
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fdinfo"))) {
            for (Path descriptor : descriptors.toList()) {
                List<String> lines;
                try {
                    lines = Files.readAllLines(descriptor);
                } catch (IOException closedMeanwhile) {
                    continue; // the listing's own descriptor, or one closed since
                }
                lines.stream().filter(line -> line.startsWith("lock:")).map(line -> line.substring(5).trim().split("\\s+"))
                        .filter(f -> f.length > 5 && f[1].equals("OFDLCK") && f[5].endsWith(":" + inode))
                        .map(f -> String.join(" ", f)).forEach(locks::add);
            }
        }
        return locks;
    }

    @Test
    void aRefusedSecondBuildLeavesTheFirstManagersLockInPlace() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/locks")), "needs Linux's /proc/locks");
        Path file = tempDir.resolve("pages.bin");
        try (MemoryManager first = mapped(file, 1L << 20).build()) {
            assertThat(locksOf(file)).as("the first manager locks its file").hasSize(1);
            assertThatThrownBy(() -> mapped(file, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("in use");
            // a link to the same file is the same file
            Path link = Files.createSymbolicLink(tempDir.resolve("link.bin"), file);
            assertThatThrownBy(() -> mapped(link, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("in use");
            // too small for the second build: refused for that, with the same effect on the lock before
            assertThatThrownBy(() -> mapped(file, 2L << 20).build()).isInstanceOf(IllegalArgumentException.class);
            assertThat(locksOf(file)).as("the first manager's lock after the refused builds").hasSize(1);
            MemorySegment page = first.allocatePage("a");
            page.set(ValueLayout.JAVA_LONG, 0, 7L);
            first.release(page);
        }
        assertThat(locksOf(file)).as("closed, the manager no longer locks the file").isEmpty();
        try (MemoryManager again = mapped(file, 1L << 20).build()) {
            assertThat(again.totalPages()).isEqualTo(256);
            assertThat(locksOf(file)).as("the file can be mapped again once the first manager closed").hasSize(1);
        }
    }

    @Test
    void aBuildThatFailsLeavesTheFileFreeForTheNextOne() throws Exception {
        Path file = tempDir.resolve("small.bin");
        try (MemoryManager small = mapped(file, 4096).build()) {
            assertThat(small.totalPages()).isEqualTo(1);
        }
        assertThatThrownBy(() -> mapped(file, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("made for a memory manager of 4096");
        try (MemoryManager mm = mapped(file, 4096).build()) {
            assertThat(mm.totalPages()).isEqualTo(1);
        }
    }
}
