package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * {@link ByteSize#parse} reads ASCII digits and units only. It took any character that
 * {@link Character#isDigit} and {@link Long#parseLong} take (Arabic-Indic, Devanagari, fullwidth
 * digits), so "１２MiB" was 12 MiB, and the Kelvin sign (U+212A), which {@code toLowerCase} turns
 * into 'k', was a kibibyte. A size in a configuration file that only looks like digits is a
 * mistake to report, not a value to guess at; the memory manager's size properties go through
 * the same parser.
 */
class SizesWithCharactersThatAreNotAsciiAreRefusedTest {

    private static final String[] NOT_ASCII = {
            "\uFF11\uFF12MiB", // fullwidth 12
            "\u0661\u0662m", // Arabic-Indic 12
            "\u0967\u0968k", // Devanagari 12
            "1\uFF12", // ASCII 1, fullwidth 2
            "12\u212A", // Kelvin sign
            "12\u212AiB",
            "\uFF18\uFF11\uFF19\uFF12", // fullwidth 8192
            "12\u00A0m", // no-break space between number and unit
    };

    @Test
    void parseRefusesCharactersThatAreNotAsciiAndNamesTheInput() {
        for (String text : NOT_ASCII) {
            assertThatThrownBy(() -> ByteSize.parse(text)).as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + text + "'");
        }
    }

    @Test
    void asciiSizesStillParse() {
        assertThat(ByteSize.parse("12MiB")).isEqualTo(12L << 20);
        assertThat(ByteSize.parse(" 1_024 k ")).isEqualTo(1L << 20);
        assertThat(ByteSize.parse("12K")).isEqualTo(12L << 10);
        assertThat(ByteSize.parse("8192")).isEqualTo(8192);
    }

    @Test
    void theManagersSizePropertiesRefuseThemAndChangeNothing() {
        for (String key : new String[] {"offheap.memory.size", "offheap.memory.page-size"}) {
            for (String text : NOT_ASCII) {
                MemoryManager.Builder builder = MemoryManager.builder().pageSize(8192).totalSize(16 * 8192)
                        .type(MemoryType.HEAP).registerMBean(false);
                Properties p = new Properties();
                p.setProperty(key, text);
                assertThatThrownBy(() -> builder.properties(p)).as("%s=%s", key, text)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(key)
                        .hasMessageContaining(text.strip());
                try (MemoryManager mm = builder.build()) {
                    assertThat(mm.pageSize()).isEqualTo(8192);
                    assertThat(mm.totalBytes()).isEqualTo(16 * 8192);
                }
            }
        }
    }
}
