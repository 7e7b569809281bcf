package dev.offheap.cli.compare;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database that an older (or newer) version of the store wrote, with another format number or text size, is
 * rebuilt, as it must be; but the message said "the offer database ... is corrupt (its format is not 1 ...)",
 * which sends a user looking for a damaged disk. It says the database was written by another version, and what
 * it holds against what this version writes; a damaged one is still called corrupt.
 */
class ADatabaseOfAnotherVersionIsNotCalledCorruptTest {
    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();

    @Test
    void aDatabaseOfAnotherFormatIsRebuiltAsAnotherVersions() throws Exception {
        H2OfferStore.open(dir, 3, 10, 1, log::add).close();
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("offers"), "sa", "");
                Statement s = c.createStatement()) {
            s.execute("UPDATE store_info SET format = " + (H2OfferStore.FORMAT + 7));
        }
        log.clear();
        try (H2OfferStore s = H2OfferStore.open(dir, 3, 10, 1, log::add)) {
            assertThat(s.load(2)).isEqualTo(Offers.description(2, 10));
        }
        assertThat(log.getFirst()).isEqualTo("the offer database " + dir.resolve("offers.mv.db")
                + " was written by another version (it holds format " + (H2OfferStore.FORMAT + 7) + " with "
                + Offers.TEXT_BYTES + "-byte texts; this version writes format " + H2OfferStore.FORMAT + " with "
                + Offers.TEXT_BYTES + "-byte texts); rebuilding it");
    }
}
