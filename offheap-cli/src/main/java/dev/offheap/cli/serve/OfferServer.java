package dev.offheap.cli.serve;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.offheap.cli.compare.JsonWriter;
import dev.offheap.cli.compare.OfferService;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The offer service over HTTP, on the JDK's {@code com.sun.net.httpserver}:
 * <ul>
 *   <li>{@code GET /offers/{id}}: the description, {@code text/plain}; 400 for an id that is not a
 *       number in ASCII digits (with an optional sign), 404 for one outside the store, 500 for a load that
 *       failed (an exception or an error, which still ends its request thread)</li>
 *   <li>{@code GET /stats}: requests, hit ratio, entries, memory, GC and latency as JSON; the hit ratio and the
 *       latencies are null before the first request</li>
 *   <li>{@code GET /metrics}: the same in the Prometheus text format (version 0.0.4); the latency quantiles are
 *       NaN before the first request</li>
 * </ul>
 *
 * <p>{@code HEAD} of each answers as {@code GET} does (an offer is looked up, and counted, as for GET), with
 * the same status and headers and no body. Every other path is 404 ({@code /stats/x}, {@code /offers/1/x}),
 * and another method on these paths 405, with {@code Allow: GET, HEAD}.
 *
 * <p>Thread-safe: requests run on a fixed pool of threads; {@link #close()} stops the server, waits a
 * second for running exchanges, and closes the service.
 *
 * <p>A request has {@value #REQUEST_SECONDS} seconds from its first byte until its answer starts (its
 * sending and the lookup, a load included) and {@value #RESPONSE_SECONDS} seconds for the answer to be
 * taken; past either the server closes the connection. The JDK's server reads each request on a pool thread and by default waits for it without end, so
 * as many clients as threads that open a connection and stall (or stop reading) would hold every thread
 * and no other request would be answered. The limits are the JDK server's system properties
 * {@code sun.net.httpserver.maxReqTime} and {@code maxRspTime}, read once per JVM when its classes load:
 * this class sets them before it starts its first server, unless they are set already (the user's
 * {@code -D} wins), and they hold for every JDK HTTP server of the process.
 */
public final class OfferServer implements AutoCloseable {
    /** Seconds from a request's first byte until its answer starts: sending it, and the lookup. */
    public static final int REQUEST_SECONDS = 5;
    /** Seconds a connection may take to read its response. */
    public static final int RESPONSE_SECONDS = 30;

    static {
        setIfAbsent("sun.net.httpserver.maxReqTime", REQUEST_SECONDS);
        setIfAbsent("sun.net.httpserver.maxRspTime", RESPONSE_SECONDS);
    }

    private static void setIfAbsent(String property, int seconds) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, Integer.toString(seconds));
        }
    }

    /**
     * Connections the kernel completes and keeps for the server to accept. The JDK's default of 50 dropped
     * the handshakes of a load generator's burst past it ({@code wrk -c1000}): those clients connected only
     * after their retransmissions, a second or more later. Linux caps it at {@code net.core.somaxconn}.
     */
    static final int BACKLOG = 4096;
    private static final long MAX_LATENCY_NANOS = 600_000_000_000L;
    /**
     * An id: ASCII digits with an optional sign, whatever their count. {@link Long#parseLong(String)} alone took
     * any Unicode digit too ({@code ３}, a full-width 3, served offer 3).
     */
    private static final Pattern WHOLE_NUMBER = Pattern.compile("[+-]?[0-9]+");

    private final OfferService service;
    private final String variant;
    private final HttpServer server;
    private final ExecutorService executor;
    /**
     * Request times in nanoseconds, to three significant digits from 1 ns up: a lowest value of 1,000 ns
     * (HdrHistogram rounds it down to 512) gave 512 ns steps below about 1 ms, where hits land, and a 3.6 us
     * median read as 4.1 us (as {@code compare}'s histograms did before).
     */
    private final ConcurrentHistogram latency = new ConcurrentHistogram(1, MAX_LATENCY_NANOS, 3);
    private final long startNanos = System.nanoTime();

    private OfferServer(OfferService service, String variant, HttpServer server, ExecutorService executor) {
        this.service = service;
        this.variant = variant;
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts serving.
     *
     * @param service the service; closed with the server
     * @param variant the cache variant's label, for /stats and /metrics
     * @param address where to listen; port 0 picks a free one ({@link #port()} says which)
     * @param threads request threads, 1 or more
     * @return the running server
     * @throws IOException if the address cannot be bound (e.g. the port is in use)
     * @throws IllegalArgumentException if {@code threads} is not positive
     */
    public static OfferServer start(OfferService service, String variant, InetSocketAddress address, int threads)
            throws IOException {
        if (threads <= 0) {
            throw new IllegalArgumentException("threads must be positive, got " + threads);
        }
        return start(bind(address), service, variant, threads);
    }

    /**
     * An address the server listens on and does not serve yet: the port is taken (connections wait in the
     * backlog) before the service, which may take minutes to prepare, is built.
     */
    public static final class Bound implements AutoCloseable {
        private final HttpServer http;

        private Bound(HttpServer http) {
            this.http = http;
        }

        /** @return the port it listens on */
        public int port() {
            return http.getAddress().getPort();
        }

        /** Stops listening, for a service that could not be built. */
        @Override
        public void close() {
            http.stop(0);
        }
    }

    /**
     * Listens on an address without serving yet.
     *
     * @param address where to listen; port 0 picks a free one
     * @return the bound address, for {@link #start(Bound, OfferService, String, int)}
     * @throws IOException if the address cannot be bound (e.g. the port is in use)
     */
    public static Bound bind(InetSocketAddress address) throws IOException {
        return new Bound(HttpServer.create(address, BACKLOG));
    }

    /**
     * Starts serving on a bound address.
     *
     * @param bound the address, from {@link #bind(InetSocketAddress)}; closed if this throws
     * @param service the service; closed with the server
     * @param variant the cache variant's label, for /stats and /metrics
     * @param threads request threads, 1 or more
     * @return the running server
     * @throws IllegalArgumentException if {@code threads} is not positive
     */
    public static OfferServer start(Bound bound, OfferService service, String variant, int threads) {
        if (threads <= 0) {
            bound.close();
            throw new IllegalArgumentException("threads must be positive, got " + threads);
        }
        HttpServer http = bound.http;
        ExecutorService executor = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("http-", 0).factory());
        OfferServer s = new OfferServer(service, variant, http, executor);
        // a context takes every path that starts with its own (/stats takes /statsXYZ and /stats/x too), so
        // each handler answers its exact path and leaves the rest to notFound
        http.createContext("/offers/", s::offer);
        http.createContext("/stats", e -> answerText(e, "/stats", "application/json", () -> JsonWriter.write(s.stats())));
        http.createContext("/metrics", e -> answerText(e, "/metrics", "text/plain; version=0.0.4; charset=utf-8",
                s::metrics));
        http.createContext("/", OfferServer::notFound);
        http.setExecutor(executor);
        http.start();
        return s;
    }

    /** @return the port the server listens on */
    public int port() {
        return server.getAddress().getPort();
    }

    private void offer(HttpExchange e) throws IOException {
        String idText = e.getRequestURI().getPath().substring("/offers/".length());
        if (idText.isEmpty() || idText.contains("/")) {
            notFound(e);
            return;
        }
        if (!getOrHead(e)) {
            methodNotAllowed(e);
            return;
        }
        if (!WHOLE_NUMBER.matcher(idText).matches()) {
            respond(e, 400, "text/plain; charset=utf-8", "offer id must be a whole number, got "
                    + shown(idText, "'") + "\n");
            return;
        }
        long id;
        try {
            id = Long.parseLong(idText);
        } catch (NumberFormatException ex) {
            // digits past a long are a number all the same, outside the store like any other too large
            notAnOffer(e, idText);
            return;
        }
        if (id < 0 || id >= service.offers()) {
            notAnOffer(e, Long.toString(id));
            return;
        }
        long t0 = System.nanoTime();
        String description;
        try {
            description = service.offer(id);
        } catch (RuntimeException ex) {
            respond(e, 500, "text/plain; charset=utf-8", "loading offer " + id + " failed: " + ex.getMessage() + "\n");
            return;
        } catch (Error ex) {
            // an on-heap cache's OutOfMemoryError, say: the JDK's server lets an Error end the request thread and
            // leaves the connection open without an answer, for the client to wait on without end; it is answered,
            // then ends the thread as before (the pool replaces it, and the error is reported as uncaught)
            respond(e, 500, "text/plain; charset=utf-8", "loading offer " + id + " failed: " + ex + "\n");
            throw ex;
        }
        latency.recordValue(Math.min(System.nanoTime() - t0, MAX_LATENCY_NANOS));
        respond(e, 200, "text/plain; charset=iso-8859-1", description.getBytes(StandardCharsets.ISO_8859_1));
    }

    private void notAnOffer(HttpExchange e, String id) throws IOException {
        respond(e, 404, "text/plain; charset=utf-8", "no offer " + shown(id, "") + ": ids are 0 to " + (service.offers() - 1)
                + "\n");
    }

    /** The most characters of a request's id an error message repeats. */
    private static final int SHOWN_ID_CHARS = 40;

    /**
     * @param id a request's id
     * @param quote what goes around it
     * @return the id as an error message shows it: whole up to {@value #SHOWN_ID_CHARS} characters, else its
     *         start and its length (a 100,000-digit id made a response as long as the request)
     */
    private static String shown(String id, String quote) {
        return id.length() <= SHOWN_ID_CHARS ? quote + id + quote
                : quote + id.substring(0, SHOWN_ID_CHARS) + "..." + quote + " (" + id.length() + " characters)";
    }

    /**
     * Answers a GET or HEAD of {@code path} with the text {@code body} makes; 500 naming the failure when it
     * throws (an Error too, which is thrown on after the answer). Package-private for tests.
     */
    static void answerText(HttpExchange e, String path, String contentType, Supplier<String> body) throws IOException {
        if (!e.getRequestURI().getPath().equals(path)) {
            notFound(e);
            return;
        }
        if (!getOrHead(e)) {
            methodNotAllowed(e);
            return;
        }
        String text;
        try {
            text = body.get();
        } catch (RuntimeException | Error ex) {
            // the JDK's server closes the connection without an answer when a handler throws (and leaves it open
            // without one for an Error, an OutOfMemoryError say): the client would not see what went wrong. An
            // Error, once answered, still ends the request thread, as for a load
            respond(e, 500, "text/plain; charset=utf-8", "building " + path + " failed: " + ex + "\n");
            if (ex instanceof Error error) {
                throw error;
            }
            return;
        }
        respond(e, 200, contentType, text);
    }

    private static void notFound(HttpExchange e) throws IOException {
        respond(e, 404, "text/plain; charset=utf-8", "not found: try /offers/{id}, /stats or /metrics\n");
    }

    /** RFC 9110, 9.3.2: a server that serves GET for a resource serves HEAD for it too. */
    private static boolean getOrHead(HttpExchange e) {
        String method = e.getRequestMethod();
        return method.equals("GET") || method.equals("HEAD");
    }

    private static void methodNotAllowed(HttpExchange e) throws IOException {
        // RFC 9110, 15.5.6: a 405 must say which methods the resource supports
        e.getResponseHeaders().set("Allow", "GET, HEAD");
        respond(e, 405, "text/plain; charset=utf-8", "only GET and HEAD are supported\n");
    }

    /**
     * @return offer requests so far: those the service was asked for an offer in its store (hits, misses and
     *         failed loads); the count stays readable after {@link #close()}, and is final then
     */
    public long requests() {
        return service.requests();
    }

    /** @return the numbers /stats shows */
    public Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        long requests = service.requests();
        long loads = service.loads();
        long hits = service.hits();
        m.put("variant", variant);
        // each request here takes its value through get, as a string: describe() tells how compare's fetch reads it
        m.put("cache", service.cache().describeForGet());
        m.put("store", service.store().describe());
        m.put("offers", service.offers());
        m.put("uptimeSeconds", (System.nanoTime() - startNanos) / 1e9);
        m.put("requests", requests);
        m.put("hits", hits);
        m.put("misses", loads);
        m.put("hitRatio", hits + loads == 0 ? null : (double) hits / (hits + loads));
        m.put("entries", service.cache().entries());
        m.put("cacheNativeBytes", service.cache().nativeBytes());
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        m.put("heapUsedBytes", heap.getUsed());
        m.put("heapMaxBytes", heap.getMax());
        List<Object> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("name", gc.getName());
            g.put("collections", gc.getCollectionCount());
            g.put("timeMillis", gc.getCollectionTime());
            gcs.add(g);
        }
        m.put("gc", gcs);
        Histogram h = latency.copy();
        Map<String, Object> l = new LinkedHashMap<>();
        // with no request yet there is no latency: null, as for the hit ratio, not HdrHistogram's 0
        boolean none = h.getTotalCount() == 0;
        l.put("count", h.getTotalCount());
        l.put("p50", none ? null : h.getValueAtPercentile(50) / 1e3);
        l.put("p99", none ? null : h.getValueAtPercentile(99) / 1e3);
        l.put("p999", none ? null : h.getValueAtPercentile(99.9) / 1e3);
        l.put("max", none ? null : h.getMaxValue() / 1e3);
        m.put("latencyMicros", l);
        return m;
    }

    /** @return the numbers /metrics shows, in the Prometheus text format */
    public String metrics() {
        StringBuilder sb = new StringBuilder();
        String v = "variant=\"" + labelValue(variant) + "\"";
        long requests = service.requests();
        long loads = service.loads();
        metric(sb, "offheap_requests_total", "counter", "Offer requests served.", v, requests);
        // a counter must never fall: requests minus loads does, while a request is between its count and its load
        metric(sb, "offheap_cache_hits_total", "counter", "Requests served from the cache.", v, service.hits());
        metric(sb, "offheap_cache_misses_total", "counter", "Requests loaded from the store.", v, loads);
        metric(sb, "offheap_cache_entries", "gauge", "Entries in the cache.", v, service.cache().entries());
        metric(sb, "offheap_cache_native_bytes", "gauge", "Native memory the cache uses, by its own accounting.", v,
                service.cache().nativeBytes());
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        metric(sb, "jvm_heap_used_bytes", "gauge", "Heap in use.", v, heap.getUsed());
        metric(sb, "jvm_heap_max_bytes", "gauge", "Maximum heap.", v, heap.getMax());
        sb.append("# HELP jvm_gc_collections_total Collections by collector bean.\n");
        sb.append("# TYPE jvm_gc_collections_total counter\n");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sb.append("jvm_gc_collections_total{").append(v).append(",gc=\"").append(labelValue(gc.getName()))
                    .append("\"} ").append(gc.getCollectionCount()).append('\n');
        }
        sb.append("# HELP jvm_gc_collection_seconds_total Collection time by collector bean.\n");
        sb.append("# TYPE jvm_gc_collection_seconds_total counter\n");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sb.append("jvm_gc_collection_seconds_total{").append(v).append(",gc=\"").append(labelValue(gc.getName()))
                    .append("\"} ").append(number(gc.getCollectionTime() / 1e3)).append('\n');
        }
        Histogram h = latency.copy();
        sb.append("# HELP offheap_request_seconds Time to get an offer from the service (cache or store).\n");
        sb.append("# TYPE offheap_request_seconds summary\n");
        for (double q : new double[] {0.5, 0.99, 0.999}) {
            sb.append("offheap_request_seconds{").append(v).append(",quantile=\"").append(q).append("\"} ")
                    // a summary's quantile with no observations is NaN (Prometheus's client libraries write it so)
                    .append(number(h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(q * 100) / 1e9))
                    .append('\n');
        }
        sb.append("offheap_request_seconds_sum{").append(v).append("} ")
                .append(number(h.getMean() * h.getTotalCount() / 1e9)).append('\n');
        sb.append("offheap_request_seconds_count{").append(v).append("} ").append(h.getTotalCount()).append('\n');
        return sb.toString();
    }

    private static void metric(StringBuilder sb, String name, String type, String help, String labels, long value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        sb.append(name).append('{').append(labels).append("} ").append(value).append('\n');
    }

    /**
     * @return the text as a label value of the Prometheus text format writes it: backslash, double quote and
     *         line feed escaped ({@code \\}, {@code \"}, {@code \n}); unescaped, a quote ended the value early
     *         and made the whole scrape unparseable
     */
    static String labelValue(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static String number(double d) {
        return Double.isNaN(d) ? "NaN" : String.format(Locale.ROOT, "%.9g", d);
    }

    private static void respond(HttpExchange e, int status, String contentType, String body) throws IOException {
        respond(e, status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange e, int status, String contentType, byte[] body) throws IOException {
        try (e) {
            e.getResponseHeaders().set("Content-Type", contentType);
            // a response to HEAD has the headers of the GET, its length included, and no body: the JDK's server
            // takes a length given to sendResponseHeaders for one as a mistake, and logs a warning for every
            // such request, but sends a Content-Length header set here as it is
            boolean head = e.getRequestMethod().equals("HEAD");
            if (head) {
                e.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
            }
            e.sendResponseHeaders(status, body.length == 0 || head ? -1 : body.length);
            if (!head) {
                try (OutputStream os = e.getResponseBody()) {
                    os.write(body);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(1);
        executor.shutdown();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        service.close();
    }
}
