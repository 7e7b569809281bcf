package dev.offheap.cli.serve;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * An H2 trigger, fired before each query of the offers table, that holds one load of
 * {@link ASignalStopAnswersTheLoadsInProgressTest}'s {@code serve} JVM across the start of its shutdown: where the
 * file named by the system property {@value #ARM_FILE} exists, it deletes it, prints {@value #HELD}, waits until
 * the JVM shuts down and then until H2's own shutdown hook has run ({@link H2ExitWatch}, whose sentinel database
 * sits next to that file), and lets the query go on. H2's hook closes every database opened to be closed at exit;
 * its close of such a database waits for the held query's session (up to twice the lock timeout) before it closes
 * it, so that the query then fails.
 */
public final class HoldALoadUntilH2HasShutDown implements org.h2.api.Trigger {
    /** The system property that names the file whose presence arms the trigger. */
    static final String ARM_FILE = "offheap.test.holdLoadFile";
    /** What the trigger prints when it holds a load. */
    static final String HELD = "offheap test: a load is held";

    /** Made by H2. */
    public HoldALoadUntilH2HasShutDown() {
    }

    @Override
    public void fire(Connection connection, Object[] oldRow, Object[] newRow) {
        String arm = System.getProperty(ARM_FILE);
        try {
            if (arm == null || !Files.deleteIfExists(Path.of(arm))) {
                return;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            H2ExitWatch.arm(Path.of(arm).resolveSibling("h2-exit-watch"));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the sentinel database", e);
        }
        System.out.println(HELD);
        System.out.flush();
        try {
            H2ExitWatch.awaitH2sShutdown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
