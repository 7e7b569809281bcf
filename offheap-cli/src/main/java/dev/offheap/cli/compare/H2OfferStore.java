package dev.offheap.cli.compare;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The offers in an embedded H2 database on local disk ({@code <dir>/offers.mv.db}), one row per offer:
 * id, title, price and {@value Offers#TEXT_BYTES} bytes of text. A load is one indexed query; the
 * description is the row's text expanded to the value size ({@link Offers#description(String, int)}).
 *
 * <p>The database is created on first use and filled deterministically; a database with fewer offers
 * than asked for gets the missing ones. One that cannot be opened, lacks the tables, has a row that
 * cannot be read or holds other data than {@link Offers} generates (every offer's text is read and
 * compared when it is opened) is deleted and rebuilt, with a message saying so; so is one written by another
 * version of this store (another format or text size), with a message that says that instead of "corrupt". A read-only one (H2 opens a
 * file it may not write read-only) is used as it is, and is a failure, not corruption, when it holds too few.
 * So is a query that fails because the JVM is shutting down (Ctrl-C, SIGTERM: H2's shutdown hook closes every
 * database opened to be closed at exit, as the creation and check are): the database is left as it is.
 *
 * <p>Openers take turns: each creates, completes, checks and connects to the database holding a lock on
 * {@value #LOCK_NAME} in its folder (and a lock per folder among the threads of one JVM), so that of two
 * processes started on a new database at once one fills it and the other waits, then uses it. A database
 * that another process holds open is waited for a few seconds, then is a failure that says so.
 *
 * <p>Threading: {@link #load(long)} may be called from any number of threads; each borrows one of the
 * store's connections (as many as {@code connections}) for the query.
 */
public final class H2OfferStore implements OfferStore {
    /** The database's base name; H2 adds {@code .mv.db}. */
    public static final String NAME = "offers";
    /**
     * The most offers a database is filled with: 5,000,000 rows of {@link Offers#TEXT_BYTES} bytes of text,
     * about 10 GB on disk. A larger key space asked of the database loader is a usage error, not hours
     * of filling a disk; the in-memory loader has no such limit.
     */
    public static final long MAX_OFFERS = 5_000_000;

    /**
     * @param offers the offers a run or service needs
     * @param keysGiven whether the user gave that count with {@code --keys}; if not, it is the default, twice the
     *                  (largest) {@code --max-entries}, and the message names that option instead
     * @return null if the database may hold that many, else why not, for a usage message
     */
    public static String tooManyOffers(long offers, boolean keysGiven) {
        if (offers <= MAX_OFFERS) {
            return null;
        }
        String start = String.format(java.util.Locale.ROOT, "the offer database would hold %,d offers (%,d MB of text)",
                offers, offers * Offers.TEXT_BYTES / 1_000_000);
        return keysGiven
                ? start + String.format(java.util.Locale.ROOT, ", more than the %,d it may: a smaller --keys, or"
                        + " --loader memory", MAX_OFFERS)
                : start + String.format(java.util.Locale.ROOT, ", 2 x --max-entries for want of --keys, more than the"
                        + " %,d it may: a smaller --max-entries, --keys of at most %,d, or --loader memory", MAX_OFFERS,
                        MAX_OFFERS);
    }
    /**
     * @param dir a database folder
     * @return null if H2 can open a database in it, else why not, for a usage message: H2 reads what follows
     *         a {@code ;} in its JDBC URL as settings, so a folder whose path has one can never be opened (and
     *         its rest would be taken for settings, even {@code INIT} scripts)
     */
    public static String unusableFolder(Path dir) {
        String path = dir.toAbsolutePath().toString();
        return path.indexOf(';') < 0 ? null : "H2 cannot open a database in a folder whose path has a ';': " + path
                + "; give another folder";
    }

    /** Changes whenever the schema or the generated data change, so that an old database is rebuilt. */
    static final int FORMAT = 1;
    private static final int H2_DATABASE_ALREADY_OPEN = 90020;
    /**
     * The file an opener locks while it creates, completes, checks and connects to the database (not named
     * {@code offers.*}, which a rebuild deletes).
     */
    static final String LOCK_NAME = "offers-open.lock";
    /** How long an open waits for another process to close the database before it says the database is in use. */
    private static final long IN_USE_WAIT_MILLIS = 5000;
    /** How often a wait for another process's lock of the folder tries it again. */
    private static final long LOCK_POLL_MILLIS = 20;
    private static final int INSERT_BATCH = 500;
    /** Reads of every offer before a measurement; see {@link #prime()}. */
    private static final int PRIME_PASSES = 3;

    private final Path dir;
    private final long offers;
    private final int valueSize;
    private final BlockingQueue<Lane> pool;
    private final List<Connection> all;

    /**
     * A pooled connection and its prepared query, prepared on first use and kept, as a connection pool's
     * statement cache does: a load then costs the query, not its parse. Only the borrowing thread touches
     * it; the pool's queue hands it over with a happens-before edge.
     */
    private static final class Lane {
        final Connection connection;
        PreparedStatement select;

        Lane(Connection connection) {
            this.connection = connection;
        }

        PreparedStatement select() throws SQLException {
            if (select == null) {
                select = connection.prepareStatement("SELECT text FROM offers WHERE id = ?");
            }
            return select;
        }
    }
    private volatile boolean closed;

    private H2OfferStore(Path dir, long offers, int valueSize, List<Connection> connections) {
        this.dir = dir;
        this.offers = offers;
        this.valueSize = valueSize;
        this.all = List.copyOf(connections);
        this.pool = new ArrayBlockingQueue<>(connections.size(), false, connections.stream().map(Lane::new).toList());
    }

    /**
     * Opens the database in {@code dir}, creating, completing or rebuilding it as needed.
     *
     * @param dir the folder of the database; created if missing
     * @param offers how many offers it must hold, 1 or more
     * @param valueSize the description size {@link #load(long)} returns, in bytes, 1 or more
     * @param connections how many loads may query at once, 1 or more (usually the thread count)
     * @param log told what happens: created, filled, rebuilt because corrupt or written by another version
     * @return the store
     * @throws IllegalArgumentException if a count is not positive, or the folder's path is one H2 cannot open
     *         ({@link #unusableFolder(Path)})
     * @throws IllegalStateException if the database is in use by another process, cannot be created, is
     *         read-only with fewer offers than asked for, or is corrupt and cannot be deleted for its rebuild;
     *         or if the JVM began to shut down while it was prepared or waited for (H2 closes its databases then): the
     *         database is left as it is, not taken for corrupt and rebuilt
     */
    public static H2OfferStore open(Path dir, long offers, int valueSize, int connections, Consumer<String> log) {
        return open(dir, offers, valueSize, connections, log, true);
    }

    /**
     * {@link #open(Path, long, int, int, Consumer)}, choosing whether H2 closes the store's database when the JVM
     * shuts down. H2's own shutdown hook does by default, concurrently with every other hook: a service that lets
     * its requests in progress finish from its own hook (Ctrl-C, SIGTERM) would see their loads fail with
     * "Database is already closed". Such a service opens the store with {@code closeAtExit} false and closes it
     * itself, from its hook, after its last load; a store not closed by then is left as a crash leaves it (H2
     * recovers it on the next open). The creation, completion and check of the database are closed at exit
     * either way, so that a stop while they run keeps the database as it is.
     *
     * @param dir the folder of the database; created if missing
     * @param offers how many offers it must hold, 1 or more
     * @param valueSize the description size {@link #load(long)} returns, in bytes, 1 or more
     * @param connections how many loads may query at once, 1 or more (usually the thread count)
     * @param log told what happens: created, filled, rebuilt because corrupt or written by another version
     * @param closeAtExit whether H2 closes the store's database when the JVM shuts down; if false, the caller
     *        closes the store, from a shutdown hook of its own where the JVM may exit while the store is open
     * @return the store
     * @throws IllegalArgumentException as {@link #open(Path, long, int, int, Consumer)} throws it
     * @throws IllegalStateException as {@link #open(Path, long, int, int, Consumer)} throws it
     */
    public static H2OfferStore open(Path dir, long offers, int valueSize, int connections, Consumer<String> log,
            boolean closeAtExit) {
        if (offers <= 0 || valueSize <= 0 || connections <= 0) {
            throw new IllegalArgumentException("offers (" + offers + "), value size (" + valueSize
                    + " bytes) and connections (" + connections + ") must be positive");
        }
        String unusable = unusableFolder(dir);
        if (unusable != null) {
            throw new IllegalArgumentException(unusable);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the database folder " + dir + ": "
                    + dev.offheap.cli.Folders.whyNotCreated(dir, e), e);
        }
        Path file = dir.resolve(NAME + ".mv.db");
        if (!Files.exists(file) && !Files.isWritable(dir)) {
            // H2 cannot create the file, and its error read as a corrupt database that could not be rebuilt
            throw new IllegalStateException("cannot create the offer database in " + dir + ": the folder is not"
                    + " writable; give another folder with --db");
        }
        // one opener at a time, of all processes and threads: two that found no database both created it, and
        // the second took the first's tables for corruption and deleted its offers, or failed while it filled
        try (FillLock _ = FillLock.take(dir)) {
            prepareWaiting(dir, offers, log);
            List<Connection> conns = new ArrayList<>();
            try {
                for (int i = 0; i < connections; i++) {
                    // the first connection opens the database (prepare's closed it) and sets how it closes at exit
                    conns.add(connect(dir, closeAtExit));
                }
            } catch (SQLException e) {
                conns.forEach(H2OfferStore::closeQuietly);
                throw new IllegalStateException("cannot open the offer database " + file + ": " + e.getMessage(), e);
            }
            return new H2OfferStore(dir, offers, valueSize, conns);
        }
    }

    /**
     * {@link #prepare}, rebuilding a corrupt database, and waiting up to {@link #IN_USE_WAIT_MILLIS} for one that
     * another process holds open: the opener before this one may not yet have closed it (a compare's check of the
     * database closes it as soon as its open returns).
     */
    private static void prepareWaiting(Path dir, long offers, Consumer<String> log) {
        Path file = dir.resolve(NAME + ".mv.db");
        long deadline = System.nanoTime() + IN_USE_WAIT_MILLIS * 1_000_000;
        while (true) {
            try {
                try {
                    prepare(dir, offers, log, Files.exists(file));
                } catch (CorruptDatabaseException e) {
                    log.accept("the offer database " + file + (e.otherFormat ? " was written by another version ("
                            : " is corrupt (") + e.getMessage() + "); rebuilding it");
                    deleteFiles(dir);
                    try {
                        prepare(dir, offers, log, false);
                    } catch (CorruptDatabaseException again) {
                        throw new IllegalStateException("the rebuilt offer database " + file + " is unreadable: "
                                + again.getMessage(), again);
                    }
                }
                return;
            } catch (DatabaseInUseException e) {
                if (System.nanoTime() - deadline >= 0) {
                    // as an IllegalStateException: a run that fails with it names the class
                    throw new IllegalStateException(e.getMessage(), e.getCause());
                }
                if (jvmShuttingDown()) {
                    throw new IllegalStateException("the JVM is shutting down: stopped waiting for the offer database "
                            + file + " (" + e.getMessage() + ")", e.getCause());
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e.getMessage(), e.getCause());
                }
            }
        }
    }

    /** Makes sure the database holds the first {@code offers} offers; throws if it is not ours or broken. */
    private static void prepare(Path dir, long offers, Consumer<String> log, boolean existed)
            throws CorruptDatabaseException {
        Path file = dir.resolve(NAME + ".mv.db");
        try (Connection c = connect(dir)) {
            if (jvmShuttingDown()) {
                // connected after H2's shutdown hook closed the databases it knew: nothing would close this one, and
                // its creation, completion or check would run to the end while the JVM exits
                throw new IllegalStateException("the JVM is shutting down: stopped before preparing the offer database "
                        + file + ", which is left as it is");
            }
            c.setAutoCommit(false);
            long have;
            if (existed) {
                have = verify(c);
            } else {
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE store_info(format INT NOT NULL, text_bytes INT NOT NULL)");
                    s.execute("INSERT INTO store_info VALUES (" + FORMAT + ", " + Offers.TEXT_BYTES + ")");
                    s.execute("CREATE TABLE offers(id BIGINT PRIMARY KEY, title VARCHAR(200) NOT NULL, "
                            + "price_cents BIGINT NOT NULL, text VARCHAR(" + Offers.TEXT_BYTES + ") NOT NULL)");
                }
                c.commit();
                have = 0;
            }
            if (have < offers && c.isReadOnly()) {
                // H2 opens a file it may not write read-only; the missing offers' insert failed as "The database
                // is read only", which was taken for corruption, and the user's file deleted and rebuilt
                throw new IllegalStateException("the offer database " + file + " is read-only and holds " + have
                        + " offers, fewer than the " + offers + " needed: make it writable, or give another folder"
                        + " with --db");
            }
            if (have < offers) {
                long start = System.nanoTime();
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO offers VALUES (?, ?, ?, ?)")) {
                    for (long id = have; id < offers; id++) {
                        insert.setLong(1, id);
                        insert.setString(2, Offers.title(id));
                        insert.setLong(3, Offers.priceCents(id));
                        insert.setString(4, Offers.text(id));
                        insert.addBatch();
                        if ((id - have + 1) % INSERT_BATCH == 0 || id == offers - 1) {
                            insert.executeBatch();
                        }
                    }
                }
                c.commit();
                log.accept((have == 0 ? "created the offer database " + file + " with " : "added to the offer database "
                        + file + " ") + dev.offheap.cli.Counts.of(offers - have, "offer") + " in "
                        + String.format(java.util.Locale.ROOT, "%.1f s", (System.nanoTime() - start) / 1e9));
            }
        } catch (SQLException e) {
            if (e.getErrorCode() == H2_DATABASE_ALREADY_OPEN) {
                throw new DatabaseInUseException("the offer database " + file + " is in use by another process "
                        + "(another offheap compare or serve?); wait for it or give another folder with --db", e);
            }
            if (jvmShuttingDown()) {
                // H2's shutdown hook closes every database (Ctrl-C, SIGTERM): the query failed for that, not for
                // the file, which a rebuild would have deleted however complete
                throw new IllegalStateException("the JVM is shutting down: stopped preparing the offer database "
                        + file + ", which is left as it is (" + e.getMessage() + ")", e);
            }
            throw new CorruptDatabaseException(e.getMessage(), e);
        }
    }

    /** @return whether the JVM's shutdown has begun: its hooks run, H2's among them, which closes every database */
    public static boolean jvmShuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException shutdownInProgress) {
            return true;
        }
    }

    /** @return how many offers the database holds, after checking that they are the generated ones */
    private static long verify(Connection c) throws SQLException, CorruptDatabaseException {
        try (Statement s = c.createStatement()) {
            try (ResultSet info = s.executeQuery("SELECT format, text_bytes FROM store_info")) {
                if (!info.next()) {
                    throw new CorruptDatabaseException("its format is not " + FORMAT + " with "
                            + Offers.TEXT_BYTES + "-byte texts");
                }
                if (info.getInt(1) != FORMAT || info.getInt(2) != Offers.TEXT_BYTES) {
                    throw CorruptDatabaseException.otherFormat("it holds format " + info.getInt(1) + " with "
                            + info.getInt(2) + "-byte texts; this version writes format " + FORMAT + " with "
                            + Offers.TEXT_BYTES + "-byte texts");
                }
            }
            long count;
            long max;
            try (ResultSet r = s.executeQuery("SELECT COUNT(*), COALESCE(MAX(id), -1) FROM offers")) {
                r.next();
                count = r.getLong(1);
                max = r.getLong(2);
            }
            if (max != count - 1) {
                throw new CorruptDatabaseException("it has " + count + " offers but ids up to " + max);
            }
            // Every offer is read, as a load reads it (a lookup by id), and compared with what Offers
            // generates: this catches a database written by other code, and one damaged in place, which
            // H2 opens and answers COUNT(*) and MAX(id) for from its metadata; only reading the row finds
            // the damage. Left here, a damaged page failed every variant at its priming read ("offer 915
            // is missing", "Unable to read the page"), run after run, and was never rebuilt.
            try (PreparedStatement p = c.prepareStatement("SELECT title, price_cents, text FROM offers WHERE id = ?")) {
                for (long id = 0; id < count; id++) {
                    p.setLong(1, id);
                    try (ResultSet r = p.executeQuery()) {
                        if (!r.next() || !Offers.title(id).equals(r.getString(1))
                                || Offers.priceCents(id) != r.getLong(2) || !Offers.text(id).equals(r.getString(3))) {
                            throw new CorruptDatabaseException("offer " + id + " does not hold the expected data");
                        }
                    }
                }
            }
            return count;
        }
    }

    @Override
    public String load(long id) {
        return Offers.description(text(id), valueSize);
    }

    /** Queries the offer's text and writes its description into {@code target}: no copy of it on the heap. */
    @Override
    public void loadInto(long id, MemorySegment target) {
        Offers.requireDescriptionSize(target, valueSize);
        Offers.describeInto(text(id), target);
    }

    /** One indexed query for the offer's stored text, on a connection borrowed from the pool. */
    private String text(long id) {
        if (id < 0 || id >= offers) {
            throw new IllegalArgumentException("offer id " + id + " is outside the store's 0.." + (offers - 1));
        }
        if (closed) {
            throw new IllegalStateException("the offer store is closed");
        }
        Lane lane;
        try {
            lane = pool.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a database connection", e);
        }
        try {
            PreparedStatement p = lane.select();
            p.setLong(1, id);
            try (ResultSet r = p.executeQuery()) {
                if (!r.next()) {
                    throw new IllegalStateException("offer " + id + " is missing from the database in " + dir);
                }
                return r.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read offer " + id + " from the database in " + dir + ": "
                    + e.getMessage(), e);
        } finally {
            pool.add(lane);
        }
    }

    /**
     * Queries every offer's text {@value #PRIME_PASSES} times, in id order. H2's page cache (LIRS)
     * keeps a page read once only briefly and holds on to it from its second read, so one pass would
     * leave it to fill during the measured phase. In a default run (10,000 offers) a heap histogram after
     * the warmup found the rows of 6,656 offers cached after one pass and of 9,974 after three; with
     * one pass the rest arrived during the measured phase, and each young collection there copied them.
     */
    @Override
    public void prime() {
        for (int pass = 0; pass < PRIME_PASSES; pass++) {
            for (long id = 0; id < offers; id++) {
                text(id);
            }
        }
    }

    @Override
    public long offers() {
        return offers;
    }

    @Override
    public String describe() {
        return "H2 database " + dir.resolve(NAME + ".mv.db");
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        all.forEach(H2OfferStore::closeQuietly);
    }

    private static Connection connect(Path dir) throws SQLException {
        return connect(dir, true);
    }

    /**
     * @param closeAtExit whether H2's shutdown hook closes the database, where this connection opens it (the
     *        connection that opens a database decides; one to a database already open takes it as it is)
     */
    private static Connection connect(Path dir, boolean closeAtExit) throws SQLException {
        // DB_CLOSE_DELAY=0: the last connection's close writes and releases the file, so the next JVM opens it
        return DriverManager.getConnection("jdbc:h2:file:" + dir.toAbsolutePath().resolve(NAME)
                + ";DB_CLOSE_DELAY=0" + (closeAtExit ? "" : ";DB_CLOSE_ON_EXIT=FALSE"), "sa", "");
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // closing a read-only connection loses nothing
        }
    }

    /** @throws IllegalStateException if a file of the database cannot be deleted */
    private static void deleteFiles(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, NAME + ".*")) {
            for (Path f : files) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot delete the corrupt offer database " + f + " to rebuild it ("
                            + e + "); delete it, or give another folder with --db", e);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot delete the corrupt offer database in " + dir + " to rebuild it ("
                    + e + "); delete it, or give another folder with --db", e);
        }
    }

    /** Another process holds the database open. */
    private static final class DatabaseInUseException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        DatabaseInUseException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The lock an opener holds while it creates, completes, checks and connects to the database: a file lock on
     * {@value #LOCK_NAME} in its folder, for other processes, and a lock per folder for the threads of this one
     * (a JVM may not take two file locks of one file). The file lock is left out where the file cannot be
     * written (a read-only folder: there is nothing this process could create or fill in it).
     */
    private static final class FillLock implements AutoCloseable {
        private static final ConcurrentHashMap<Path, ReentrantLock> IN_THIS_JVM = new ConcurrentHashMap<>();

        private final ReentrantLock local;
        private final FileChannel channel;

        private FillLock(ReentrantLock local, FileChannel channel) {
            this.local = local;
            this.channel = channel;
        }

        /**
         * Waits for the folder's lock, for as long as another opener fills it, or until the JVM shuts down (an
         * IllegalStateException): a stop of a serve that waits for another process's fill ends it at once.
         */
        static FillLock take(Path dir) {
            Path key;
            try {
                key = dir.toRealPath();
            } catch (IOException e) {
                key = dir.toAbsolutePath().normalize();
            }
            ReentrantLock local = IN_THIS_JVM.computeIfAbsent(key, k -> new ReentrantLock());
            try {
                local.lockInterruptibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the offer database in " + dir, e);
            }
            FileChannel channel = null;
            try {
                channel = FileChannel.open(dir.resolve(LOCK_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                // tried, not waited for (lock()): a wait ends when the JVM shuts down, not only when the lock is free
                while (channel.tryLock() == null) {
                    if (jvmShuttingDown()) {
                        throw new IllegalStateException("the JVM is shutting down: stopped waiting for the offer database"
                                + " in " + dir + ", which another process prepares");
                    }
                    Thread.sleep(LOCK_POLL_MILLIS);
                }
                return new FillLock(local, channel);
            } catch (FileLockInterruptionException | ClosedByInterruptException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                close(channel);
                local.unlock();
                throw new IllegalStateException("interrupted while waiting for the offer database in " + dir, e);
            } catch (IOException e) {
                // cannot be written (or the file system has no locks): only the threads of this JVM take turns
                close(channel);
                return new FillLock(local, null);
            } catch (RuntimeException | Error e) {
                close(channel);
                local.unlock();
                throw e;
            }
        }

        private static void close(FileChannel channel) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    // closing the channel releases its lock; there is nothing else to undo
                }
            }
        }

        @Override
        public void close() {
            try {
                close(channel);
            } finally {
                local.unlock();
            }
        }
    }

    /** The database exists but is not a readable offer database. */
    private static final class CorruptDatabaseException extends Exception {
        private static final long serialVersionUID = 1L;
        /** Readable, but written by another version of this store (another format or text size): not damaged. */
        final boolean otherFormat;

        CorruptDatabaseException(String message) {
            this(message, null, false);
        }

        CorruptDatabaseException(String message, Throwable cause) {
            this(message, cause, false);
        }

        private CorruptDatabaseException(String message, Throwable cause, boolean otherFormat) {
            super(message, cause);
            this.otherFormat = otherFormat;
        }

        static CorruptDatabaseException otherFormat(String message) {
            return new CorruptDatabaseException(message, null, true);
        }
    }
}
