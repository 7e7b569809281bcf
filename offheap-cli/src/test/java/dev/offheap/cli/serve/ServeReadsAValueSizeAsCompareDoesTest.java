package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.UsageException;
import dev.offheap.cli.compare.CompareOptions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * serve read {@code --value-size} with its own messages: a size too large for a 64-bit count
 * ({@code 99999999999999999999}, {@code 1_000_000_000_000_000t}) was "expected a size in bytes such as 100000",
 * as if it were not written as a size, and one out of range was "expected 1 to 67108864 bytes", where compare
 * names its range as sizes ({@code 1 B to 64.0 MiB}). serve now refuses a value size with compare's messages.
 */
class ServeReadsAValueSizeAsCompareDoesTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "99999999999999999999;--value-size: expected a size from 1 B to 64.0 MiB, got 99999999999999999999 (more bytes"
            + " than a 64-bit count holds)",
        "1_000_000_000_000_000t;--value-size: expected a size from 1 B to 64.0 MiB, got 1_000_000_000_000_000t (more"
            + " bytes than a 64-bit count holds)",
        "65m;--value-size: expected a size from 1 B to 64.0 MiB, got 65m (68157440 bytes)",
        "0;--value-size: expected a size from 1 B to 64.0 MiB, got 0 (0 bytes)",
        "lots;--value-size: expected a size in bytes such as 100000, 64k or 2g, got 'lots'",
    })
    void serveRefusesAValueSizeWithComparesMessage(String size, String message) {
        assertThatThrownBy(() -> ServeCommand.parse(List.of("--value-size", size, "--loader", "memory")))
                .isInstanceOf(UsageException.class).hasMessage(message);
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--value-size", size, "--loader", "memory")))
                .isInstanceOf(UsageException.class).hasMessage(message);
    }

    @Test
    void aShortNameIsNamedAsGiven() {
        assertThatThrownBy(() -> ServeCommand.parse(List.of("-s", "0", "--loader", "memory")))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("-s: expected a size from 1 B");
    }
}
