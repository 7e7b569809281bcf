package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import dev.offheap.cli.compare.CompareOptions;
import dev.offheap.cli.serve.ServeCommand;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A count ({@code --threads}, {@code --max-entries}, {@code --port}, ...) dropped every underscore before it was
 * read, so that {@code _5}, {@code 5_} and {@code 5_ } passed as 5, while a size refused them; it also took other
 * scripts' digits (fullwidth {@code １２} as 12), which a size refuses too. bench's counts took no underscore at
 * all. Counts and sizes now follow one rule, a Java literal's: ASCII digits, underscores only between two digits.
 */
class UnderscoresGoOnlyBetweenDigitsInCountsAsInSizesTest {
    @ParameterizedTest
    @ValueSource(strings = {"_5", "5_", "5__", "_", "1_ 0", "\uff15", "+5"})
    void aCountWithAnUnderscoreOutsideItsDigitsIsRefusedAsASizeIs(String text) {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--threads", text, "--loader", "memory")))
                .isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--threads: expected a whole number from 1 to 1024, got '" + text + "'");
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--value-size", text, "--loader", "memory")))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("--value-size: expected a size");
        assertThatThrownBy(() -> ServeCommand.parse(List.of("--port", text, "--loader", "memory")))
                .isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--port: expected a whole number from 0 to 65535, got '" + text + "'");
        assertThatThrownBy(() -> bench().parse(List.of("tiny", "--threads", text)))
                .isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--threads: expected a number of threads from 1 to 1024, got '" + text + "'");
    }

    @Test
    void theMessageSaysWhereUnderscoresMayGo() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--max-entries", "5_", "--loader", "memory")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--max-entries: expected a whole number from 1 to 10000000, got '5_' (ASCII digits;"
                        + " underscores may only separate digits, as in 100_000)");
    }

    @Test
    void underscoresBetweenDigitsAreTakenByEveryCountAsBySizes() throws UsageException {
        CompareOptions o = CompareOptions.parse(List.of("--threads", "1_6", "--max-entries", "5_000,10__000",
                "--value-size", "1_000", "--keys", "20_000", "--seed", "-1_2", "--loader", "memory"));
        assertThat(o.threads()).isEqualTo(16);
        assertThat(o.maxEntries()).containsExactly(5_000, 10_000);
        assertThat(o.valueSizes()).containsExactly(1_000);
        assertThat(o.keys()).isEqualTo(20_000);
        assertThat(o.seed()).isEqualTo(-12);
        assertThat(ServeCommand.parse(List.of("--port", "8_080", "--loader", "memory")).port()).isEqualTo(8080);
        BenchCommand.Args bench = bench().parse(List.of("tiny", "--threads", "1_6", "--forks", "1_0"));
        assertThat(bench.threads()).isEqualTo(16);
        assertThat(bench.forks()).isEqualTo(10);
    }

    @Test
    void aNegativeCountIsStillNamedWithItsRange() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--threads", "-3", "--loader", "memory")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--threads: expected a whole number from 1 to 1024, got -3");
    }

    private static BenchCommand bench() {
        return new BenchCommand(new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                Map.of("size", List.of("16"))))), List::of);
    }
}
