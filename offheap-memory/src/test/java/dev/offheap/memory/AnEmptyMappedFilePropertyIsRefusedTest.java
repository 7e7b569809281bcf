package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code offheap.memory.mapped-file} left empty (a template's {@code offheap.memory.mapped-file=}) was taken
 * as {@code Path.of("")}, the working directory: properties() accepted it, and the build then refused "mapped
 * file /the/working/directory is a directory", naming neither the property nor its empty value, while every
 * other key refuses an empty value where it is read. An empty (or blank) file is refused there too.
 */
class AnEmptyMappedFilePropertyIsRefusedTest {
    @TempDir
    Path tempDir;

    @Test
    void anEmptyOrBlankMappedFileIsRefusedByPropertiesAndTheBuilderKeepsItsFile() {
        Path file = tempDir.resolve("pages.bin");
        for (String value : new String[] {"", "   "}) {
            MemoryManager.Builder builder = MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED)
                    .mappedFile(file).pageSize(4096).totalSize(1L << 20);
            Properties p = new Properties();
            p.setProperty("offheap.memory.mapped-file", value);

            assertThatThrownBy(() -> builder.properties(p)).as("'%s'", value).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("offheap.memory.mapped-file").hasMessageContaining("empty");

            try (MemoryManager mm = builder.build()) {
                assertThat(mm.type()).isEqualTo(MemoryType.MAPPED);
                assertThat(mm.totalPages()).isEqualTo(256);
            }
            assertThat(file).exists();
        }
    }
}
