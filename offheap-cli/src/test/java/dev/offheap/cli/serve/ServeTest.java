package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import dev.offheap.cli.UsageException;
import dev.offheap.cli.bench.Json;
import dev.offheap.cli.compare.Offers;
import dev.offheap.cli.compare.Variant;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code offheap serve}: every endpoint answers, for every variant; bad command lines exit 2. */
class ServeTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void endpointsAnswer(Variant variant) throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", variant.label(), "--port", "0", "--value-size",
                "3000", "--max-entries", "10", "--loader", "memory", "--latency", "0us", "--threads", "2"));
        try (OfferServer server = ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))) {
            int port = server.port();
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> offer = get(port, "/offers/7");
                assertThat(offer.statusCode()).isEqualTo(200);
                assertThat(offer.body()).isEqualTo(Offers.description(7, 3000));
            }
            assertThat(get(port, "/offers/abc").statusCode()).isEqualTo(400);
            HttpResponse<String> missing = get(port, "/offers/20");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.body()).contains("ids are 0 to 19");
            assertThat(get(port, "/nothing").statusCode()).isEqualTo(404);
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/offers/1"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);

            HttpResponse<String> stats = get(port, "/stats");
            assertThat(stats.statusCode()).isEqualTo(200);
            assertThat(stats.headers().firstValue("Content-Type")).hasValue("application/json");
            Map<?, ?> json = (Map<?, ?>) Json.parse(stats.body());
            assertThat(json.get("variant")).isEqualTo(variant.label());
            assertThat(json.get("requests")).isEqualTo(2.0);
            assertThat(json.get("misses")).isEqualTo(1.0);
            assertThat(json.get("hitRatio")).isEqualTo(0.5);
            assertThat(json.get("entries")).isEqualTo(1.0);
            assertThat((Double) json.get("cacheNativeBytes")).isEqualTo(variant == Variant.ON_HEAP ? 0.0 : 3000.0,
                    org.assertj.core.data.Offset.offset(variant == Variant.ON_HEAP ? 0.0 : 1e9));
            assertThat((List<?>) json.get("gc")).isNotEmpty();
            assertThat(((Map<?, ?>) json.get("latencyMicros")).get("count")).isEqualTo(2.0);

            HttpResponse<String> metrics = get(port, "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
            String v = "{variant=\"" + variant.label() + "\"}";
            assertThat(metrics.body()).contains("# TYPE offheap_requests_total counter\n")
                    .contains("offheap_requests_total" + v + " 2\n").contains("offheap_cache_hits_total" + v + " 1\n")
                    .contains("offheap_cache_misses_total" + v + " 1\n").contains("offheap_cache_entries" + v + " 1\n")
                    .contains("offheap_request_seconds_count" + v + " 2\n")
                    .containsPattern("offheap_request_seconds\\{variant=\"[a-z-]+\",quantile=\"0.99\"} [0-9.e-]+\n")
                    .containsPattern("jvm_gc_collections_total\\{variant=\"[a-z-]+\",gc=\"[^\"]+\"} \\d+\n");
            // every sample line is NAME{LABELS} VALUE, as Prometheus parses it
            assertThat(metrics.body().lines().filter(l -> !l.startsWith("#")))
                    .allMatch(l -> l.matches("[a-z_]+\\{[^}]*} [0-9.eE+-]+|[a-z_]+\\{[^}]*} NaN"));
            if (variant != Variant.ON_HEAP) {
                assertThat(metrics.body()).containsPattern("offheap_cache_native_bytes\\{[^}]*} [1-9]\\d*\n");
            }
        }
    }

    private static OfferServer startSmall() throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--loader", "memory",
                "--latency", "0us", "--value-size", "10", "--max-entries", "5"));
        return ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    /** The JDK's HttpServer picks a context by path prefix: /stats also caught /statsXYZ and /stats/x. */
    @ParameterizedTest
    @ValueSource(strings = {"/statsXYZ", "/stats/anything", "/stats/", "/metricsfoo", "/metrics/x", "/offers/1/x",
        "/offers/1/", "/offers/"})
    void aPathThatOnlyStartsLikeAnEndpointIs404(String path) throws Exception {
        try (OfferServer server = startSmall()) {
            HttpResponse<String> r = get(server.port(), path);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.body()).contains("not found");
            HttpResponse<String> delete = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + path)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(delete.statusCode()).as("a path that is not there is 404 whatever the method").isEqualTo(404);
        }
    }

    @Test
    void theExactPathsStillAnswerWithAQuery() throws Exception {
        try (OfferServer server = startSmall()) {
            assertThat(get(server.port(), "/stats?pretty=1").statusCode()).isEqualTo(200);
            assertThat(get(server.port(), "/metrics?x").statusCode()).isEqualTo(200);
            assertThat(get(server.port(), "/offers/3?x").statusCode()).isEqualTo(200);
        }
    }

    /** RFC 9110, 15.5.6: a 405 response MUST carry an Allow header with the methods the resource supports. */
    @ParameterizedTest
    @CsvSource({"/offers/1,DELETE", "/offers/1,POST", "/stats,PUT", "/metrics,DELETE"})
    void a405NamesTheAllowedMethods(String path, String method) throws Exception {
        try (OfferServer server = startSmall()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                    .method(method, HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(405);
            assertThat(r.headers().allValues("Allow")).containsExactly("GET, HEAD");
        }
    }

    /** Lines that were accepted before: a repeated option (last won), an empty inline value, a duration past the cap. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "--port 1 --port 2;--port given twice",
        "--port 1 -p 2;--port given twice (-p is --port)",
        "--db=a --db b;--db given twice",
        "--variant ohc --variant on-heap;--variant given twice",
        "--stop-after 1s --stop-after=2s;--stop-after given twice",
        "--db=;--db needs a non-empty value",
        "--bind=;--bind needs a non-empty value",
        "--variant=;--variant needs a non-empty value",
        "--stop-after 2562047h;--stop-after: at most 365 days, got '2562047h'",
        "--loader memory --latency 9000h;--latency: at most 365 days, got '9000h'",
        "--keys 5000001;the offer database would hold 5,000,001 offers (10,240 MB of text), more than the"
            + " 5,000,000 it may: a smaller --keys, or --loader memory",
    })
    void repeatedOptionsEmptyInlineValuesAndDurationsPastTheCapAreUsageErrors(String line, String message) {
        assertUsageError(line, message, true);
    }

    /** @param exact whether {@code message} is the whole message or only its start */
    private static void assertUsageError(String line, String message, boolean exact) {
        // parse first: where it accepted the line, running it would serve until stopped
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServeCommand.parse(List.of(line.split(" "))))
                .isInstanceOf(UsageException.class).hasMessageStartingWith(message)
                .satisfies(e -> assertThat(!exact || e.getMessage().equals(message)).as(e.getMessage()).isTrue());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(List.of(new ServeCommand())).run(List.of(("serve " + line).split(" ")),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("offheap serve: " + message)
                .contains("Usage: offheap serve");
    }

    @Test
    void serveCommandRunsAndStops() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--port", "0", "--value-size", "100",
                "--max-entries", "5", "--db", dir.toString(), "--stop-after", "300ms"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("created the offer database")
                .containsPattern("offheap serve: off-heap on http://127.0.0.1:\\d+/ \\(GET /offers/\\{id} for ids 0..9")
                .contains("stopped after 0 requests");
    }

    @Test
    void aPortInUseIsAClearFailure() throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--loader", "memory",
                "--value-size", "10"));
        try (OfferServer first = ServeCommand.start(args, System.out)) {
            ServeCommand.Args same = ServeCommand.parse(List.of("--variant", "on-heap", "--port",
                    Integer.toString(first.port()), "--loader", "memory", "--value-size", "10"));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServeCommand.start(same, System.out))
                    .isInstanceOf(dev.offheap.cli.CommandException.class)
                    .hasMessageContaining("cannot listen on 127.0.0.1:" + first.port())
                    .hasMessageContaining("pick another port with --port");
        }
    }

    @Test
    void anAddressThatCannotBeBoundIsAClearFailure() throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--bind",
                "no-such-host.invalid", "--loader", "memory", "--value-size", "10"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServeCommand.start(args, System.out))
                .isInstanceOf(dev.offheap.cli.CommandException.class)
                .hasMessageStartingWith("cannot start the HTTP server on no-such-host.invalid:0");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "--bogus;unknown option '--bogus'",
        "now;unexpected argument 'now'",
        "--variant redis;--variant: unknown variant 'redis'",
        "--port 70000;--port: expected a whole number from 0 to 65535, got 70000",
        "--port=-1;--port: expected a whole number from 0 to 65535, got -1",
        "--value-size 0;--value-size: expected a size from 1 B to 64.0 MiB, got 0",
        "--value-size x;--value-size: expected a size in bytes",
        "--max-entries 0;--max-entries: expected a whole number from 1",
        "--threads 0;--threads: expected a whole number from 1 to 1024, got 0",
        "--keys -4;--keys: expected a whole number from 1",
        "--loader tape;--loader: unknown loader 'tape'",
        "--latency 1ms;--latency applies to --loader memory only",
        "--loader memory --latency 5s;--latency must be below 5s, the time the server gives a request to be answered",
        "--stop-after 0s;--stop-after: must be longer than 0",
        "--port;--port needs a value",
    })
    void badInputIsAUsageErrorWithExitCode2(String line, String messageStart) {
        assertUsageError(line, messageStart, false);
    }
}
