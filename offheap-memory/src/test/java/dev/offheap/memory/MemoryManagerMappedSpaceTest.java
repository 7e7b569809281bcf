package dev.offheap.memory;

import dev.offheap.memory.internal.FileSpace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped manager takes its file's blocks at build time: a sparse file would fault (InternalError
 * from a plain write) once its file system filled up, and two managers could promise the same free
 * space twice.
 */
class MemoryManagerMappedSpaceTest {
    @TempDir
    Path tempDir;

    /** A small tmpfs mounted for one test, or null when this process may not mount. */
    private Path smallFileSystem;

    private static MemoryManager.Builder mapped(Path file, long bytes) {
        return MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED).mappedFile(file).pageSize(4096)
                .totalSize(bytes);
    }

    /** @return the bytes of storage allocated to the file (st_blocks x 512), from stat(1) */
    private static long allocatedBytes(Path file) throws IOException, InterruptedException {
        Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertThat(stat.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(stat.exitValue()).as(out).isZero();
        String[] parts = out.split(" ");
        return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
    }

    @Test
    void aNewMappedFileHasEveryBlockAllocatedAtBuild() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "posix_fallocate is Linux only");
        Path file = tempDir.resolve("pages.bin");
        long bytes = 8L << 20;
        try (MemoryManager mm = mapped(file, bytes).build()) {
            assertThat(Files.size(file)).isEqualTo(bytes);
            assertThat(allocatedBytes(file)).as("blocks allocated to the file right after build").isGreaterThanOrEqualTo(bytes);
            MemorySegment page = mm.allocatePage("owner");
            page.set(ValueLayout.JAVA_LONG, 0, 42L);
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
        }
    }

    @Test
    void reservingAnExistingSparseFileKeepsItsContents() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "posix_fallocate is Linux only");
        Path file = tempDir.resolve("existing.bin");
        long bytes = 1L << 20;
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(bytes);
            raf.seek(4096 * 3 + 7);
            raf.write(new byte[] {1, 2, 3});
        }
        assertThat(allocatedBytes(file)).as("the file starts sparse").isLessThan(bytes);
        try (MemoryManager mm = mapped(file, bytes).build()) {
            assertThat(allocatedBytes(file)).isGreaterThanOrEqualTo(bytes);
            assertThat(mm.totalPages()).isEqualTo(256);
        }
        byte[] contents = Files.readAllBytes(file);
        assertThat(contents).hasSize((int) bytes);
        assertThat(contents[4096 * 3 + 7]).isEqualTo((byte) 1);
        assertThat(contents[4096 * 3 + 9]).isEqualTo((byte) 3);
    }

    @Test
    void aFileSystemWithoutRoomFailsTheBuildNotALaterWrite() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "posix_fallocate is Linux only");
        smallFileSystem = mountTmpfs(8);
        long sixMiB = 6L << 20;
        try (MemoryManager first = mapped(smallFileSystem.resolve("first.bin"), sixMiB).build()) {
            // A second new file: the free-space check sees the first manager's blocks as taken.
            Path second = smallFileSystem.resolve("second.bin");
            assertThatThrownBy(() -> mapped(second, sixMiB).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(second.toString()).hasMessageContaining("free");
            assertThat(second).doesNotExist();

            // An existing sparse file passes the size check; reserving its blocks fails, and the file is left as it was.
            Path sparse = smallFileSystem.resolve("sparse.bin");
            try (RandomAccessFile raf = new RandomAccessFile(sparse.toFile(), "rw")) {
                raf.setLength(sixMiB);
            }
            assertThatThrownBy(() -> mapped(sparse, sixMiB).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(sparse.toString()).hasMessageContaining("cannot reserve")
                    .hasMessageContaining("errno 28");
            assertThat(sparse).exists();
            Files.delete(sparse);

            // Every page of the first manager is backed: writing all of them cannot fault.
            List<MemorySegment> pages = first.allocatePages("owner", first.totalPages());
            for (MemorySegment page : pages) {
                page.fill((byte) 0x5a);
            }
            assertThat(pages.getLast().get(ValueLayout.JAVA_BYTE, 4095)).isEqualTo((byte) 0x5a);
            first.releaseAll("owner");
        }
    }

    private Path mountTmpfs(int mebibytes) throws IOException, InterruptedException {
        Path point = Files.createDirectory(tempDir.resolve("small-fs"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + mebibytes + "m", "tmpfs", point.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        Assumptions.assumeTrue(mounted, "cannot mount a small tmpfs here (needs root and mount permission): " + out);
        return point;
    }

    @AfterEach
    void unmount() throws IOException, InterruptedException {
        if (smallFileSystem != null) {
            Process umount = new ProcessBuilder("umount", smallFileSystem.toString()).redirectErrorStream(true).start();
            umount.getInputStream().readAllBytes();
            umount.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
