package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An existing mapped file must hold the manager's total size, so that a file a manager left behind is not
 * mistaken for a smaller one. An empty file holds nothing to keep, yet it was refused the same way ("holds 0
 * bytes but the memory manager needs ...; delete it"): the file {@code Files.createTempFile} makes, the usual
 * way to get a fresh, private path, could not back a manager. It is grown as a new file is; a file that holds
 * some bytes but too few is still refused.
 */
class AnEmptyExistingMappedFileIsGrownAsANewOneTest {
    @TempDir
    Path tempDir;

    @Test
    void anEmptyTempFileBacksAManager() throws Exception {
        Path file = Files.createTempFile(tempDir, "pages", ".bin");
        assertThat(Files.size(file)).isZero();
        try (MemoryManager manager = mapped(file).build()) {
            MemorySegment page = manager.allocatePage("owner");
            page.set(ValueLayout.JAVA_LONG, 0, 42L);
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
            assertThat(Files.size(file)).as("the header and the pages").isEqualTo(4096 + (1L << 20));
            manager.release(page);
        }
        assertThat(file).as("an existing file is the caller's: it stays").exists();
    }

    @Test
    void aFileWithSomeBytesButNoHeaderIsStillRefused() throws Exception {
        Path file = Files.write(tempDir.resolve("short.bin"), new byte[4096]);
        assertThatThrownBy(() -> mapped(file).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a memory manager's file");
        assertThat(Files.size(file)).isEqualTo(4096);
    }
}
