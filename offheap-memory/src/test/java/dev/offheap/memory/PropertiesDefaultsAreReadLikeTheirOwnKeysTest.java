package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Builder.properties reads the defaults of the properties ({@code new Properties(defaults)}) as it reads
 * their own keys: String values apply, and count against the one-size rule, unless the properties
 * themselves have the key; a key under the prefix whose value is not a String is refused, as it is among the
 * properties' own keys. That check looked at the properties' own table only (entrySet does not see the
 * defaults), so a non-String value in the defaults was skipped as if absent: a known key silently not
 * applied, where the same key in the properties themselves was refused.
 */
class PropertiesDefaultsAreReadLikeTheirOwnKeysTest {

    private static MemoryManager.Builder builder() {
        return MemoryManager.builder().registerMBean(false).leakReporter(r -> { });
    }

    @Test
    void aValueThatIsNotAStringInTheDefaultsIsRefusedNotIgnored() {
        Properties defaults = new Properties();
        defaults.setProperty("offheap.memory.size", "64k");
        defaults.put("offheap.memory.page-size", 8192);
        Properties p = new Properties(defaults);
        assertThatThrownBy(() -> builder().properties(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.page-size").hasMessageContaining("not a String");
    }

    @Test
    void anUnknownKeyWithAValueThatIsNotAStringInTheDefaultsIsRefused() {
        Properties defaults = new Properties();
        defaults.put("offheap.memory.regster-mbean", Boolean.FALSE);
        Properties p = new Properties(defaults);
        p.setProperty("offheap.memory.size", "64k");
        assertThatThrownBy(() -> builder().properties(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.regster-mbean");
    }

    @Test
    void stringValuesOfTheDefaultsApplyUnlessThePropertiesHaveTheKey() {
        Properties defaults = new Properties();
        defaults.setProperty("offheap.memory.size", "64k");
        defaults.setProperty("offheap.memory.page-size", "8k");
        defaults.setProperty("offheap.memory.page-access", "shared");
        Properties p = new Properties(defaults);
        p.setProperty("offheap.memory.page-size", "16k");
        try (MemoryManager mm = builder().properties(p).build()) {
            assertThat(mm.totalBytes()).as("from the defaults").isEqualTo(64 * 1024);
            assertThat(mm.pageAccess()).as("from the defaults").isEqualTo(PageAccess.SHARED);
            assertThat(mm.pageSize()).as("the properties' own value, over the default").isEqualTo(16 * 1024);
        }
    }

    @Test
    void aStringValueOfThePropertiesHidesADefaultThatIsNotAString() {
        Properties defaults = new Properties();
        defaults.put("offheap.memory.page-size", 8192);
        Properties p = new Properties(defaults);
        p.setProperty("offheap.memory.size", "64k");
        p.setProperty("offheap.memory.page-size", "16k");
        try (MemoryManager mm = builder().properties(p).build()) {
            assertThat(mm.pageSize()).isEqualTo(16 * 1024);
        }
    }

    @Test
    void aSizeInTheDefaultsAndAnotherInThePropertiesAreTwoSizes() {
        Properties defaults = new Properties();
        defaults.setProperty("offheap.memory.fraction-of-heap", "0.1");
        Properties p = new Properties(defaults);
        p.setProperty("offheap.memory.size", "64k");
        assertThatThrownBy(() -> builder().properties(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.fraction-of-heap").hasMessageContaining("offheap.memory.size");
    }

    @Test
    void keysAndValuesOutsideThePrefixInTheDefaultsAreIgnoredWhateverTheirType() {
        Properties defaults = new Properties();
        defaults.put("taskmanager.memory.size", 1L << 30);
        defaults.put(42, "not a string key");
        Properties p = new Properties(defaults);
        p.setProperty("offheap.memory.size", "64k");
        try (MemoryManager mm = builder().properties(p).build()) {
            assertThat(mm.totalBytes()).isEqualTo(64 * 1024);
        }
    }
}
