package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Builder.properties applies all of its keys or none. It applied them one by one, in the order of a hash set,
 * so a key with a bad value (or an unknown key) threw after the keys before it had changed the builder: a
 * caller that caught the IllegalArgumentException and built anyway (with its own defaults as the fallback)
 * got a manager half configured from the properties it had been told were refused.
 */
class PropertiesWithABadKeyChangeNothingTest {
    private static final int PAGE = 8192;
    private static final long TOTAL = 16L * PAGE;

    private static MemoryManager.Builder configured() {
        return MemoryManager.builder().pageSize(PAGE).totalSize(TOTAL).type(MemoryType.NATIVE)
                .pageAccess(PageAccess.CONFINED).registerMBean(false).leakReporter(r -> { });
    }

    private static void assertStillConfiguredAsBefore(MemoryManager.Builder builder) {
        try (MemoryManager mm = builder.build()) {
            assertThat(mm.pageSize()).as("page size").isEqualTo(PAGE);
            assertThat(mm.totalBytes()).as("total size").isEqualTo(TOTAL);
            assertThat(mm.type()).isEqualTo(MemoryType.NATIVE);
            assertThat(mm.pageAccess()).isEqualTo(PageAccess.CONFINED);
            assertThat(mm.name()).doesNotStartWith("from-properties");
        }
    }

    @Test
    void aGoodPageSizeIsNotAppliedWhenTheSizeIsBad() {
        MemoryManager.Builder builder = configured();
        Properties p = new Properties();
        p.setProperty("offheap.memory.page-size", "16k");
        p.setProperty("offheap.memory.size", "lots");
        assertThatThrownBy(() -> builder.properties(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.size").hasMessageContaining("lots");
        assertStillConfiguredAsBefore(builder);
    }

    @Test
    void aGoodSizeIsNotAppliedWhenThePageSizeIsBad() {
        MemoryManager.Builder builder = configured();
        Properties p = new Properties();
        p.setProperty("offheap.memory.size", "1m");
        p.setProperty("offheap.memory.page-size", "3k");
        assertThatThrownBy(() -> builder.properties(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.page-size");
        assertStillConfiguredAsBefore(builder);
    }

    @Test
    void noGoodKeyIsAppliedWhateverTheBadOne() {
        String[][] bad = {
                {"offheap.memory.size", "-1"},
                {"offheap.memory.fraction-of-heap", "2"},
                {"offheap.memory.page-size", "128m"},
                {"offheap.memory.type", "disk"},
                {"offheap.memory.page-access", "everyone"},
                {"offheap.memory.preallocate", "yes"},
                {"offheap.memory.name", "a/b"},
                {"offheap.memory.register-mbean", "maybe"},
                {"offheap.memory.pagesize", "16k"},
        };
        for (String[] keyAndValue : bad) {
            MemoryManager.Builder builder = configured();
            Properties p = new Properties();
            // every key but the bad one, with good values that differ from the builder's
            p.setProperty("offheap.memory.page-size", "16k");
            p.setProperty("offheap.memory.type", "heap");
            p.setProperty("offheap.memory.page-access", "shared");
            p.setProperty("offheap.memory.preallocate", "true");
            p.setProperty("offheap.memory.name", "from-properties");
            p.setProperty("offheap.memory.register-mbean", "true");
            if (!keyAndValue[0].contains("fraction")) {
                p.setProperty("offheap.memory.size", "1m");
            }
            p.setProperty(keyAndValue[0], keyAndValue[1]);
            assertThatThrownBy(() -> builder.properties(p)).as(keyAndValue[0] + "=" + keyAndValue[1])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(keyAndValue[0]);
            assertStillConfiguredAsBefore(builder);
        }
    }

    @Test
    void goodPropertiesAreAllApplied() {
        MemoryManager.Builder builder = configured();
        Properties p = new Properties();
        p.setProperty("offheap.memory.page-size", "16k");
        p.setProperty("offheap.memory.size", "1m");
        p.setProperty("offheap.memory.page-access", "shared");
        p.setProperty("offheap.memory.name", "from-properties-ok");
        try (MemoryManager mm = builder.properties(p).build()) {
            assertThat(mm.pageSize()).isEqualTo(16 * 1024);
            assertThat(mm.totalBytes()).isEqualTo(1 << 20);
            assertThat(mm.pageAccess()).isEqualTo(PageAccess.SHARED);
            assertThat(mm.name()).isEqualTo("from-properties-ok");
            assertThat(mm.type()).as("not in the properties: the builder's").isEqualTo(MemoryType.NATIVE);
        }
    }
}
