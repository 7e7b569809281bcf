package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteSizeTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0            | 0
            1            | 1
            1073741824   | 1073741824
            7b           | 7
            7B           | 7
            1k           | 1024
            1K           | 1024
            1kb          | 1024
            1KB          | 1024
            1kib         | 1024
            1KiB         | 1024
            32k          | 32768
            32 KiB       | 32768
            '  32 k  '   | 32768
            512m         | 536870912
            512 MB       | 536870912
            2mib         | 2097152
            1g           | 1073741824
            4 GiB        | 4294967296
            1gb          | 1073741824
            1t           | 1099511627776
            3 TB         | 3298534883328
            2tib         | 2199023255552
            1_000        | 1000
            1_000 m      | 1048576000
            1__0k        | 10240
            8388607t     | 9223370937343148032
            9223372036854775807 | 9223372036854775807
            """)
    void parsesNumbersWithBinaryUnits(String text, long expected) {
        assertThat(ByteSize.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", " ", "_", "k", "m5", "abc", "-1", "-1k", "+1", "1.5g", "1,5g", "0x10", "1e3",
            "12 parsecs", "1 k b", "5kk", "5 bytes", "1gig", "10 mb extra"})
    void rejectsTextThatIsNotASize(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(text.trim().isEmpty() ? "'" : text.trim())
                .as("no cause: the sign of an overflow, which callers tell apart by it").hasNoCause();
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"9223372036854775808", "99999999999999999999999", "8388608t", "8589934592g",
            "9007199254740992k", "9223372036854775807k"})
    void rejectsSizesThatOverflowALong(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(text)
                .hasMessageContaining("does not fit in a long")
                .cause().as("an overflow has the failure that found it as its cause").isNotNull();
    }

    @Test
    void negativeSizesAreRejected() {
        assertThatThrownBy(() -> ByteSize.parse("-5m")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-5m");
    }

    @Test
    void nullIsRejectedWithNullPointerException() {
        assertThatThrownBy(() -> ByteSize.parse(null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0                    | 0 B
            1                    | 1 B
            100                  | 100 B
            1023                 | 1023 B
            1024                 | 1.0 KiB
            1536                 | 1.5 KiB
            32768                | 32.0 KiB
            102400               | 100 KiB
            1047552              | 1023 KiB
            1048576              | 1.0 MiB
            536870912            | 512 MiB
            1073741824           | 1.0 GiB
            1099511627776        | 1.0 TiB
            1125899906842624     | 1.0 PiB
            1152921504606846976  | 1.0 EiB
            9223372036854775807  | 8.0 EiB
            -1                   | -1 B
            -1536                | -1.5 KiB
            -9223372036854775808 | -8.0 EiB
            """)
    void formatsWithBinaryUnits(long bytes, String expected) {
        assertThat(ByteSize.format(bytes)).isEqualTo(expected);
    }

    /** Formatting never uses a unit too small for the number: a value just below the next unit is not "1024 KiB". */
    @ParameterizedTest(name = "{0}")
    @ValueSource(longs = {1048575L, 1073741823L, 1099511627775L})
    void formatNeverShowsAThousandTwentyFourOfAUnit(long bytes) {
        assertThat(ByteSize.format(bytes)).doesNotStartWith("1024 ");
    }

    /** Seeded round trip: a formatted whole number of a unit parses back to the same count. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 2024})
    void parseOfUnitMultiplesRoundTrips(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        String[] units = {"", "b", "k", "kb", "kib", "m", "mb", "mib", "g", "gb", "gib", "t", "tb", "tib"};
        long[] multipliers = {1, 1, 1L << 10, 1L << 10, 1L << 10, 1L << 20, 1L << 20, 1L << 20, 1L << 30, 1L << 30, 1L << 30,
                1L << 40, 1L << 40, 1L << 40};
        for (int i = 0; i < 200; i++) {
            int u = random.nextInt(units.length);
            long number = random.nextLong(Long.MAX_VALUE / multipliers[u]);
            String unit = random.nextBoolean() ? units[u].toUpperCase() : units[u];
            String text = number + (random.nextBoolean() ? " " : "") + unit;
            assertThat(ByteSize.parse(text)).as(text).isEqualTo(number * multipliers[u]);
        }
    }
}
