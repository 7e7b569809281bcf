package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.UsageException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * compare checked that an inline value was not empty before it knew the option: {@code --bogus=} was told it
 * "needs a non-empty value", as if {@code --bogus} were an option, and {@code --nmt=} that it needs a value, where
 * it takes none. An unknown option is now called unknown and a flag said to take no value, as with any other
 * inline value.
 */
class AnEmptyInlineValueOfAFlagOrAnUnknownOptionIsNamedSoTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "--bogus=;unknown option '--bogus='",
        "-x=;unknown option '-x='",
        "--nmt=;--nmt takes no value",
        "--dry-run=;--dry-run takes no value",
        "--out=;--out needs a non-empty value",
    })
    void theMessageNamesWhatIsWrong(String arg, String message) {
        assertThatThrownBy(() -> CompareOptions.parse(List.of(arg, "--loader", "memory")))
                .isInstanceOf(UsageException.class).hasMessage(message);
    }
}
