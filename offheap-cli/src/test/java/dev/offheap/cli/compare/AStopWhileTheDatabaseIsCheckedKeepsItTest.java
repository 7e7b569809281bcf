package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C or SIGTERM while {@code offheap serve} (or {@code compare}) creates, completes or checks the offer
 * database makes H2's shutdown hook close the database under the open, whose next query fails. That failure
 * was taken for corruption: "the offer database ... is corrupt (The database is open in exclusive mode ...);
 * rebuilding it", and the database was deleted, however complete (a check of millions of offers takes
 * minutes, and so does their rebuild). A failure while the JVM shuts down says so, and the database is left
 * as it is.
 */
class AStopWhileTheDatabaseIsCheckedKeepsItTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aDatabaseClosedByTheShutdownIsNeitherCalledCorruptNorDeleted() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                StopDuringOpen.class.getName(), dir.toString(), "200").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as(out).contains("created the offer database").doesNotContain("corrupt")
                .doesNotContain("rebuilding").contains("failed: ").contains("shutting down");
        // the database is the one the first open created, its trigger still there; a later open uses it as it is
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve(H2OfferStore.NAME), "sa", "");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TRIGGERS")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getLong(1)).as("triggers of the database").isEqualTo(1);
        }
        List<String> log = new ArrayList<>();
        try (H2OfferStore store = H2OfferStore.open(dir, 200, 10, 1, log::add)) {
            assertThat(store.load(199)).isEqualTo(Offers.description(199, 10));
        }
        assertThat(log).isEmpty();
    }
}
