package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Durations#parse} reads a duration exactly, rounding only below a nanosecond, and so reads back
 * what {@link Durations#format} wrote, as format's javadoc promises. Parse multiplied a double: past
 * 2^53 ns (104 days) a whole number of nanoseconds lost its last digits, and from about 48 days on a
 * duration with nanoseconds did not survive format and parse (300 days and 1 ns, written
 * {@code 25920000.000000001s}, read back 1 ns short).
 */
class DurationsReadExactlyTest {
    @Test
    void wholeNanosecondsAreReadAsWritten() {
        assertThat(Durations.parse("9007199254740993ns")).isEqualTo(Duration.ofNanos(9_007_199_254_740_993L));
        assertThat(Durations.parse("31535999999999999ns")).isEqualTo(Duration.ofNanos(31_535_999_999_999_999L));
    }

    @Test
    void formatReadsBackAsTheSameDuration() {
        for (Duration d : List.of(Duration.ofDays(300).plusNanos(1), Duration.ofNanos(9_007_199_254_740_993L),
                Duration.ofDays(365).minusNanos(1), Duration.ofSeconds(4_200_000, 999_999_999))) {
            assertThat(Durations.parse(Durations.format(d))).as(Durations.format(d)).isEqualTo(d);
        }
    }

    @Test
    void fractionsOfANanosecondStillRoundAndTooLongStillFails() {
        assertThat(Durations.parse("1.5ns")).isEqualTo(Duration.ofNanos(2));
        assertThat(Durations.parse("0.4ns")).isEqualTo(Duration.ZERO);
        assertThat(Durations.parse("1.0000000005s")).isEqualTo(Duration.ofNanos(1_000_000_001));
        assertThat(Durations.parse("9223372036854775807ns")).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
        assertThatThrownBy(() -> Durations.parse("9223372036854775808ns")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too long");
        assertThatThrownBy(() -> Durations.parse("99999999999999999999999h")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too long");
    }
}
