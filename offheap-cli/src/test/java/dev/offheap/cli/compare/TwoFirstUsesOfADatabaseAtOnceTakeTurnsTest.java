package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes (two offheap compare or serve, a compare and a serve) started on the same new database
 * folder at once: each saw no database file and set out to create it. The second's connection failed while
 * the first held the file for its fill ("in use by another process"), or, once the first had closed it,
 * found the tables it was about to create and took the database for corrupt: "is corrupt (Table
 * "STORE_INFO" already exists); rebuilding it", deleting the offers the first had just filled. Two threads
 * of one JVM did the same. Now creating, completing and checking the database is done under a lock in its
 * folder, one process at a time: the second waits for the first's fill, then uses what it made.
 */
class TwoFirstUsesOfADatabaseAtOnceTakeTurnsTest {
    private static final int OFFERS = 3000;

    @TempDir
    Path dir;

    /** A process that opens the store in {@code args[0]} with {@code args[1]} offers at {@code args[2]} (epoch ms). */
    public static final class OpenAt {
        public static void main(String[] args) throws Exception {
            Path db = Path.of(args[0]);
            long offers = Long.parseLong(args[1]);
            long at = Long.parseLong(args[2]);
            while (System.currentTimeMillis() < at) {
                Thread.onSpinWait();
            }
            try (H2OfferStore store = H2OfferStore.open(db, offers, 100, 2, m -> System.out.println("log: " + m))) {
                System.out.println("loaded: " + store.load(offers - 1).equals(Offers.description(offers - 1, 100)));
            }
        }
    }

    private record Ended(int code, String out, String err) {
    }

    private static Process start(Path db, long at) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), OpenAt.class.getName(),
                db.toString(), Integer.toString(OFFERS), Long.toString(at)).start();
    }

    private static Ended end(Process p) throws Exception {
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
        }
        return new Ended(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void twoProcessesCreatingOneDatabaseAtOnceBothUseItAndItIsFilledOnce() throws Exception {
        Path db = dir.resolve("db");
        // both JVMs start their open at the same moment, once both have started
        long at = System.currentTimeMillis() + 4000;
        Process a = start(db, at);
        Process b = start(db, at);
        List<Ended> ended = List.of(end(a), end(b));
        String both = ended.toString();
        for (Ended e : ended) {
            assertThat(e.code()).as(both).isZero();
            assertThat(e.out()).as(both).contains("loaded: true").doesNotContain("corrupt");
        }
        assertThat(ended.stream().filter(e -> e.out().contains("log: created the offer database")).count())
                .as("processes that filled the database: %s", both).isEqualTo(1);
        List<String> log = new ArrayList<>();
        try (H2OfferStore store = H2OfferStore.open(db, OFFERS, 100, 1, log::add)) {
            assertThat(store.load(OFFERS - 1)).isEqualTo(Offers.description(OFFERS - 1, 100));
        }
        assertThat(log).as("a complete database is used as it is").isEmpty();
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void twoThreadsCreatingOneDatabaseAtOnceBothUseItAndItIsFilledOnce() throws Exception {
        Path db = dir.resolve("db");
        List<String> log = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    try (H2OfferStore store = H2OfferStore.open(db, OFFERS, 100, 2, log::add)) {
                        assertThat(store.load(OFFERS - 1)).isEqualTo(Offers.description(OFFERS - 1, 100));
                    }
                } catch (Throwable t) {
                    failed.compareAndSet(null, t);
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (failed.get() != null) {
            throw new AssertionError("an open failed; log: " + log, failed.get());
        }
        assertThat(log).as("one fill, nothing called corrupt").singleElement().asString()
                .startsWith("created the offer database");
    }
}
