package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ByteSize#parse} takes underscores where a Java literal takes them: between two digits,
 * one or several. It removed every underscore before reading the text, so {@code _12},
 * {@code 12_}, {@code 12m_b} and {@code 12 m_i_b} were sizes; a stray underscore in a
 * configuration file is a typing mistake to report, not a separator to skip.
 */
class UnderscoresOnlyBetweenDigitsTest {

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"_12", "12_", "_", "__", "12m_b", "12 m_i_b", "12_m", "12_ m", "12 _m", "1_k",
            "1_000_", "_1_000", " _12 ", "12k_", "12 mi_b", "1_000 m_"})
    void underscoresThatDoNotSeparateDigitsAreRefusedWithTheInputNamed(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'")
                .hasMessageContaining("underscore");
    }

    @ParameterizedTest(name = "''{0}'' = {1}")
    @CsvSource(delimiter = '|', textBlock = """
            1_000       | 1000
            1__0k       | 10240
            1_000 m     | 1048576000
            1_024k      | 1048576
            ' 1_0 '     | 10
            9_223_372_036_854_775_807 | 9223372036854775807
            """)
    void underscoresBetweenDigitsStillSeparateThem(String text, long expected) {
        assertThat(ByteSize.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"_8192", "8192_", "8k_b"})
    void theManagersPageSizePropertyRefusesThem(String text) {
        Properties p = new Properties();
        p.setProperty("offheap.memory.page-size", text);
        assertThatThrownBy(() -> MemoryManager.builder().properties(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.page-size")
                .hasMessageContaining(text);
    }
}
