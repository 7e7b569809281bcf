package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code offheap serve} answered HEAD with 405, though HTTP has a server that serves GET serve HEAD too
 * (RFC 9110, 9.3.2: the status and header fields of the GET, without its content), and load balancers and
 * link checkers probe with it. Now HEAD of /offers/{id}, /stats and /metrics answers as GET does, without
 * the body, and a 405 for another method names both in its Allow header.
 */
class HeadIsAnsweredAsGetIsTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private static OfferServer start() throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--loader", "memory",
                "--latency", "0us", "--value-size", "300", "--max-entries", "5"));
        return ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(int port, String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/offers/1", "/offers/1?x=2", "/offers/abc", "/offers/10", "/stats", "/metrics", "/nothing"})
    @Timeout(30)
    void headHasGetsStatusAndHeadersAndNoBody(String path) throws Exception {
        try (OfferServer server = start()) {
            HttpResponse<String> get = send(server.port(), "GET", path);
            HttpResponse<String> head = send(server.port(), "HEAD", path);
            assertThat(head.statusCode()).as(path).isEqualTo(get.statusCode());
            assertThat(head.headers().firstValue("Content-Type")).as(path).isEqualTo(get.headers().firstValue("Content-Type"));
            assertThat(head.headers().firstValueAsLong("Content-Length")).as(path).isPresent();
            if (!path.equals("/stats") && !path.equals("/metrics")) {
                // the numbers of /stats and /metrics change from one request to the next, and their length with them
                assertThat(head.headers().firstValueAsLong("Content-Length").getAsLong()).as(path)
                        .isEqualTo(get.body().getBytes(StandardCharsets.ISO_8859_1).length);
            }
            assertThat(head.headers().allValues("Allow")).isEmpty();
            assertThat(head.body()).isEmpty();
        }
    }

    /** On the wire: no body after HEAD's headers, so that the next response on the connection is read right. */
    @Test
    @Timeout(30)
    void aHeadSendsNoBodyAndTheConnectionServesTheNextRequest() throws Exception {
        try (OfferServer server = start(); Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("HEAD /offers/2 HTTP/1.1\r\nHost: x\r\n\r\nGET /offers/3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String both = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            int second = both.indexOf("HTTP/1.1", 1);
            assertThat(second).as(both).isPositive();
            String head = both.substring(0, second);
            assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("content-length: 300\r\n").endsWith("\r\n\r\n");
            assertThat(both.substring(second)).startsWith("HTTP/1.1 200").endsWith(
                    dev.offheap.cli.compare.Offers.description(3, 300));
        }
    }

    /** RFC 9110, 15.5.6: a 405 names the methods the resource supports, HEAD among them. */
    @ParameterizedTest
    @CsvSource({"/offers/1,DELETE", "/offers/1,POST", "/stats,PUT", "/metrics,DELETE", "/metrics,OPTIONS"})
    @Timeout(30)
    void a405NamesGetAndHead(String path, String method) throws Exception {
        try (OfferServer server = start()) {
            HttpResponse<String> r = send(server.port(), method, path);
            assertThat(r.statusCode()).isEqualTo(405);
            assertThat(r.headers().allValues("Allow")).containsExactly("GET, HEAD");
            assertThat(r.body()).isEqualTo("only GET and HEAD are supported\n");
        }
    }
}
