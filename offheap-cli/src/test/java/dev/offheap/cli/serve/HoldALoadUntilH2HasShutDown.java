package dev.offheap.cli.serve;

import dev.offheap.cli.compare.H2OfferStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;

/**
 * An H2 trigger, fired before each query of the offers table, that holds one load of
 * {@link ASignalStopAnswersTheLoadsInProgressTest}'s {@code serve} JVM across the start of its shutdown: where the
 * file named by the system property {@value #ARM_FILE} exists, it deletes it, prints {@value #HELD}, waits until
 * the JVM shuts down and then until H2's own shutdown hook, if H2 has one registered, has run, and lets the query go
 * on. H2 registers that hook while a database opened to be closed at exit is open; its close of the database waits
 * for the held query's session (up to twice the lock timeout) before it closes it.
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
        System.out.println(HELD);
        System.out.flush();
        try {
            while (!H2OfferStore.jvmShuttingDown()) {
                Thread.sleep(1);
            }
            Class<?> closer = Class.forName("org.h2.engine.OnExitDatabaseCloser");
            Field instance = closer.getDeclaredField("INSTANCE");
            Field registered = closer.getDeclaredField("registered");
            instance.setAccessible(true);
            registered.setAccessible(true);
            Thread hook = (Thread) instance.get(null);
            while (registered.getBoolean(null) && hook.getState() != Thread.State.TERMINATED) {
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("H2's shutdown hook is no longer where this test looks for it", e);
        }
    }
}
