package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A RuntimeException while serve builds {@code /stats} or {@code /metrics} (a cache or store whose figures
 * cannot be read) reached the JDK's server, which closes the connection without an answer: the client saw
 * a reset, not what failed. It is answered 500 naming the page and the exception.
 */
class AStatsPageThatFailsIsAnsweredWith500Test {
    @Test
    @Timeout(30)
    void aPageWhoseTextThrowsIsAnswered500NamingTheFailure() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/stats", e -> OfferServer.answerText(e, "/stats", "application/json", () -> {
            throw new IllegalStateException("the cache is closed");
        }));
        http.createContext("/metrics", e -> OfferServer.answerText(e, "/metrics", "text/plain", () -> "up 1\n"));
        http.start();
        try (HttpClient client = HttpClient.newHttpClient()) {
            String base = "http://127.0.0.1:" + http.getAddress().getPort();
            HttpResponse<String> failed = client.send(HttpRequest.newBuilder(URI.create(base + "/stats")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(failed.statusCode()).isEqualTo(500);
            assertThat(failed.body()).contains("/stats").contains("IllegalStateException").contains("the cache is closed");
            HttpResponse<String> fine = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(fine.statusCode()).isEqualTo(200);
            assertThat(fine.body()).isEqualTo("up 1\n");
        } finally {
            http.stop(0);
        }
    }
}
