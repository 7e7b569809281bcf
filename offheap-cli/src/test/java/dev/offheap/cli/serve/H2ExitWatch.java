package dev.offheap.cli.serve;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Tells, through H2's public API only, when H2's own shutdown hook has closed every database it closes at exit:
 * {@link #arm(Path)} opens a database of its own (a sentinel) to be closed at exit, with this class as its
 * {@link org.h2.api.DatabaseEventListener}; H2 calls {@link #closingDatabase()} on the thread that closes it, its
 * shutdown hook at exit, and {@link #awaitH2sShutdown()} waits for that thread to end. The sentinel also makes sure
 * that H2 has a shutdown hook to run.
 */
public final class H2ExitWatch implements org.h2.api.DatabaseEventListener {
    private static volatile Thread closer;
    private static Connection sentinel;

    /** Made by H2. */
    public H2ExitWatch() {
    }

    /**
     * Opens the sentinel database in a folder; call before the JVM shuts down.
     *
     * @param dir a folder of its own for the sentinel
     * @throws SQLException if H2 cannot open it
     */
    static synchronized void arm(Path dir) throws SQLException {
        if (sentinel == null) {
            sentinel = DriverManager.getConnection("jdbc:h2:file:" + dir.toAbsolutePath().resolve("sentinel")
                    + ";DB_CLOSE_DELAY=0;DATABASE_EVENT_LISTENER='" + H2ExitWatch.class.getName() + "'", "sa", "");
        }
    }

    @Override
    public void closingDatabase() {
        closer = Thread.currentThread();
    }

    /**
     * Waits until H2 closes the sentinel, which it does at exit, then until the thread that closed it has ended:
     * by then H2 has closed every database it closes at exit.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    static void awaitH2sShutdown() throws InterruptedException {
        while (closer == null) {
            Thread.sleep(1);
        }
        closer.join();
    }
}
