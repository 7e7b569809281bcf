package dev.offheap.cli.compare;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The JVM that {@link AStopWhileTheDatabaseIsCheckedKeepsItTest} stops: it creates an offer database in the
 * folder of its first argument with the number of offers of its second, then opens it again and, as the open
 * begins to check the offers, exits, as Ctrl-C or SIGTERM makes {@code offheap serve} do while it checks a
 * large database. A shutdown hook holds the JVM until the open has returned or thrown, so that what the open
 * does with the database meanwhile always happens. Prints what the store logged, then "opened" or
 * "failed: " and the message.
 */
public final class StopDuringOpen {
    private static final String ARMED = "offheap.test.exitOnRead";
    private static Connection probe;

    private StopDuringOpen() {
    }

    /**
     * Called by H2 before each read of the offers table: where armed, starts the JVM's exit and waits until
     * H2's own shutdown hook has closed the database, as seen from another connection.
     */
    public static final class ExitOnRead implements org.h2.api.Trigger {
        /** Made by H2. */
        public ExitOnRead() {
        }

        @Override
        public void fire(Connection connection, Object[] oldRow, Object[] newRow) {
            if (!Boolean.getBoolean(ARMED)) {
                return;
            }
            System.clearProperty(ARMED);
            Thread.ofPlatform().start(() -> System.exit(0));
            while (true) {
                try (Statement s = probe.createStatement()) {
                    s.execute("SELECT 1");
                    Thread.onSpinWait();
                } catch (SQLException closedByTheShutdown) {
                    return;
                }
            }
        }
    }

    /**
     * @param args the database folder and the number of offers
     * @throws Exception if the database cannot be made ready for the stop
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long offers = Long.parseLong(args[1]);
        H2OfferStore.open(dir, offers, 10, 1, System.out::println).close();
        String url = "jdbc:h2:file:" + dir.toAbsolutePath().resolve(H2OfferStore.NAME) + ";DB_CLOSE_DELAY=0";
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TRIGGER exit_on_read BEFORE SELECT ON offers CALL \"" + ExitOnRead.class.getName() + "\"");
        }
        CountDownLatch opened = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                opened.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        probe = DriverManager.getConnection(url, "sa", "");
        System.setProperty(ARMED, "true");
        try {
            H2OfferStore.open(dir, offers, 10, 1, System.out::println).close();
            System.out.println("opened");
        } catch (RuntimeException e) {
            System.out.println("failed: " + e.getMessage());
        } finally {
            System.out.flush();
            opened.countDown();
        }
    }
}
