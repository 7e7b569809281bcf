package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A mapped file given to a manager of another type (NATIVE by default, or HEAP) was silently not used: a
 * configuration that set {@code offheap.memory.mapped-file} but forgot {@code offheap.memory.type=mapped} got
 * native pages that do not outlive the process, with no word. {@code build()} refuses it, naming the file and
 * the type; nothing is created.
 */
class AMappedFileForAnotherMemoryTypeIsRefusedTest {
    @TempDir
    Path tempDir;

    @Test
    void aFileWithTheDefaultOrHeapTypeIsRefusedNamingBoth() {
        Path file = tempDir.resolve("pages.bin");
        for (MemoryType type : new MemoryType[] {MemoryType.NATIVE, MemoryType.HEAP}) {
            MemoryManager.Builder builder = MemoryManager.builder().registerMBean(false).type(type).mappedFile(file)
                    .pageSize(4096).totalSize(1L << 20);
            assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("mapped file " + file + " is set but the memory type is " + type);
        }
        assertThat(file).doesNotExist();
    }

    @Test
    void propertiesThatNameAFileButNoTypeAreRefused() {
        Path file = tempDir.resolve("pages.bin");
        Properties properties = new Properties();
        properties.setProperty("offheap.memory.size", "1m");
        properties.setProperty("offheap.memory.mapped-file", file.toString());
        MemoryManager.Builder builder = MemoryManager.builder().registerMBean(false).properties(properties);
        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is set but the memory type is NATIVE");
        properties.setProperty("offheap.memory.type", "mapped");
        try (MemoryManager manager = MemoryManager.builder().registerMBean(false).properties(properties).build()) {
            assertThat(manager.type()).isEqualTo(MemoryType.MAPPED);
        }
        assertThat(file).exists();
    }
}
