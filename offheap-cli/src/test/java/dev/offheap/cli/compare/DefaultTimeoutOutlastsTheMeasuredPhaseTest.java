package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.UsageException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Without {@code --timeout}, a variant JVM is not killed before the measured phase the command line asks
 * for can end. The default was 10 minutes whatever the phase, so {@code --duration 20m} (or {@code --rate 100
 * --requests 100000}, 1,000 s on schedule) was accepted and then killed every variant JVM at 10 minutes:
 * each setting's variants all "timed out", after 10 minutes apiece, and the run measured nothing.
 */
class DefaultTimeoutOutlastsTheMeasuredPhaseTest {
    @Test
    void aLongDurationGetsATimeoutPastIt() throws UsageException {
        Duration timeout = CompareOptions.parse(List.of("--duration", "20m")).timeout();
        assertThat(timeout).isGreaterThan(Duration.ofMinutes(20));
    }

    @Test
    void aLongScheduleGetsATimeoutPastIt() throws UsageException {
        // 100,000 requests at 100 per second: the last ones are scheduled about 1,000 s after the phase starts
        Duration timeout = CompareOptions.parse(List.of("--rate", "100", "--requests", "100000")).timeout();
        assertThat(timeout).isGreaterThan(Duration.ofSeconds(1_000));
    }

    @Test
    void theLongestScheduleStillGivesATimeoutInMilliseconds() throws UsageException {
        // the launcher waits timeout().toMillis(): a timeout from a schedule of 4.6e18 requests at 1/s must not
        // overflow it
        Duration timeout = CompareOptions.parse(List.of("--rate", "10", "--requests", Long.toString(Long.MAX_VALUE / 2)))
                .timeout();
        assertThat(timeout.toMillis()).isPositive();
    }

    @Test
    void aClosedLoopKeepsTheTenMinuteDefaultAndAGivenTimeoutIsKept() throws UsageException {
        assertThat(CompareOptions.parse(List.of()).timeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(CompareOptions.parse(List.of("--requests", "5000000")).timeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(CompareOptions.parse(List.of("--duration", "30s")).timeout()).isEqualTo(Duration.ofSeconds(630));
        assertThat(CompareOptions.parse(List.of("--rate", "20000", "--requests", "400000")).timeout())
                .isEqualTo(Duration.ofSeconds(620));
        // the user's own limit wins, shorter than the phase or not (a test kills a JVM this way)
        assertThat(CompareOptions.parse(List.of("--timeout", "200ms", "--duration", "30s")).timeout())
                .isEqualTo(Duration.ofMillis(200));
        assertThat(CompareOptions.parse(List.of("--timeout", "5m", "--duration", "20m")).timeout())
                .isEqualTo(Duration.ofMinutes(5));
    }
}
