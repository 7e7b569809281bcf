package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.UsageException;
import dev.offheap.cli.compare.CompareOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With the database loader, {@code --max-entries} over 2,500,000 and no {@code --keys} make the default key
 * count (twice the entries) pass the database's 5,000,000 offers. The usage error then told a user who never
 * gave {@code --keys} to give "a smaller --keys". It names what the user gave, {@code --max-entries}, and the
 * ways out.
 */
class ADefaultKeyCountPastTheDatabaseNamesMaxEntriesTest {
    @Test
    void serveNamesMaxEntries() {
        assertThatThrownBy(() -> ServeCommand.parse(List.of("--max-entries", "3000000")))
                .isInstanceOf(UsageException.class)
                .hasMessage("the offer database would hold 6,000,000 offers (12,288 MB of text), 2 x --max-entries"
                        + " for want of --keys, more than the 5,000,000 it may: a smaller --max-entries, --keys of"
                        + " at most 5,000,000, or --loader memory");
    }

    @Test
    void compareNamesMaxEntries() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--max-entries", "1000,3000000")))
                .isInstanceOf(UsageException.class)
                .hasMessage("the offer database would hold 6,000,000 offers (12,288 MB of text), 2 x --max-entries"
                        + " for want of --keys, more than the 5,000,000 it may: a smaller --max-entries, --keys of"
                        + " at most 5,000,000, or --loader memory");
    }

    @Test
    void aKeysGivenIsStillNamed() {
        assertThatThrownBy(() -> ServeCommand.parse(List.of("--keys", "5000001")))
                .isInstanceOf(UsageException.class).hasMessageContaining("a smaller --keys")
                .hasMessageNotContaining("--max-entries");
    }
}
