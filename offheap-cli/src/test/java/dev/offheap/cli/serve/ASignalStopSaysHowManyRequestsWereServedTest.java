package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code offheap serve} stopped by {@code --stop-after} says "stopped after N requests"; stopped by Ctrl-C or
 * SIGTERM, the way it runs by default, it ended without a word. It now says the same, on the same stream: stdout,
 * where serve says that it started and what it did with the database (stderr is for failures). The signal's line
 * went to stderr, so that a script reading serve's output found the count of one stop and not of the other.
 */
class ASignalStopSaysHowManyRequestsWereServedTest {
    @Test
    @Timeout(60)
    void sigtermPrintsTheRequestsServed() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process serve = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "serve", "--variant", "on-heap", "--port",
                "0", "--loader", "memory", "--latency", "0us", "--value-size", "10", "--max-entries", "5",
                "--threads", "1").start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
            String started = out.readLine();
            Matcher port = Pattern.compile("on http://127\\.0\\.0\\.1:(\\d+)/").matcher(String.valueOf(started));
            assertThat(port.find()).as(started).isTrue();
            HttpClient http = HttpClient.newHttpClient();
            for (int id = 0; id < 3; id++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.group(1)
                        + "/offers/" + id)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
            }

            // SIGTERM; Process.destroy would also close the streams this reads
            assertThat(serve.toHandle().destroy()).isTrue();
            assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String rest = new String(serve.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(serve.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(rest).as("stdout after the start line; stderr: " + err)
                    .isEqualTo("offheap serve: stopped after 3 requests" + System.lineSeparator());
            assertThat(err).as(err).doesNotContain("stopped after");
        } finally {
            serve.destroyForcibly();
        }
    }
}
