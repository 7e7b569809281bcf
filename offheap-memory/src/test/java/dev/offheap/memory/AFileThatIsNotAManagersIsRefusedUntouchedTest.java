package dev.offheap.memory;

import dev.offheap.memory.internal.MappedFileHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
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

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped manager's file had no header: any regular file at least as large as the manager's total size was
 * mapped and its bytes handed out as pages, so a wrong path (a database, a log, another program's data) of
 * that size or more was silently overwritten by the first page writes. A file the build did not make, one that
 * does not start with a manager's header, is refused now before anything of it changes: not grown, not
 * reserved, not truncated, every byte as it was. So is a manager's file whose header is of another format
 * version, has sizes that cannot be used, or was made for a smaller total than the build needs.
 */
class AFileThatIsNotAManagersIsRefusedUntouchedTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path tempDir;

    /** @return a file of {@code bytes} that a user wrote: no byte of it zero, none a manager's header */
    private Path usersFile(String name, int bytes) throws IOException {
        byte[] contents = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            contents[i] = (byte) (1 + i % 251);
        }
        Path file = Files.write(tempDir.resolve(name), contents);
        // an old time, so that a change of the file would show in it too
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000_000L));
        return file;
    }

    private static void assertUnchanged(Path file, byte[] before) throws IOException {
        assertThat(Files.size(file)).as("the file's size").isEqualTo(before.length);
        assertThat(Arrays.equals(Files.readAllBytes(file), before)).as("every byte of the file as it was").isTrue();
        assertThat(Files.getLastModifiedTime(file).toMillis()).as("the file's modification time")
                .isEqualTo(1_000_000_000_000L);
    }

    @Test
    void aUsersFileLargerThanTheManagerIsRefusedAndKeepsEveryByte() throws Exception {
        Path file = usersFile("database.db", (int) (2 * MIB));
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("not a memory manager's file")
                .hasMessageContaining("its first bytes are not the header a manager writes")
                .hasMessageContaining("name another file, or delete it if it is yours to lose");
        assertUnchanged(file, before);
    }

    @Test
    void aUsersFileOfExactlyTheManagersFileSizeIsRefusedAndKeepsEveryByte() throws Exception {
        for (long size : new long[] {MIB, MIB + 4096}) {
            Path file = usersFile("log-" + size + ".txt", (int) size);
            byte[] before = Files.readAllBytes(file);
            assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("not a memory manager's file");
            assertUnchanged(file, before);
        }
    }

    @Test
    void aShortUsersFileIsRefusedAsNotAManagersFileAndKeepsEveryByte() throws Exception {
        Path file = usersFile("notes.txt", 10);
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("not a memory manager's file");
        assertUnchanged(file, before);
    }

    /** @return a manager's file, made by a build of {@code bytes} and closed, with its time set back */
    private Path managersFile(String name, long bytes) throws IOException {
        Path file = tempDir.resolve(name);
        try (MemoryManager manager = mapped(file, bytes).build()) {
            List<MemorySegment> pages = manager.allocatePages("writer", manager.totalPages());
            for (MemorySegment page : pages) {
                page.fill((byte) 9);
            }
            manager.releaseAll("writer");
        }
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000_000L));
        return file;
    }

    /** Writes {@code value} at {@code offset} of the file, little-endian, and sets its time back. */
    private static void patchInt(Path file, long offset, int value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), offset);
        }
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000_000L));
    }

    @Test
    void aNewFileStartsWithAHeaderOfFourKibibytesAndItsPagesFollowIt() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        try (MemoryManager manager = MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED).mappedFile(file)
                .pageSize(65536).totalSize(65536).build()) {
            assertThat(manager.allocatedBytes()).as("the pages' memory, not the header's").isEqualTo(65536);
            assertThat(manager.budget().limit()).as("the budget charges the pages").isEqualTo(65536);
            MemorySegment page = manager.allocatePage("writer");
            page.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 77L);
            manager.release(page);
        }
        assertThat(Files.size(file)).isEqualTo(4096 + 65536);
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        bytes.get(0, magic);
        assertThat(new String(magic, StandardCharsets.US_ASCII)).isEqualTo("OFFHEAPM");
        assertThat(bytes.getInt(8)).as("format version").isEqualTo(1);
        assertThat(bytes.getInt(12)).as("where the pages start").isEqualTo(4096);
        assertThat(bytes.getInt(16)).as("page size").isEqualTo(65536);
        assertThat(bytes.getLong(24)).as("total size").isEqualTo(65536);
        assertThat(bytes.getLong(4096)).as("the first page, after the header").isEqualTo(77L);
    }

    @Test
    void aManagersFileOfAnotherFormatVersionIsRefusedNamingItAndKeepsEveryByte() throws Exception {
        Path file = managersFile("pages.bin", MIB);
        patchInt(file, 8, 2);
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("format version 2")
                .hasMessageContaining("version 1");
        assertUnchanged(file, before);
    }

    @Test
    void aManagersFileWithAPageSizeNoBuildWritesIsRefusedNamingItAndKeepsEveryByte() throws Exception {
        Path file = managersFile("pages.bin", MIB);
        patchInt(file, 16, 3000);
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("page size 3000")
                .hasMessageContaining("cannot use");
        assertUnchanged(file, before);
    }

    @Test
    void aManagersFileMadeForASmallerTotalIsRefusedNamingBothSizesAndKeepsEveryByte() throws Exception {
        Path file = managersFile("pages.bin", MIB);
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> mapped(file, 2 * MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("made for a memory manager of " + MIB)
                .hasMessageContaining(Long.toString(2 * MIB)).hasMessageContaining("configure " + MIB);
        assertUnchanged(file, before);
    }

    @Test
    void aManagersFileServesASmallerManagerWithItsPagesAndKeepsSayingWhatItWasMadeFor() throws Exception {
        Path file = managersFile("pages.bin", 2 * MIB);
        try (MemoryManager smaller = mapped(file, MIB).build()) {
            assertThat(smaller.totalPages()).isEqualTo(256);
            List<MemorySegment> pages = smaller.allocatePages("reader", smaller.totalPages());
            assertThat(pages).allMatch(page -> page.get(ValueLayout.JAVA_BYTE, 4095) == 9);
            smaller.releaseAll("reader");
        }
        assertThat(Files.size(file)).isEqualTo(4096 + 2 * MIB);
        try (MemoryManager whole = mapped(file, 2 * MIB).build()) {
            assertThat(whole.totalPages()).as("the header still says 2 MiB").isEqualTo(512);
        }
    }

    @Test
    void aFileWithOnlyTheHeaderOfABuildKilledBeforeItGrewTheFileIsGrownByTheNextBuild() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedFileHeader.write(channel, 4096, MIB);
        }
        assertThat(Files.size(file)).isEqualTo(4096);
        try (MemoryManager manager = mapped(file, MIB).build()) {
            assertThat(Files.size(file)).isEqualTo(4096 + MIB);
            MemorySegment page = manager.allocatePage("writer");
            page.set(ValueLayout.JAVA_LONG, 0, 5L);
            manager.release(page);
        }
    }

    @Test
    void aFileWithOnlyTheHeaderOfAKilledBuildServesABuildOfALargerTotalAndSaysSo() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedFileHeader.write(channel, 4096, MIB);
        }
        try (MemoryManager larger = mapped(file, 2 * MIB).build()) {
            assertThat(larger.totalPages()).as("no page was ever in the file: it is made again").isEqualTo(512);
            assertThat(Files.size(file)).isEqualTo(4096 + 2 * MIB);
        }
        try (MemoryManager again = mapped(file, 2 * MIB).build()) {
            assertThat(again.totalPages()).as("the header now says 2 MiB").isEqualTo(512);
        }
    }

    @Test
    void aHeaderCutShortIsRefusedAsSuchAndKeepsEveryByte() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        Files.write(file, "OFFHEAPM".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        Files.setLastModifiedTime(file, FileTime.fromMillis(1_000_000_000_000L));
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> mapped(file, MIB).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("header cut short at 8 bytes")
                .hasMessageContaining("delete it");
        assertUnchanged(file, before);
    }
}
