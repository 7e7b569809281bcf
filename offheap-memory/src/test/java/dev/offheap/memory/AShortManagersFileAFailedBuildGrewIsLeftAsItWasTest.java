package dev.offheap.memory;

import dev.offheap.memory.internal.MappedFileHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A build that fails leaves an existing file as it was; only an empty one it grew was cut back. A manager's
 * file shorter than its header says (a build stopped after writing the header, or while it grew the file) that
 * a build grew, rewrote the header of, and then failed (its mapping refused, say) stayed at the build's full
 * size, its blocks taken (memory, in {@code /dev/shm}), and its header saying the failed build's sizes. It is
 * now cut back to its length and given back its header bytes.
 */
class AShortManagersFileAFailedBuildGrewIsLeftAsItWasTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path tempDir;

    @AfterEach
    void noMoreFailures() {
        MemoryManager.afterMappedFileReserved = null;
    }

    /** @return a header made for {@code total} bytes of pages of {@code pageSize}, followed by {@code pageBytes} */
    private Path shortManagersFile(int pageSize, long total, long pageBytes) throws Exception {
        Path file = tempDir.resolve("pages.bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedFileHeader.write(channel, pageSize, total);
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(MappedFileHeader.BYTES + pageBytes);
        }
        return file;
    }

    private static void failAfterTheGrowth() {
        MemoryManager.afterMappedFileReserved = () -> {
            throw new IllegalStateException("the build fails after the file was grown");
        };
    }

    @Test
    void aFileWithOnlyAHeaderThatAFailedBuildMadeAgainKeepsItsLengthAndHeader() throws Exception {
        Path file = shortManagersFile(65536, 4 * MIB, 0);
        byte[] before = Files.readAllBytes(file);
        failAfterTheGrowth();
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after the file was grown");
        assertThat(Files.size(file)).as("the file's length").isEqualTo(before.length);
        assertThat(Arrays.equals(Files.readAllBytes(file), before)).as("the header it had").isTrue();
    }

    @Test
    void aFileAFailedBuildGrewTheRestOfTheWayKeepsItsLength() throws Exception {
        Path file = shortManagersFile(4096, MIB, MIB / 4);
        byte[] before = Files.readAllBytes(file);
        failAfterTheGrowth();
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalStateException.class);
        assertThat(Files.size(file)).as("the file's length").isEqualTo(before.length);
        assertThat(Arrays.equals(Files.readAllBytes(file), before)).as("every byte it had").isTrue();
        MemoryManager.afterMappedFileReserved = null;
        try (MemoryManager manager = mapped(file, MIB).build()) {
            assertThat(manager.totalPages()).as("the next build grows it").isEqualTo(256);
        }
    }
}
