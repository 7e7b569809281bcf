package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A malformed count given to bench ({@code --threads 5_}) was refused without a word on how numbers are written,
 * and {@code -t} was named {@code --threads}, where compare and serve say how (ASCII digits, underscores only
 * between digits) and name the option as given.
 */
class BenchSaysHowACountIsWrittenAsCompareAndServeDoTest {
    @Test
    void aMalformedThreadCountSaysHowNumbersAreWritten() {
        assertThatThrownBy(() -> bench().parse(List.of("tiny", "--threads", "5_")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--threads: expected a number of threads from 1 to 1024, got '5_' ("
                        + OptionValues.HOW_NUMBERS_ARE_WRITTEN + ")");
    }

    @Test
    void aMalformedCountIsRefusedUnderTheNameItWasGivenSayingHowNumbersAreWritten() {
        assertThatThrownBy(() -> bench().parse(List.of("tiny", "-t=+4")))
                .isInstanceOf(UsageException.class)
                .hasMessage("-t: expected a number of threads from 1 to 1024, got '+4' ("
                        + OptionValues.HOW_NUMBERS_ARE_WRITTEN + ")");
        assertThatThrownBy(() -> bench().parse(List.of("tiny", "--forks", "_2")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--forks: expected a number of forks from 1 to 20, got '_2' ("
                        + OptionValues.HOW_NUMBERS_ARE_WRITTEN + ")");
    }

    @Test
    void aWellWrittenCountOutOfRangeNamesOnlyTheRange() {
        assertThatThrownBy(() -> bench().parse(List.of("tiny", "-t", "0")))
                .isInstanceOf(UsageException.class)
                .hasMessage("-t: expected a number of threads from 1 to 1024, got '0'");
    }

    private static BenchCommand bench() {
        return new BenchCommand(new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                Map.of("size", List.of("16"))))), List::of);
    }
}
