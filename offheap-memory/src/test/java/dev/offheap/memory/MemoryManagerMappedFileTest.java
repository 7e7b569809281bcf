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
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a mapped manager's build does to its file: it takes the file's blocks (a sparse file would fault,
 * InternalError from a plain write, once its file system filled up, and two managers could promise the
 * same free space twice), touches no file but the one it was given and removes only a file it created,
 * and locks the file so that no second manager maps the same bytes.
 */
class MemoryManagerMappedFileTest {
    @TempDir
    Path tempDir;

    /** A small tmpfs mounted for one test, or null when this process may not mount. */
    private Path smallFileSystem;

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
            assertThat(Files.size(file)).as("the 4 KiB header and the pages").isEqualTo(4096 + bytes);
            assertThat(allocatedBytes(file)).as("blocks allocated to the file right after build").isGreaterThanOrEqualTo(4096 + bytes);
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
        MappedManagers.sparseManagersFile(file, bytes);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(4096 * 3 + 7);
            raf.write(new byte[] {1, 2, 3});
        }
        assertThat(allocatedBytes(file)).as("the file starts sparse").isLessThan(bytes);
        try (MemoryManager mm = mapped(file, bytes).build()) {
            assertThat(allocatedBytes(file)).isGreaterThanOrEqualTo(4096 + bytes);
            assertThat(mm.totalPages()).isEqualTo(256);
        }
        byte[] contents = Files.readAllBytes(file);
        assertThat(contents).hasSize(4096 + (int) bytes);
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
            Path sparse = MappedManagers.sparseManagersFile(smallFileSystem.resolve("sparse.bin"), sixMiB);
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

    /**
     * The build removed "the file it created" by the configured path: for a dangling symlink that is the user's link.
     * The build runs in a JVM whose file size limit ({@code ulimit -f}) is below the size: the free-space check
     * passes, reserving the blocks fails (EFBIG), and the JVM, which ignores SIGXFSZ, lives to report it.
     */
    @Test
    void aFailedBuildThroughADanglingSymlinkKeepsTheLinkAndRemovesTheFileItCreated() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "posix_fallocate is Linux only");
        Path target = tempDir.resolve("target.bin");
        Path link = Files.createSymbolicLink(tempDir.resolve("link.bin"), target);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder("bash", "-c", "ulimit -f 2048 && exec \"$0\" \"$@\"", java,
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                BuildOverLimitInChild.class.getName(), link.toString()).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        // EFBIG is the limit on one file's size, not want of room: the refusal said "its file system or quota has less room"
        assertThat(out).contains("refused: ").contains(link.toString()).contains("errno 27")
                .contains("file size limit").doesNotContain("less room");
        assertThat(Files.isSymbolicLink(link)).as("the user's symlink is left").isTrue();
        assertThat(Files.exists(target, LinkOption.NOFOLLOW_LINKS)).as("the file the build created is removed").isFalse();
    }

    /** Builds a mapped manager of 4 MiB on the path given, printing its refusal; run under a 2 MiB file size limit. */
    public static final class BuildOverLimitInChild {
        public static void main(String[] args) {
            try (MemoryManager mm = mapped(Path.of(args[0]), 4L << 20).build()) {
                System.out.println("built " + mm.totalPages() + " pages");
            } catch (IllegalArgumentException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }

    /**
     * The free-space check of a new file measured the directory of the configured path: for a dangling symlink,
     * the link's file system, not the one the file is created in, and a link on a small file system to a
     * target on a large one was refused as "its file system has only 4.0 MiB free".
     */
    @Test
    void aDanglingSymlinkIsJudgedByTheFileSystemItPointsTo() throws Exception {
        smallFileSystem = mountTmpfs(4);
        Path target = tempDir.resolve("target.bin");
        Path link = Files.createSymbolicLink(smallFileSystem.resolve("link.bin"), target);
        try (MemoryManager mm = mapped(link, 6L << 20).build()) {
            assertThat(mm.totalPages()).isEqualTo(1536);
        }
        assertThat(Files.size(target)).isEqualTo(4096 + (6L << 20));
        assertThat(Files.isSymbolicLink(link)).isTrue();
    }

    /** A dangling symlink into a directory that does not exist was refused with the system's bare NoSuchFileException. */
    @Test
    void aDanglingSymlinkIntoAMissingDirectoryNamesThatDirectory() throws Exception {
        Path missing = tempDir.resolve("missing");
        Path link = Files.createSymbolicLink(tempDir.resolve("link.bin"), missing.resolve("target.bin"));
        assertThatThrownBy(() -> mapped(link).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(link.toString()).hasMessageContaining("its directory " + missing + " does not exist");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(missing).doesNotExist();
    }

    /** Two open managers on one file handed the same bytes to different owners. */
    @Test
    void aSecondManagerOnAFileInUseIsRefusedAndTheFileCanBeMappedAgainAfterClose() throws Exception {
        Path file = tempDir.resolve("shared.bin");
        try (MemoryManager first = mapped(file, 1L << 20).build()) {
            MemorySegment page = first.allocatePage("a");
            page.set(ValueLayout.JAVA_LONG, 0, 42L);
            assertThatThrownBy(() -> mapped(file, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("in use");
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
            first.release(page);
        }
        try (MemoryManager again = mapped(file, 1L << 20).build()) {
            MemorySegment page = again.allocatePage("b");
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).as("the bytes outlive the first manager").isEqualTo(42L);
            again.release(page);
        }
    }

    /** FileSpace opened the path's string on the default file system: another file system's path grew an unrelated file. */
    @Test
    void aPathOfAnotherFileSystemIsRefusedAndNoFileOfTheDefaultOneIsTouched() throws Exception {
        Path victim = tempDir.resolve("victim.bin");
        Files.write(victim, new byte[] {1, 2, 3});
        try (FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + tempDir.resolve("z.zip").toUri()),
                Map.of("create", "true"))) {
            Path inZip = zip.getPath(victim.toString());
            Files.createDirectories(inZip.getParent());
            assertThatThrownBy(() -> mapped(inZip, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("default file system");
        }
        assertThat(Files.readAllBytes(victim)).containsExactly(1, 2, 3);
    }

    /** A FIFO or a device was reported as "holds 0 bytes ... delete it". */
    @Test
    void aFileThatIsNotRegularIsRejectedAsSuch() throws Exception {
        Path fifo = tempDir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        mkfifo.getInputStream().readAllBytes();
        Assumptions.assumeTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "no mkfifo");
        for (Path special : List.of(fifo, Path.of("/dev/zero"))) {
            assertThatThrownBy(() -> mapped(special, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a regular file").hasMessageNotContaining("delete it");
        }
        assertThat(Files.exists(fifo, LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    /**
     * FileSpace encoded the path in UTF-8; the JDK encodes file names in sun.jnu.encoding (the locale's
     * charset). Under ISO-8859-1 a non-ASCII name named another file: the build failed ("No such file")
     * and removed the file it had just created.
     */
    @Test
    void aNonAsciiPathMapsUnderALatin1Locale() throws Exception {
        Assumptions.assumeTrue(FileSpace.supported(), "posix_fallocate is Linux only");
        Path locales = Files.createDirectory(tempDir.resolve("locales"));
        Process localedef = new ProcessBuilder("localedef", "-i", "de_DE", "-f", "ISO-8859-1",
                locales.resolve("de_DE.ISO-8859-1").toString()).redirectErrorStream(true).start();
        String defOut = new String(localedef.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(localedef.waitFor(30, TimeUnit.SECONDS) && localedef.exitValue() == 0,
                "cannot make an ISO-8859-1 locale: " + defOut);
        ProcessBuilder child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                BuildInChild.class.getName(), tempDir.toString()).redirectErrorStream(true);
        child.environment().put("LOCPATH", locales.toString());
        child.environment().put("LC_ALL", "de_DE.ISO-8859-1");
        Process process = child.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("jnu=ISO-8859-1").contains("mapped " + (4096 + 1048576));
        assertThat(process.exitValue()).as(out).isZero();
    }

    /** Builds a mapped manager on a non-ASCII name; run in a JVM with another locale. */
    public static final class BuildInChild {
        public static void main(String[] args) throws Exception {
            System.out.println("jnu=" + System.getProperty("sun.jnu.encoding"));
            Path file = Path.of(args[0], "d\u00e9j\u00e0 vu.bin");
            try (MemoryManager mm = mapped(file, 1L << 20).build()) {
                MemorySegment page = mm.allocatePage("o");
                page.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                mm.release(page);
                System.out.println("mapped " + Files.size(file));
            }
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

    /** Lazily: a mapping the JVM has not dropped yet must not leave the file system mounted. */
    @AfterEach
    void unmount() throws IOException, InterruptedException {
        if (smallFileSystem != null) {
            Process umount = new ProcessBuilder("umount", "--lazy", smallFileSystem.toString()).redirectErrorStream(true).start();
            umount.getInputStream().readAllBytes();
            umount.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
