package dev.offheap.memory;

import dev.offheap.memory.internal.FileSpace;
import dev.offheap.memory.internal.MappedFileHeader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped manager's file shorter than its header says was always grown with zeros by the next build: right
 * for a file whose build was killed while it grew it (the header is written first), but a file that had been
 * whole, whose end a person or a program cut off, lost the pages past its new end, and the build hid that
 * behind fresh zero pages. The header now says when its file was whole: a build marks it once the file has
 * reached its full length, and a later build refuses a marked file that is shorter than that, naming the file,
 * its length and the length it had, and leaves it as it is; an unmarked one is still grown.
 */
class AManagersFileCutShortAfterItWasWholeIsRefusedUntouchedTest {
    private static final long MIB = 1L << 20;
    private static final long OLD_TIME = 1_000_000_000_000L;

    @TempDir
    Path tempDir;

    /** @return a manager's file made by a build of {@code bytes}, every page filled with 9 */
    private Path managersFile(String name, long bytes) {
        Path file = tempDir.resolve(name);
        try (MemoryManager manager = mapped(file, bytes).build()) {
            List<MemorySegment> pages = manager.allocatePages("writer", manager.totalPages());
            for (MemorySegment page : pages) {
                page.fill((byte) 9);
            }
            manager.releaseAll("writer");
        }
        return file;
    }

    /** Cuts the file to {@code length} bytes and sets its time back; @return its bytes then */
    private static byte[] cutTo(Path file, long length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
        }
        Files.setLastModifiedTime(file, FileTime.fromMillis(OLD_TIME));
        return Files.readAllBytes(file);
    }

    private static void assertUnchanged(Path file, byte[] before) throws IOException {
        assertThat(Files.size(file)).as("the file's size").isEqualTo(before.length);
        assertThat(Arrays.equals(Files.readAllBytes(file), before)).as("every byte of the file as it was").isTrue();
        assertThat(Files.getLastModifiedTime(file).toMillis()).as("the file's modification time").isEqualTo(OLD_TIME);
    }

    @Test
    void aWholeFileCutShortIsRefusedNamingItsLengthAndTheLengthItHadAndKeepsEveryByte() throws Exception {
        Path file = managersFile("pages.bin", MIB);
        long cut = 4096 + MIB / 2;
        byte[] before = cutTo(file, cut);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining(cut + " bytes")
                .hasMessageContaining((4096 + MIB) + " bytes")
                .hasMessageContaining("lost")
                .hasMessageContaining("restore it");
        assertUnchanged(file, before);
    }

    @Test
    void aWholeFileCutToItsHeaderIsRefusedInsteadOfMadeAgain() throws Exception {
        Path file = managersFile("pages.bin", MIB);
        byte[] before = cutTo(file, 4096);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("4096 bytes")
                .hasMessageContaining((4096 + MIB) + " bytes").hasMessageContaining("lost");
        assertUnchanged(file, before);
    }

    @Test
    void aWholeFileCutShortIsRefusedEvenToASmallerManagerItsRemainingPagesWouldServe() throws Exception {
        Path file = managersFile("pages.bin", 2 * MIB);
        byte[] before = cutTo(file, 4096 + MIB);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining((4096 + MIB) + " bytes")
                .hasMessageContaining((4096 + 2 * MIB) + " bytes");
        assertUnchanged(file, before);
    }

    @Test
    void aFileWhoseBuildStoppedWhileItGrewItIsStillGrownAndIsWholeAfterIt() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        // what a build killed in its growth leaves: the header, synced first, and part of the pages' room
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedFileHeader.write(channel, 4096, MIB);
        }
        cutTo(file, 4096 + MIB / 4);
        try (MemoryManager manager = mapped(file, MIB).build()) {
            assertThat(Files.size(file)).as("grown the rest of the way").isEqualTo(4096 + MIB);
            assertThat(manager.totalPages()).isEqualTo(256);
        }
        byte[] before = cutTo(file, 4096 + MIB / 2);
        assertThatThrownBy(() -> mapped(file, MIB).build()).as("whole once, cut short after").isInstanceOf(
                IllegalArgumentException.class).hasMessageContaining(file.toString()).hasMessageContaining("lost");
        assertUnchanged(file, before);
    }

    @Test
    void aWholeFileWithoutTheMarkAsEarlierBuildsMadeItIsServedAndMarked() throws Exception {
        Path file = MappedManagers.sparseManagersFile(tempDir.resolve("pages.bin"), MIB);
        try (MemoryManager manager = mapped(file, MIB).build()) {
            assertThat(manager.totalPages()).isEqualTo(256);
        }
        byte[] before = cutTo(file, 4096 + MIB / 2);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("lost");
        assertUnchanged(file, before);
    }

    @Test
    void theHeaderOfAWholeFileSaysSoAndThatOfAFileStillGrowingDoesNot() throws Exception {
        Path growing = tempDir.resolve("growing.bin");
        try (FileChannel channel = FileChannel.open(growing, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedFileHeader.write(channel, 4096, MIB);
        }
        assertThat(completeField(growing)).as("the mark of a header just written").isZero();
        Path whole = managersFile("whole.bin", MIB);
        assertThat(completeField(whole)).as("the mark of a file a build made whole").isEqualTo(1);
    }

    @Test
    void aWholeFieldNoBuildWritesIsRefusedAsADamagedHeaderAndKeepsEveryByte() throws Exception {
        Path file = managersFile("pages.bin", MIB);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 7), 32);
        }
        byte[] before = cutTo(file, 4096 + MIB);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("whole field 7")
                .hasMessageContaining("damaged");
        assertUnchanged(file, before);
    }

    /** @return the header's int at byte 32, little-endian */
    private static int completeField(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file)) {
            ByteBuffer field = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(field, 32);
            return field.getInt(0);
        }
    }

    @Test
    void aFileOfABuildKilledAfterItReservedTheBlocksIsMappedByTheNextBuild() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "the reservation is Linux only");
        Path file = tempDir.resolve("pages.bin");
        Process builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                AFileAnotherProcessIsStillBuildingOnIsRefusedUntouchedTest.BuildAndPauseAfterReserving.class.getName(),
                file.toString(), Long.toString(MIB)).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(builder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).as("the other process has reserved the file's blocks").isEqualTo("reserved");
        } finally {
            builder.destroyForcibly();
            assertThat(builder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(completeField(file)).as("killed before its build was done").isZero();
        try (MemoryManager manager = mapped(file, MIB).build()) {
            assertThat(manager.totalPages()).isEqualTo(256);
        }
        assertThat(completeField(file)).as("made whole by the next build").isEqualTo(1);
    }
}
