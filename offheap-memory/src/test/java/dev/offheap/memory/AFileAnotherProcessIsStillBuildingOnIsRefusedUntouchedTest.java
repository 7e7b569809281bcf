package dev.offheap.memory;

import dev.offheap.memory.internal.FileSpace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A mapped build locked its file only after it had reserved the file's blocks (and mapped it): its lock was a
 * POSIX one, which closing the reservation's own descriptor would have dropped. So while one process was
 * between its reservation and its lock, a build in another process on the same new (or empty) file saw no
 * lock, reserved, grew or shrank the file and mapped it, and one of the two was refused only afterwards.
 * The lock now comes first, on the descriptor that reserves the blocks: a build on a file another process is
 * still building on is refused as in use before it changes anything, and the first build ends with the
 * manager.
 */
class AFileAnotherProcessIsStillBuildingOnIsRefusedUntouchedTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path tempDir;

    private Process builder;
    private BufferedReader builderOutput;

    @BeforeEach
    void needsReservation() {
        Assumptions.assumeTrue(FileSpace.supported(), "the reservation, and the lock taken before it, are Linux only");
    }

    @AfterEach
    void stopBuilder() throws InterruptedException {
        if (builder != null && builder.isAlive()) {
            builder.destroyForcibly();
            builder.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Starts a JVM that builds a mapped manager of {@code bytes} on {@code file} and waits once it has reserved. */
    private void startBuildingInAnotherProcess(Path file, long bytes) throws IOException {
        builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                BuildAndPauseAfterReserving.class.getName(), file.toString(), Long.toString(bytes))
                .redirectErrorStream(true).start();
        builderOutput = new BufferedReader(new InputStreamReader(builder.getInputStream(), StandardCharsets.UTF_8));
        assertThat(builderOutput.readLine()).as("the other process has reserved the file's blocks").isEqualTo("reserved");
    }

    /** Lets the other process go on with its build; @return what it says of the build */
    private String resumeTheOtherBuild() throws IOException {
        OutputStream in = builder.getOutputStream();
        in.write("go\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        return builderOutput.readLine();
    }

    /** Builds on {@code file} here, expecting the refusal; closes a manager built against the expectation. */
    private String refusalOfABuildHere(Path file, long bytes) {
        try (MemoryManager unexpected = mapped(file, bytes).build()) {
            return fail("built a manager on a file another process is building on: " + unexpected.totalPages() + " pages");
        } catch (IllegalArgumentException refused) {
            return refused.getMessage();
        }
    }

    private void endTheOtherProcess() throws Exception {
        builder.getOutputStream().close();
        assertThat(builder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(builder.exitValue()).isZero();
    }

    /** @return the first long of the file's first page, after its 4 KiB header */
    private static long firstLong(Path file) {
        try (FileChannel channel = FileChannel.open(file)) {
            ByteBuffer bytes = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder());
            channel.read(bytes, 4096);
            return bytes.getLong(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aBuildOnANewFileAnotherProcessHasReservedIsRefusedAndTheOtherBuildEndsWithTheManager() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        startBuildingInAnotherProcess(file, MIB);

        String refusal = refusalOfABuildHere(file, MIB);
        assertThat(refusal).contains(file.toString()).contains("in use").contains("process " + builder.pid() + " ")
                .doesNotContain("delete it");
        assertThat(Files.size(file)).as("the file as the other process reserved it").isEqualTo(4096 + MIB);

        assertThat(resumeTheOtherBuild()).as("the other process's build").isEqualTo("built");
        endTheOtherProcess();
        assertThat(Files.size(file)).isEqualTo(4096 + MIB);
        assertThat(firstLong(file)).as("what the other process's page wrote").isEqualTo(77L);
    }

    @Test
    void aBuildAskingForMoreOfAnEmptyFileAnotherProcessIsGrowingIsRefusedAsInUseAndLeavesItsSize() throws Exception {
        Path file = Files.createFile(tempDir.resolve("empty.bin"));
        startBuildingInAnotherProcess(file, MIB);

        String refusal = refusalOfABuildHere(file, 2 * MIB);
        assertThat(refusal).contains(file.toString()).contains("in use").doesNotContain("delete it");
        assertThat(Files.size(file)).as("the file as the other process grew it").isEqualTo(4096 + MIB);

        assertThat(resumeTheOtherBuild()).as("the other process's build").isEqualTo("built");
        endTheOtherProcess();
        assertThat(Files.size(file)).isEqualTo(4096 + MIB);
        assertThat(firstLong(file)).as("what the other process's page wrote").isEqualTo(77L);
    }

    /**
     * Builds a mapped manager on a file, pausing right after the reservation until a line comes on its standard
     * input; then writes 77 to the first long of its only page (the file's first) and holds the manager until its
     * standard input ends. Run in a JVM of its own.
     */
    public static final class BuildAndPauseAfterReserving {
        public static void main(String[] args) throws Exception {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            MemoryManager.afterMappedFileReserved = () -> {
                System.out.println("reserved");
                System.out.flush();
                try {
                    in.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            };
            long bytes = Long.parseLong(args[1]);
            try (MemoryManager mm = MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED)
                    .mappedFile(Path.of(args[0])).pageSize((int) bytes).totalSize(bytes).build()) {
                MemorySegment page = mm.allocatePage("builder");
                page.set(ValueLayout.JAVA_LONG, 0, 77L);
                System.out.println("built");
                System.out.flush();
                while (in.readLine() != null) {
                    // held until the test ends the input
                }
                mm.release(page);
            } catch (IllegalArgumentException refused) {
                System.out.println("refused: " + refused.getMessage());
            }
        }
    }
}
