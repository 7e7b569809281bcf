package dev.offheap.memory;

import dev.offheap.memory.internal.FileSpace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped manager's build reserves the blocks of an existing sparse file; when its file system has too few,
 * the build is refused. On a disk file system (ext4 here) posix_fallocate keeps the blocks it took before it
 * ran out, so the refused build left the file system full (0 bytes free), breaking every other writer on it,
 * with the file unchanged in size and contents. The blocks it took go back now. (tmpfs gives them back itself.)
 */
class ARefusedReservationGivesBackTheBlocksItTookTest {
    @TempDir
    Path tempDir;

    private Path mountPoint;

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean done = process.waitFor(60, TimeUnit.SECONDS);
        return done && process.exitValue() == 0 ? null : String.join(" ", command) + ": " + out;
    }

    @Test
    void aSparseFileTooLargeForItsFileSystemIsRefusedAndTheFileSystemKeepsItsFreeSpace() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "posix_fallocate is Linux only");
        Path image = tempDir.resolve("ext4.img");
        try (RandomAccessFile raf = new RandomAccessFile(image.toFile(), "rw")) {
            raf.setLength(32L << 20);
        }
        String failed = run("mkfs.ext4", "-q", "-F", image.toString());
        Assumptions.assumeTrue(failed == null, "cannot make an ext4 file system here: " + failed);
        Path point = Files.createDirectory(tempDir.resolve("ext4"));
        failed = run("mount", "-o", "loop", image.toString(), point.toString());
        Assumptions.assumeTrue(failed == null, "cannot mount a loop device here (needs root and /dev/loop*): " + failed);
        mountPoint = point;

        long bytes = 64L << 20;
        Path sparse = MappedManagers.sparseManagersFile(point.resolve("sparse.bin"), bytes);
        try (RandomAccessFile raf = new RandomAccessFile(sparse.toFile(), "rw")) {
            raf.seek(5 << 20);
            raf.write(new byte[] {1, 2, 3});
        }
        long freeBefore = Files.getFileStore(point).getUsableSpace();
        assertThatThrownBy(() -> mapped(sparse, bytes).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(sparse.toString()).hasMessageContaining("errno 28");
        assertThat(Files.getFileStore(point).getUsableSpace()).as("free space after the refused build, of %d before",
                freeBefore).isGreaterThan(freeBefore - (1L << 20));
        assertThat(Files.size(sparse)).isEqualTo(4096 + bytes);
        try (RandomAccessFile raf = new RandomAccessFile(sparse.toFile(), "r")) {
            byte[] around = new byte[5];
            raf.seek((5 << 20) - 1);
            raf.readFully(around);
            assertThat(around).containsExactly(0, 1, 2, 3, 0);
        }
    }

    @AfterEach
    void unmount() throws IOException, InterruptedException {
        if (mountPoint != null) {
            run("umount", "--lazy", mountPoint.toString());
        }
    }
}
