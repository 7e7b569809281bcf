package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.UsageException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code inspect 12 --frobnicate=1} said "--frobnicate takes no value", as if {@code --frobnicate} were a flag of
 * inspect's; now an option inspect does not know is called unknown whether or not it has a value inline, as
 * compare, serve and bench call it, and only its flags {@code --json} and {@code --reports} take no value.
 */
class AnUnknownOptionWithAnInlineValueIsCalledUnknownTest {
    @ParameterizedTest
    @ValueSource(strings = {"--frobnicate=1", "-x=1", "--=1"})
    void anUnknownOptionIsCalledUnknownAsGiven(String option) {
        assertThatThrownBy(() -> InspectCommand.parse(List.of("12", option))).isInstanceOf(UsageException.class)
                .hasMessage("unknown option '" + option + "'");
    }
}
