package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.compare.CaffeineOfferCache;
import dev.offheap.cli.compare.OfferService;
import dev.offheap.cli.compare.OfferStore;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A load that failed with an Error (an on-heap cache's {@code OutOfMemoryError}, the failure a heap too small for
 * the values gives) escaped the request handler: the JDK's server let it end the request thread and left the
 * connection open without an answer until its request time ran out, 5 seconds later, when the client saw the
 * connection closed. The load now fails as a failed load does, with 500 and the error named; the Error still
 * ends the request thread, which the server replaces.
 */
class ALoadThatRunsOutOfHeapIsAnsweredWith500Test {
    @Test
    @Timeout(30)
    void theClientGetsA500NamingTheError() throws Exception {
        OfferStore store = new OfferStore() {
            @Override
            public String load(long id) {
                throw new OutOfMemoryError("Java heap space (thrown by the test)");
            }

            @Override
            public long offers() {
                return 10;
            }

            @Override
            public String describe() {
                return "a store out of heap";
            }

            @Override
            public void close() {
            }
        };
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        // the request thread still ends with the error, which is not printed among the test's output here
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> { });
        try (OfferServer server = OfferServer.start(new OfferService(new CaffeineOfferCache(5), store), "on-heap",
                new InetSocketAddress("127.0.0.1", 0), 1);
                HttpClient http = HttpClient.newHttpClient()) {
            CompletableFuture<HttpResponse<String>> get = http.sendAsync(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + server.port() + "/offers/3")).build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> r = get.get();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(500);
            assertThat(r.body()).contains("loading offer 3 failed").contains("OutOfMemoryError");
            // the server answers the next request on the thread that replaced the one the error ended
            HttpResponse<String> next = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/offers/x")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(next.statusCode()).isEqualTo(400);
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }
}
