package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.memory.alloc.DebugMode;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The other settings read from text take ASCII only, like {@link ByteSize#parse}. The memory
 * manager's {@code type} and {@code page-access} properties were upper-cased before the enum
 * lookup, and upper-casing maps some other letters onto ASCII ones (dotless 'ı' to 'I', long 'ſ'
 * to 'S', the ligature 'ﬁ' to "FI"), so "natıve" was NATIVE and "conﬁned" CONFINED; the
 * allocators' sample-rate system property went through {@link Integer#parseInt}, which takes any
 * script's digits ("１６" was 16).
 */
class SettingsWithCharactersThatAreNotAsciiAreRefusedTest {

    @Test
    void theManagersTypeAndPageAccessPropertiesRefuseLettersThatOnlyUpperCaseToAscii() {
        String[][] bad = {
                {"offheap.memory.type", "nat\u0131ve"},
                {"offheap.memory.type", "mapped\u017F"},
                {"offheap.memory.page-access", "\u017Fhared"},
                {"offheap.memory.page-access", "con\uFB01ned"},
                {"offheap.memory.page-access", "conf\u0131ned"},
        };
        for (String[] kv : bad) {
            MemoryManager.Builder builder = MemoryManager.builder().pageSize(8192).totalSize(16 * 8192)
                    .type(MemoryType.HEAP).pageAccess(PageAccess.SHARED).registerMBean(false);
            Properties p = new Properties();
            p.setProperty(kv[0], kv[1]);
            assertThatThrownBy(() -> builder.properties(p)).as("%s=%s", kv[0], kv[1])
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(kv[0])
                    .hasMessageContaining(kv[1]);
            try (MemoryManager mm = builder.build()) {
                assertThat(mm.type()).isEqualTo(MemoryType.HEAP);
                assertThat(mm.pageAccess()).isEqualTo(PageAccess.SHARED);
            }
        }
    }

    @Test
    void asciiValuesInAnyCaseStillWork() {
        Properties p = new Properties();
        p.setProperty("offheap.memory.type", "Native");
        p.setProperty("offheap.memory.page-access", "CONFINED");
        p.setProperty("offheap.memory.preallocate", "TRUE");
        MemoryManager.Builder builder = MemoryManager.builder().pageSize(8192).totalSize(16 * 8192)
                .registerMBean(false).properties(p);
        try (MemoryManager mm = builder.build()) {
            assertThat(mm.type()).isEqualTo(MemoryType.NATIVE);
            assertThat(mm.pageAccess()).isEqualTo(PageAccess.CONFINED);
        }
    }

    @Test
    void theSampleRatePropertyRefusesDigitsThatAreNotAscii() {
        String before = System.getProperty(DebugMode.SAMPLE_RATE_PROPERTY);
        try {
            for (String text : new String[] {"\uFF11\uFF16", "\u0661\u0666", "1\u0966"}) {
                System.setProperty(DebugMode.SAMPLE_RATE_PROPERTY, text);
                assertThatThrownBy(DebugMode::defaultSampleRate).as(text)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(DebugMode.SAMPLE_RATE_PROPERTY)
                        .hasMessageContaining(text);
            }
            System.setProperty(DebugMode.SAMPLE_RATE_PROPERTY, " 16 ");
            assertThat(DebugMode.defaultSampleRate()).isEqualTo(16);
        } finally {
            if (before == null) {
                System.clearProperty(DebugMode.SAMPLE_RATE_PROPERTY);
            } else {
                System.setProperty(DebugMode.SAMPLE_RATE_PROPERTY, before);
            }
        }
    }
}
