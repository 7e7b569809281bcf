package dev.offheap.memory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped file that a manager in another process holds is refused as in use, whatever size this build
 * asks for: a build asking for more than the file holds was told that the file "holds N bytes but the
 * memory manager needs M; delete it", advice that would throw away the bytes the other process is using.
 */
class AFileMappedByAnotherProcessIsRefusedAsInUseTest {
    @TempDir
    Path tempDir;

    private Process holder;

    @AfterEach
    void stopHolder() throws InterruptedException {
        if (holder != null && holder.isAlive()) {
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** Starts a JVM whose mapped manager of {@code bytes} holds {@code file}, its first page's first long set to 77. */
    static Process holdInAnotherProcess(Path file, long bytes) throws IOException {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                HoldAMappedFile.class.getName(), file.toString(), Long.toString(bytes)).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("the other process maps the file").isEqualTo("holding");
        return process;
    }

    @Test
    void aBuildAskingForMoreThanTheFileHoldsIsToldTheFileIsInUseNotToDeleteIt() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        holder = holdInAnotherProcess(file, 1L << 20);
        assertThatThrownBy(() -> mapped(file, 2L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("in use")
                .hasMessageNotContaining("delete it");
        assertThatThrownBy(() -> mapped(file, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("in use");
        assertThat(Files.size(file)).as("the header and the pages").isEqualTo(4096 + (1L << 20));
    }

    /** The refusal said "another process, or another channel of this JVM": where the system lists its locks, it names the process. */
    @Test
    void theRefusalNamesTheProcessThatHoldsTheFile() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/locks")), "needs Linux's /proc/locks");
        Path file = tempDir.resolve("pages.bin");
        holder = holdInAnotherProcess(file, 1L << 20);
        assertThatThrownBy(() -> mapped(file, 1L << 20).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("in use")
                .hasMessageContaining("process " + holder.pid() + " ");
    }

    /** Holds a mapped manager over a file until its standard input ends; run in a JVM of its own. */
    public static final class HoldAMappedFile {
        public static void main(String[] args) throws Exception {
            try (MemoryManager mm = mapped(Path.of(args[0]), Long.parseLong(args[1])).build()) {
                MemorySegment page = mm.allocatePage("holder");
                page.set(ValueLayout.JAVA_LONG, 0, 77L);
                System.out.println("holding");
                System.out.flush();
                System.in.readAllBytes();
                mm.release(page);
            }
        }
    }
}
