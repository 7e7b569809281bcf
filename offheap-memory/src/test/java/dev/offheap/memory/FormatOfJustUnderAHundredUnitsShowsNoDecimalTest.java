package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ByteSize#format} writes a value of a unit with one decimal below 100 and without one from 100 on
 * ({@code "99.5 KiB"}, {@code "100 KiB"}). It chose the pattern by the exact value and then rounded, so a
 * value from 99.95 up to 100 of a unit came out as {@code "100.0 KiB"}, while 102400 bytes read
 * {@code "100 KiB"}: two spellings of one number, and the only shown values with four digits and a decimal.
 */
class FormatOfJustUnderAHundredUnitsShowsNoDecimalTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            102349               | 100 KiB
            102399               | 100 KiB
            -102399              | -100 KiB
            104805376            | 100 MiB
            107373125632         | 100 GiB
            102297               | 99.9 KiB
            """)
    void aValueThatRoundsToAHundredIsWrittenWithoutADecimal(long bytes, String expected) {
        assertThat(ByteSize.format(bytes)).isEqualTo(expected);
    }

    /** Seeded: around 10, 100 and 1024 of every unit, the shown number follows the rule and is close to the value. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 99, 2024})
    void theShownNumberHasADecimalExactlyWhenItIsBelowAHundred(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<String> shownUnits = List.of("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB");
        double[] around = {9.9, 10, 99.9, 100, 1023.4, 1024};
        for (int i = 0; i < 2_000; i++) {
            long unit = 1L << (10 * (1 + random.nextInt(5))); // KiB to PiB
            double target = around[random.nextInt(around.length)];
            long bytes = (long) (target * unit) + random.nextLong(-unit / 8, unit / 8);
            String text = ByteSize.format(bytes);
            String number = text.substring(0, text.indexOf(' '));
            double shown = Double.parseDouble(number);
            assertThat(number.contains(".")).as("%d -> %s", bytes, text).isEqualTo(shown < 100);
            assertThat(shown).as("%d -> %s", bytes, text).isLessThan(1024);
            String shownUnit = text.substring(text.indexOf(' ') + 1);
            double exact = (double) bytes / (1L << (10 * shownUnits.indexOf(shownUnit)));
            assertThat(Math.abs(shown - exact)).as("%d -> %s", bytes, text).isLessThanOrEqualTo(0.5);
        }
    }
}
