package dev.offheap.cli.serve;

import dev.offheap.cli.Main;
import dev.offheap.cli.compare.H2OfferStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The JVM that {@link AStopWhileServeOpensTheDatabaseClosesItTest} stops: it runs {@code offheap serve} on a new
 * database in the folder of its first argument and, when serve says it created the database (from within the
 * open, before the store's own connections are made), begins the JVM's exit, as Ctrl-C or SIGTERM does, and lets
 * serve go on once H2's shutdown hook has closed what it closes at exit ({@link H2ExitWatch}, in the folder of the
 * second argument). A shutdown hook of its own holds the JVM until serve's run has ended (returned or thrown), then
 * prints "offers database: open" or "offers database: closed": whether this JVM still holds the database file's
 * lock, which H2 holds while the database is open.
 */
public final class StopWhileServeOpensTheDatabase {
    private StopWhileServeOpensTheDatabase() {
    }

    /**
     * @param args the database folder and a folder for H2's exit watch
     * @throws Exception if the watch cannot be set up
     */
    public static void main(String[] args) throws Exception {
        Path db = Path.of(args[0]);
        H2ExitWatch.arm(Path.of(args[1]));
        CountDownLatch ran = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                ran.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.println("offers database: " + (heldInThisJvm(db.resolve(H2OfferStore.NAME + ".mv.db"))
                    ? "open" : "closed"));
            System.out.flush();
        }));
        PrintStream out = new PrintStream(new LineWatcher(), true, StandardCharsets.UTF_8);
        try {
            new Main(List.of(new ServeCommand())).run(List.of("serve", "--variant", "on-heap", "--port", "0", "--db",
                    db.toString(), "--keys", "20", "--value-size", "10", "--max-entries", "5", "--threads", "2"), out,
                    System.out);
        } finally {
            ran.countDown();
        }
    }

    /** @return whether a lock of this JVM covers the file: H2's, while the database is open */
    private static boolean heldInThisJvm(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                lock.release();
            }
            return false;
        } catch (OverlappingFileLockException held) {
            return true;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Serve's stdout: copied to this JVM's, line by line; the line that says the database was created stops it. */
    private static final class LineWatcher extends OutputStream {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public void write(int b) {
            line.write(b);
            if (b == '\n') {
                String text = line.toString(StandardCharsets.UTF_8);
                line.reset();
                System.out.print(text);
                System.out.flush();
                if (text.contains("created the offer database")) {
                    Thread.ofPlatform().start(() -> System.exit(0));
                    try {
                        H2ExitWatch.awaitH2sShutdown();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
    }
}
