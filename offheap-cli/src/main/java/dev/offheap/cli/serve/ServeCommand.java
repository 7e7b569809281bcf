package dev.offheap.cli.serve;

import static dev.offheap.cli.OptionValues.count;
import static dev.offheap.cli.OptionValues.duration;
import static dev.offheap.cli.OptionValues.nextNonEmpty;
import static dev.offheap.cli.OptionValues.nonEmpty;
import static dev.offheap.cli.OptionValues.once;

import dev.offheap.cli.Command;
import dev.offheap.cli.CommandException;
import dev.offheap.cli.OptionValues;
import dev.offheap.cli.UsageException;
import dev.offheap.cli.compare.CompareOptions;
import dev.offheap.cli.compare.Durations;
import dev.offheap.cli.compare.H2OfferStore;
import dev.offheap.cli.compare.LatencyOfferStore;
import dev.offheap.cli.compare.OfferCache;
import dev.offheap.bench.baseline.ThirdPartyForks;
import dev.offheap.cli.compare.OfferService;
import dev.offheap.cli.compare.OfferStore;
import dev.offheap.cli.compare.Variant;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code offheap serve}: the offer service of {@code offheap compare} over HTTP, with one cache variant,
 * for load generators such as wrk or JMeter. Runs in this JVM until stopped (Ctrl-C) or for
 * {@code --stop-after}. What it does goes to stdout (started, the database created or rebuilt, stopped after N
 * requests, however it was stopped); a failure goes to stderr.
 */
public final class ServeCommand implements Command {
    /**
     * The parsed command line.
     *
     * @param variant the cache
     * @param port the port, 0 for any free one
     * @param bind the address to listen on
     * @param valueSize description size in bytes
     * @param maxEntries the cache's bound
     * @param keys offer ids 0 to keys - 1
     * @param memoryLoader whether misses load from memory (else the database)
     * @param latency the memory loader's latency
     * @param db the database folder
     * @param threads HTTP request threads
     * @param stopAfter stop after this long, or null to run until stopped
     */
    public record Args(Variant variant, int port, String bind, int valueSize, int maxEntries, long keys,
            boolean memoryLoader, Duration latency, Path db, int threads, Duration stopAfter) {
    }

    @Override
    public String name() {
        return "serve";
    }

    @Override
    public String summary() {
        return "serve offers over HTTP with one cache variant (GET /offers/{id}, /stats, /metrics)";
    }

    @Override
    public String usage() {
        return """
                Usage: offheap serve [--variant on-heap|off-heap|off-heap-copy|ohc] [--port N] [--bind ADDR]
                                     [--value-size B] [--max-entries N] [--keys N] [--loader db|memory]
                                     [--latency D] [--db DIR] [--threads N] [--stop-after D]
                """;
    }

    @Override
    public String help() {
        return usage() + """

                Serves the offer service of 'offheap compare' over HTTP, with one cache variant:
                  GET /offers/{id}   the offer's description (text/plain); ids 0 to keys - 1
                  GET /stats         requests, hit ratio, entries, memory, GC, latency (JSON)
                  GET /metrics       the same for Prometheus (text format 0.0.4)
                HEAD of each answers as GET does, without the body; other methods get 405.
                Load it with wrk or JMeter, e.g.: wrk -t10 -c10 -d60s http://localhost:8080/offers/1
                (a Lua script that draws random ids gives the seed's workload).

                Options:
                  --variant NAME     on-heap (Caffeine), off-heap (default), off-heap-copy or ohc; the
                                     HTTP server needs each response body as a byte array, so here
                                     off-heap and off-heap-copy both copy a hit out of the cache
                  --port N           port, 0 for any free one (default 8080)
                  --bind ADDR        address to listen on (default 127.0.0.1; 0.0.0.0 for all)
                  --value-size B     description size in bytes (default 100000)
                  --max-entries N    the cache's bound (default 5000)
                  --keys N           offer ids 0..N-1 (default 2 x max entries); at least max entries,
                                     or the cache would never fill
                  --loader NAME      db (default: the H2 database of 'offheap compare') or memory
                  --latency D        the memory loader's latency, below 5s (default 200us)
                  --db DIR           the database folder (default ~/.cache/offheap/compare, or under
                                     $XDG_CACHE_HOME)
                  --threads N        HTTP request threads (default 10)
                  --stop-after D     stop after this long, e.g. 60s (default: run until Ctrl-C)
                  -h, --help         this help
                Short names: -p --port, -s --value-size, -e --max-entries, -k --keys, -t --threads. A value
                follows its option, or an = after it: --threads 4, --threads=4 or -t=4; the variants, db and
                memory in any case.

                The ohc variant uses the JDK's unsupported Unsafe class; JDK 25 warns once unless the JVM
                allows it:
                  OFFHEAP_JAVA_OPTS=%s bin/offheap serve --variant ohc
                """.formatted(ThirdPartyForks.UNSAFE_MEMORY_ACCESS_ALLOWED);
    }

