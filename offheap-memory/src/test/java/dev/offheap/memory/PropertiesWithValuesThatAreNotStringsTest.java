package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Builder.properties reads String values only (what getProperty returns), so a key under the prefix put
 * with another type of value (a Properties filled from a typed map: {@code put(key, 8192)}) was skipped as
 * if it were absent: a known key was silently not applied (the manager got the default page size, or
 * registered its MBean when told not to), and a misspelt one was not rejected as unknown. Each is now
 * refused, naming the key.
 */
class PropertiesWithValuesThatAreNotStringsTest {

    @Test
    void aKnownKeyWithAValueThatIsNotAStringIsRefusedNotIgnored() {
        Properties p = new Properties();
        p.setProperty("offheap.memory.size", "64k");
        p.setProperty("offheap.memory.register-mbean", "false");
        p.put("offheap.memory.page-size", 8192);
        assertThatThrownBy(() -> MemoryManager.builder().properties(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.page-size").hasMessageContaining("Integer");
    }

    @Test
    void anUnknownKeyWithAValueThatIsNotAStringIsRefused() {
        Properties p = new Properties();
        p.setProperty("offheap.memory.size", "64k");
        p.put("offheap.memory.regster-mbean", Boolean.FALSE);
        assertThatThrownBy(() -> MemoryManager.builder().properties(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.regster-mbean");
    }

    @Test
    void valuesOfOtherKeysAreStillIgnoredWhateverTheirType() {
        Properties p = new Properties();
        p.setProperty("offheap.memory.size", "64k");
        p.setProperty("offheap.memory.register-mbean", "false");
        p.put("taskmanager.memory.size", 1L << 30);
        p.put(42, "not a string key");
        try (MemoryManager mm = MemoryManager.builder().properties(p).leakReporter(r -> { }).build()) {
            assertThat(mm.totalBytes()).isEqualTo(64 * 1024);
        }
    }
}
