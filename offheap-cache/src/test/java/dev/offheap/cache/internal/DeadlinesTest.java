package dev.offheap.cache.internal;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The 4-byte deadline codes: never early, late by at most 2^-26 of the deadline, ordered as deadlines are. */
class DeadlinesTest {
    /** The most milliseconds a difference of nanosecond clock readings can count. */
    private static final long LONGEST_READING = Long.MAX_VALUE / 1_000_000;

    @Test
    void aDeadlineDecodesToItselfOrAtMostOneStepLaterAndNeverEarlier() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            long millis = random.nextLong(1, LONGEST_READING * 2);
            int code = Deadlines.encode(millis);
            assertThat(code).isPositive();
            long decoded = Deadlines.decode(code);
            assertThat(decoded).as("%d ms", millis).isGreaterThanOrEqualTo(millis)
                    .isLessThanOrEqualTo(millis + Math.max(0, millis >> 26));
            assertThat(Deadlines.encode(decoded)).as("a decoded deadline is its own code").isEqualTo(code);
        }
    }

    @Test
    void deadlinesBelowTwelveDaysAreExactToTheMillisecond() {
        for (long millis : new long[] {1, 2, 999, 1L << 29, (1L << 30) - 1}) {
            assertThat(Deadlines.decode(Deadlines.encode(millis))).isEqualTo(millis);
        }
        assertThat(Deadlines.encode(0)).isEqualTo(1);
        assertThat(Deadlines.encode(-5)).isEqualTo(1);
        assertThat(Deadlines.encode(Long.MIN_VALUE)).isEqualTo(1);
    }

    @Test
    void codesOrderAsTheirDeadlinesDoAcrossEveryStepChange() {
        long previousMillis = 0;
        int previousCode = 0;
        for (int exponent = 29; exponent < 63; exponent++) {
            for (long millis : new long[] {(1L << exponent) - 1, 1L << exponent, (1L << exponent) + 1}) {
                int code = Deadlines.encode(millis);
                assertThat(code).as("%d ms", millis).isGreaterThanOrEqualTo(previousCode);
                assertThat(Deadlines.decode(code) >= previousMillis || code == Integer.MAX_VALUE).isTrue();
                previousMillis = millis;
                previousCode = code;
            }
        }
        assertThat(Deadlines.encode(Long.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void noDeadlineAClockCanReachSaturatesAndTheLastCodeLiesBeyondEveryReading() {
        assertThat(Deadlines.encode(2 * LONGEST_READING)).isLessThan(Integer.MAX_VALUE);
        assertThat(Deadlines.passed(Integer.MAX_VALUE, LONGEST_READING)).isFalse();
        int last = Deadlines.encode(LONGEST_READING);
        assertThat(Deadlines.passed(last, LONGEST_READING - 1)).isFalse();
        assertThat(Deadlines.passed(last, Deadlines.decode(last))).isTrue();
        assertThat(Deadlines.passed(Deadlines.NEVER, Long.MAX_VALUE)).isFalse();
    }
}