    /**
     * @param argv the arguments after "serve"
     * @return the parsed arguments
     * @throws UsageException if an option is unknown or a value makes no sense (among them a {@code --keys}
     *         below {@code --max-entries}: a cache that could never fill)
     */
    public static Args parse(List<String> argv) throws UsageException {
        Variant variant = Variant.OFF_HEAP;
        int port = 8080;
        String bind = "127.0.0.1";
        int valueSize = CompareOptions.DEFAULT_VALUE_SIZE;
        int maxEntries = CompareOptions.DEFAULT_MAX_ENTRIES;
        long keys = 0;
        boolean memory = false;
        Duration latency = null;
        Path db = null;
        int threads = 10;
        Duration stopAfter = null;
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < argv.size(); i++) {
            OptionValues.Split split = OptionValues.split(argv.get(i));
            String arg = split.option();
            String inline = split.inline();
            String option = arg;
            if (VALUE_OPTIONS.contains(option)) {
                once(given, ALIASES.getOrDefault(option, option), option);
                // an empty inline value (--db=) is as wrong as an empty separate one (--db "")
                inline = inline == null ? nextNonEmpty(argv, ++i, option) : nonEmpty(option, inline);
            }
            switch (arg) {
                case "--variant" -> {
                    String v = inline;
                    variant = Variant.byLabel(OptionValues.keyword(v)).orElseThrow(() -> new UsageException("--variant: unknown variant '" + v
                            + "' (variants: " + Variant.labels() + ")"));
                }
                case "--port", "-p" -> port = (int) count(option, inline, 0, 65535);
                case "--bind" -> bind = inline;
                // as compare reads it: the same messages for a size that is malformed, too large or out of range
                case "--value-size", "-s" -> valueSize = (int) OptionValues.size(option, inline, 1,
                        CompareOptions.MAX_VALUE_SIZE);
                case "--max-entries", "-e" -> maxEntries = (int) count(option, inline, 1,
                        CompareOptions.MAX_ENTRIES);
                case "--keys", "-k" -> keys = count(option, inline, 1, Long.MAX_VALUE / 2);
                case "--loader" -> {
                    String v = inline;
                    memory = switch (OptionValues.keyword(v)) {
                        case "db", "database" -> false;
                        case "memory" -> true;
                        default -> throw new UsageException("--loader: unknown loader '" + v + "' (loaders: db, memory)");
                    };
                }
                case "--latency" -> latency = duration(option, inline, true);
                case "--db" -> db = Path.of(inline);
                case "--threads", "-t" -> threads = (int) count(option, inline, 1, 1024);
                case "--stop-after" -> stopAfter = duration(option, inline, false);
                default -> throw new UsageException(arg.startsWith("-") ? "unknown option '" + argv.get(i) + "'"
                        : "unexpected argument '" + arg + "' (serve takes only options)");
            }
        }
        // as compare: a cache that never fills would make /stats show a full cache's numbers that it never had
        CompareOptions.checkKeysHoldTheCache(keys, maxEntries);
        if (latency != null && !memory) {
            throw new UsageException("--latency applies to --loader memory only");
        }
        if (latency != null && latency.compareTo(Duration.ofSeconds(OfferServer.REQUEST_SECONDS)) >= 0) {
            // the server cuts off a request not answered within REQUEST_SECONDS: every miss would fail
            throw new UsageException("--latency must be below " + OfferServer.REQUEST_SECONDS
                    + "s, the time the server gives a request to be answered, got " + Durations.format(latency));
        }
        if (db != null && memory) {
            throw new UsageException("--db applies to --loader db only");
        }
        if (!memory) {
            String unusable = H2OfferStore.unusableFolder(db != null ? db : CompareOptions.defaultDb());
            if (unusable != null) {
                throw new UsageException("--db: " + unusable);
            }
        }
        String tooMany = memory ? null : H2OfferStore.tooManyOffers(keys != 0 ? keys : 2L * maxEntries, keys != 0);
        if (tooMany != null) {
            throw new UsageException(tooMany);
        }
        return new Args(variant, port, bind, valueSize, maxEntries, keys != 0 ? keys : 2L * maxEntries, memory,
                latency != null ? latency : Duration.ofNanos(200_000), db != null ? db : CompareOptions.defaultDb(),
                threads, stopAfter);
    }

    @Override
    public void run(List<String> argv, PrintStream out, PrintStream err) throws UsageException, CommandException {
        Args a = parse(argv);
        // the hook comes before the port, the database and the cache: a stop while serve opens them (a fill or a
        // check of the database takes minutes) closes what was opened, which H2 does not do for the store
        Stop stop = new Stop(out);
        Runtime.getRuntime().addShutdownHook(stop.hook);
        OfferServer server;
        try {
            server = start(a, out);
        } catch (CommandException | RuntimeException | Error e) {
            stop.started(null);
            stop.remove();
            throw e;
        }
        if (!stop.started(server)) {
            // stopped while it started: the hook closes the server and says so
            stop.await(null);
            return;
        }
        // an IPv6 address goes in brackets in a URL
        String host = a.bind().contains(":") && !a.bind().startsWith("[") ? "[" + a.bind() + "]" : a.bind();
        out.printf(Locale.ROOT, "offheap serve: %s on http://%s:%d/ (GET /offers/{id} for ids 0..%d, /stats, /metrics)%s%n",
                a.variant().label(), host, server.port(), a.keys() - 1,
                a.stopAfter() == null ? "; Ctrl-C stops" : "; stops after " + Durations.format(a.stopAfter()));
        if (stop.await(a.stopAfter()) || !stop.remove()) {
            // a signal stopped it (Ctrl-C may come as the time runs out): the hook closed the server, or is
            // closing it; let it finish
            stop.await(null);
            return;
        }
        server.close();
        Stop.sayStopped(out, server);
    }

    /**
     * Serve's shutdown hook (Ctrl-C, SIGTERM), registered before serve opens anything: it waits for a start in
     * progress to end, then closes the server it started (which closes the store) and says how many requests it
     * served. A start that a stop interrupts ends soon: H2 closes the database that it creates, fills or checks,
     * and the store's open gives up once the JVM shuts down. One that does not end within
     * {@value #START_WAIT_SECONDS} seconds (a stdout that nobody reads) is left as a crash leaves it.
     */
    private static final class Stop {
        /** The longest the hook waits for a start in progress. */
        static final int START_WAIT_SECONDS = 10;

        private final PrintStream out;
        final Thread hook;
        private final CountDownLatch stopped = new CountDownLatch(1);
        private boolean starting = true;
        private boolean stopping;
        private OfferServer server;

        Stop(PrintStream out) {
            this.out = out;
            this.hook = new Thread(this::stop, "offheap-serve-shutdown");
        }

        /** What a stop says, whether --stop-after's time or a signal ended serve: on stdout, with the rest. */
        static void sayStopped(PrintStream out, OfferServer server) {
            out.println(stoppedLine(server.requests()));
            out.flush();
        }

        /** The hook's work. */
        private void stop() {
            OfferServer s;
            synchronized (this) {
                stopping = true;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_WAIT_SECONDS);
                try {
                    for (long left = deadline - System.nanoTime(); starting && left > 0; left = deadline - System.nanoTime()) {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                s = server;
            }
            try {
                if (s != null) {
                    s.close();
                    sayStopped(out, s);
                }
            } finally {
                stopped.countDown();
            }
        }

        /**
         * @param s the server started, or null if the start failed
         * @return whether to serve: false if a stop came meanwhile, whose hook closes the server
         */
        synchronized boolean started(OfferServer s) {
            starting = false;
            server = s;
            notifyAll();
            return !stopping;
        }

        /**
         * @param timeout how long to wait, or null for as long as it takes
         * @return whether the hook has stopped the server
         */
        boolean await(Duration timeout) {
            try {
                if (timeout == null) {
                    stopped.await();
                    return true;
                }
                return stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return stopped.getCount() == 0;
            }
        }

        /** @return whether the hook was removed: false if the JVM is shutting down and the hook runs */
        boolean remove() {
            try {
                return Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                return false;
            }
        }
    }

    /**
     * @param requests the requests the server answered
     * @return the line serve ends with, e.g. {@code offheap serve: stopped after 12 requests}
     */
    static String stoppedLine(long requests) {
        return "offheap serve: stopped after " + requests + (requests == 1 ? " request" : " requests");
    }

    /**
     * Takes the port, opens the store, builds the cache and starts the server. The port comes first: a port in
     * use, found after a fill of the database (minutes for millions of offers), would have wasted it.
     *
     * @param a the arguments
     * @param out told about the database (created, rebuilt)
     * @return the running server; its {@link OfferServer#close()} closes the database, which H2 does not close at the
     *         JVM's exit: a caller that may exit while it runs closes it from a shutdown hook
     * @throws CommandException if the port cannot be bound, the store cannot be opened or the cache cannot be built
     */
    public static OfferServer start(Args a, PrintStream out) throws CommandException {
        OfferServer.Bound bound = bind(a);
        OfferStore store;
        try {
            store = a.memoryLoader() ? new LatencyOfferStore(a.keys(), a.valueSize(), a.latency())
                    // not closed by H2's shutdown hook, which ran while run's hook let the requests in progress
                    // finish and failed their loads: the server's close closes it after them
                    : H2OfferStore.open(a.db(), a.keys(), a.valueSize(), a.threads(), m -> out.println("offheap serve: " + m),
                            false);
        } catch (IllegalStateException e) {
            bound.close();
            throw new CommandException(e.getMessage(), e);
        } catch (RuntimeException e) {
            bound.close();
            // H2 failing otherwise: a message and exit code 1, as compare gives, not a stack trace
            throw new CommandException("cannot prepare the offer database in " + a.db() + ": " + e, e);
        }
        OfferCache cache;
        try {
            cache = a.variant().create(a.maxEntries(), a.valueSize());
        } catch (RuntimeException | LinkageError | OutOfMemoryError e) {
            // the off-heap caches report memory they cannot reserve (--max-entries x --value-size past what
            // the machine can map) as OutOfMemoryError, which leaves the heap as it was
            store.close();
            bound.close();
            throw new CommandException("cannot build the " + a.variant().label() + " cache: " + e, e);
        }
        return OfferServer.start(bound, new OfferService(cache, store), a.variant().label(), a.threads());
    }

    /** Takes the address and port of the arguments, or says why it cannot. */
    private static OfferServer.Bound bind(Args a) throws CommandException {
        InetSocketAddress address = new InetSocketAddress(a.bind(), a.port());
        try {
            return OfferServer.bind(address);
        } catch (BindException e) {
            // the same exception for a port in use and for an address that is not this machine's, where another
            // port fails all the same
            throw new CommandException("cannot listen on " + a.bind() + ":" + a.port() + " (" + e.getMessage() + "); "
                    + (isThisMachines(address) ? "pick another port with --port" : a.bind() + " is not an address of "
                    + "this machine: pick one of its addresses with --bind (127.0.0.1, or 0.0.0.0 for all)"), e);
        } catch (IOException | RuntimeException e) {
            // an unresolvable --bind surfaces as an unchecked exception from the socket layer
            throw new CommandException("cannot start the HTTP server on " + a.bind() + ":" + a.port() + ": " + e, e);
        }
    }

    /** @return whether the address is one this machine can listen on: any, loopback, or one of its interfaces' */
    private static boolean isThisMachines(InetSocketAddress address) {
        java.net.InetAddress ip = address.getAddress();
        if (ip == null) {
            return false;
        }
        try {
            return ip.isAnyLocalAddress() || ip.isLoopbackAddress() || java.net.NetworkInterface.getByInetAddress(ip) != null;
        } catch (java.net.SocketException e) {
            return true; // cannot tell: the port is the likelier cause
        }
    }

    /** The options, all of which take a value. */
    private static final java.util.Set<String> VALUE_OPTIONS = java.util.Set.of("--variant", "--port", "-p", "--bind",
            "--value-size", "-s", "--max-entries", "-e", "--keys", "-k", "--loader", "--latency", "--db", "--threads", "-t",
            "--stop-after");

    /** The short names of the options, each with its canonical name: an option may be given once, by either. */
    private static final Map<String, String> ALIASES = Map.of("-p", "--port", "-s", "--value-size", "-e",
            "--max-entries", "-k", "--keys", "-t", "--threads");
}
