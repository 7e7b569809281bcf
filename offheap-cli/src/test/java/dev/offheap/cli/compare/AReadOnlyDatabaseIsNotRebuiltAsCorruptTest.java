package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database file the user made read-only, with fewer offers than a run needs: H2 opens it read-only, the
 * insert of the missing offers fails with "The database is read only", and the store took that for
 * corruption: "the offer database ... is corrupt (The database is read only ...); rebuilding it", then
 * deleted the file (its folder was writable) and built a new one in its place. Now it says the database is
 * read-only and leaves it as it is; a read-only database that holds enough offers is used as before.
 */
class AReadOnlyDatabaseIsNotRebuiltAsCorruptTest {
    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();
    private final ReadOnlyPath readOnly = new ReadOnlyPath();

    @AfterEach
    void writable() throws Exception {
        readOnly.undo();
    }

    @Test
    void aReadOnlyDatabaseWithTooFewOffersIsAClearFailureAndStaysAsItWas() throws Exception {
        H2OfferStore.open(dir, 10, 100, 1, log::add).close();
        Path file = dir.resolve("offers.mv.db");
        byte[] before = Files.readAllBytes(file);
        readOnly.make(file);
        log.clear();

        assertThatThrownBy(() -> H2OfferStore.open(dir, 20, 100, 1, log::add)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the offer database " + file + " is read-only and holds 10 offers, fewer than the 20 needed:"
                        + " make it writable, or give another folder with --db");
        assertThat(log).noneMatch(l -> l.contains("corrupt"));
        assertThat(Files.readAllBytes(file)).isEqualTo(before);

        // with the offers it holds, it serves as it is
        try (H2OfferStore s = H2OfferStore.open(dir, 10, 100, 1, log::add)) {
            s.prime();
            assertThat(s.load(9)).isEqualTo(Offers.description(9, 100));
        }
        assertThat(log).isEmpty();
    }
}
