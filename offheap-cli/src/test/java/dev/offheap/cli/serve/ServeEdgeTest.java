package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.offheap.cli.Main;
import dev.offheap.cli.bench.Json;
import dev.offheap.cli.compare.LatencyOfferStore;
import dev.offheap.cli.compare.OfferCache;
import dev.offheap.cli.compare.OfferLoader;
import dev.offheap.cli.compare.OfferService;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code offheap serve}: counters, ids past a long, a cache that cannot be built, HEAD. */
class ServeEdgeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
    }

    private static PrintStream sink() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    /**
     * A cache that holds each get until released before it calls the loader, as a real cache may while
     * it looks the key up or waits for a lock: the request is counted, its load not yet.
     */
    private static final class HeldCache implements OfferCache {
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String get(long id, OfferLoader loader) {
            arrived.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return loader.load(id);
        }

        @Override
        public long entries() {
            return 0;
        }

        @Override
        public long nativeBytes() {
            return 0;
        }

        @Override
        public String describe() {
            return "held";
        }

        @Override
        public void close() {
        }
    }

    private static long sample(String metrics, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{variant=\"held\"} (-?\\d+)$").matcher(metrics);
        assertThat(m.find()).as(name + " in\n" + metrics).isTrue();
        return Long.parseLong(m.group(1));
    }

    /**
     * As many clients as request threads that open a connection and stall in the middle of their headers
     * must not stop the server: each is cut off after {@link OfferServer#REQUEST_SECONDS} and the next
     * request is answered. Before, the JDK server waited for the stalled headers without end, every thread
     * stayed blocked reading them, and the request below got no answer.
     */
    @Test
    void clientsThatStallInTheirRequestDoNotHoldTheThreadsForever() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            OfferService service = new OfferService(new HeldCache(), new LatencyOfferStore(10, 10, Duration.ZERO));
            try (OfferServer server = OfferServer.start(service, "held", new InetSocketAddress("127.0.0.1", 0), 2);
                 java.net.Socket first = new java.net.Socket("127.0.0.1", server.port());
                 java.net.Socket second = new java.net.Socket("127.0.0.1", server.port())) {
                for (java.net.Socket stalled : List.of(first, second)) {
                    stalled.getOutputStream().write("GET /stats HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                    stalled.getOutputStream().flush();
                }
                long start = System.nanoTime();
                HttpResponse<String> stats = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/stats")).timeout(Duration.ofSeconds(20)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(stats.statusCode()).isEqualTo(200);
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("time until the request behind the stalled ones was answered")
                        .isLessThan(Duration.ofSeconds(OfferServer.REQUEST_SECONDS + 5));
                assertThat(first.getInputStream().read()).as("the stalled connection was closed").isEqualTo(-1);
            }
        });
    }

    /**
     * {@code offheap_cache_hits_total} is a counter, so it must never fall (Prometheus takes a fall for a
     * restart of the process, and rate() jumps). It was requests minus loads, and a request is counted
     * before its miss loads: while it is between the two, it showed as a hit, and then the hit went away.
     * The held cache makes the window wide; under load with the real caches (memory loader, all misses,
     * 12 clients) about one scrape in twenty saw the counter fall.
     */
    @Test
    void theHitCounterNeverFalls() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            HeldCache cache = new HeldCache();
            OfferService service = new OfferService(cache, new LatencyOfferStore(10, 10, Duration.ZERO));
            try (OfferServer server = OfferServer.start(service, "held", new InetSocketAddress("127.0.0.1", 0), 2)) {
                int port = server.port();
                CompletableFuture<HttpResponse<String>> miss = http.sendAsync(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/offers/3")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(cache.arrived.await(10, TimeUnit.SECONDS)).isTrue();
                List<Long> hits = new ArrayList<>();
                List<Double> statsHits = new ArrayList<>();
                hits.add(sample(get(port, "/metrics").body(), "offheap_cache_hits_total"));
                statsHits.add((Double) ((Map<?, ?>) Json.parse(get(port, "/stats").body())).get("hits"));
                cache.release.countDown();
                assertThat(miss.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                String metrics = get(port, "/metrics").body();
                hits.add(sample(metrics, "offheap_cache_hits_total"));
                statsHits.add((Double) ((Map<?, ?>) Json.parse(get(port, "/stats").body())).get("hits"));
                assertThat(hits).as("offheap_cache_hits_total over the scrapes").isSorted();
                assertThat(statsHits).as("/stats hits over the requests").isSorted();
                // the one request missed
                assertThat(hits.getLast()).isZero();
                assertThat(sample(metrics, "offheap_cache_misses_total")).isEqualTo(1);
                assertThat(sample(metrics, "offheap_requests_total")).isEqualTo(1);
            }
        });
    }

    private static OfferServer startSmall() throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--loader", "memory",
                "--latency", "0us", "--value-size", "10", "--max-entries", "5"));
        return ServeCommand.start(args, sink());
    }

    /**
     * The javadoc: 400 for an id that is not a number, 404 for one outside the store. An id past a long
     * is a number outside the store, yet it was 400 "must be a whole number".
     */
    @ParameterizedTest
    @ValueSource(strings = {"99999999999999999999", "9223372036854775808", "-9223372036854775809",
        "123456789012345678901234567890"})
    void aNumberPastALongIsOutsideTheStoreNotMalformed(String id) {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            try (OfferServer server = startSmall()) {
                HttpResponse<String> r = get(server.port(), "/offers/" + id);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
                assertThat(r.body()).contains("ids are 0 to 9");
                assertThat(get(server.port(), "/offers/12x").statusCode()).isEqualTo(400);
            }
        });
    }

    /**
     * Options inside their documented ranges whose product the off-heap cache cannot reserve (10 million
     * entries of 64 MiB: 671 TB, past the address space) ended the CLI with an uncaught
     * OutOfMemoryError and its stack trace, instead of "cannot build the off-heap cache" and exit code 1
     * (the cache reports a failed mapping as OutOfMemoryError, which start did not catch).
     */
    @Test
    void aCacheTooLargeToReserveIsACommandFailure() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code;
            try {
                code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--variant", "off-heap", "--port", "0",
                        "--loader", "memory", "--max-entries", "10000000", "--value-size", "64MB", "--stop-after", "1ms"),
                        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            } catch (OutOfMemoryError e) {
                // JUnit rethrows an OutOfMemoryError past every test, ending the run: report it as this test's failure
                throw new AssertionError("escaped Main.run: " + e, e);
            }
            // a machine whose address space holds 671 TB may build it and serve for a millisecond
            if (code != 0) {
                assertThat(code).isEqualTo(Main.FAILED);
                assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("offheap serve: cannot build the off-heap cache");
            }
        });
    }

    /**
     * A response to HEAD went out with the body's length given to the JDK's server, which refuses that for
     * HEAD with a WARNING on stderr for every such request (a load balancer's HEAD health checks fill the
     * console).
     */
    @ParameterizedTest
    @ValueSource(strings = {"/offers/1", "/stats", "/metrics", "/nothing"})
    void headIsAnsweredWithoutTheServerWarning(String path) {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            Logger logger = Logger.getLogger("com.sun.net.httpserver");
            List<LogRecord> warnings = new CopyOnWriteArrayList<>();
            Handler handler = new Handler() {
                @Override
                public void publish(LogRecord r) {
                    if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                        warnings.add(r);
                    }
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            logger.addHandler(handler);
            try (OfferServer server = startSmall()) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                        + path)).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(path.equals("/nothing") ? 404 : 200);
                assertThat(r.body()).isEmpty();
                // the connection still serves the next request
                assertThat(get(server.port(), "/offers/1").statusCode()).isEqualTo(200);
                assertThat(warnings).as("warnings of the HTTP server").extracting(LogRecord::getMessage).isEmpty();
            } finally {
                logger.removeHandler(handler);
            }
        });
    }
}
