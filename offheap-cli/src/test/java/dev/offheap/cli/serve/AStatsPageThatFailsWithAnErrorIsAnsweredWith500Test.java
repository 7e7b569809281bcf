package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An Error while serve builds {@code /stats} or {@code /metrics} (an {@code OutOfMemoryError} while the text is
 * built, say) escaped the handler as a load's did: the JDK's server let it end the request thread and left the
 * connection without an answer until its request time ran out, when the client saw it closed. It is answered 500
 * naming the page and the error, GET and HEAD alike; the Error still ends the request thread.
 */
class AStatsPageThatFailsWithAnErrorIsAnsweredWith500Test {
    @Test
    @Timeout(30)
    void theClientGetsA500NamingTheError() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        // the request thread still ends with the error, which is not printed among the test's output here
        ExecutorService executor = Executors.newFixedThreadPool(1,
                Thread.ofPlatform().uncaughtExceptionHandler((t, ex) -> { }).factory());
        http.setExecutor(executor);
        http.createContext("/stats", e -> OfferServer.answerText(e, "/stats", "application/json", () -> {
            throw new OutOfMemoryError("Java heap space (thrown by the test)");
        }));
        http.start();
        try (HttpClient client = HttpClient.newHttpClient()) {
            URI stats = URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/stats");
            HttpResponse<String> get = client.send(HttpRequest.newBuilder(stats).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).as(get.body()).isEqualTo(500);
            assertThat(get.body()).contains("building /stats failed").contains("OutOfMemoryError");
            HttpResponse<Void> head = client.send(HttpRequest.newBuilder(stats).HEAD().build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(head.statusCode()).isEqualTo(500);
        } finally {
            http.stop(0);
            executor.shutdownNow();
        }
    }
}
