package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.Main;
import dev.offheap.cli.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * compare refuses a {@code --keys} below its {@code --max-entries}, but serve took one: its cache never filled,
 * nothing was evicted, and /stats showed a hit ratio near 100% for a cache that was never full. serve refuses
 * it as compare does, naming both values and what to change; a key space as large as the cache still serves.
 */
class AKeySpaceSmallerThanTheCacheIsAUsageErrorForServeTooTest {
    @Test
    void fewerKeysThanMaxEntriesIsRefusedNamingBothAndWhatToChange() {
        // --stop-after: where serve took the line, it would serve until stopped
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--loader", "memory", "--keys", "100",
                "--max-entries", "5000", "--port", "0", "--stop-after", "1s"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("offheap serve: --keys 100 is fewer than --max-entries 5000:")
                .contains("the cache would never fill")
                .contains("--keys of at least 5000")
                .contains("--max-entries of at most 100")
                .contains("Usage: offheap serve");
        assertThat(out.toString(StandardCharsets.UTF_8)).as("nothing served").isEmpty();
    }

    @Test
    void aKeySpaceAsLargeAsTheCacheOrLargerServes() throws UsageException {
        assertThat(ServeCommand.parse(List.of("--loader", "memory", "--keys", "5000", "--max-entries", "5000")).keys())
                .isEqualTo(5000);
        assertThat(ServeCommand.parse(List.of("--loader", "memory", "-k", "5001", "-e", "5000")).keys())
                .isEqualTo(5001);
        assertThatThrownBy(() -> ServeCommand.parse(List.of("--loader", "memory", "-k", "4999")))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("--keys 4999 is fewer than --max-entries 5000:");
    }

    @Test
    void theHelpSaysTheKeySpaceMustHoldTheCache() {
        assertThat(new ServeCommand().help()).contains("at least max entries");
    }
}
