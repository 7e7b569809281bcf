package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import dev.offheap.cli.compare.H2OfferStore;
import dev.offheap.cli.compare.Offers;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM (or Ctrl-C) while {@code offheap serve} loaded offers from the database: H2's own shutdown hook closed the
 * database while serve's hook was still stopping the server and letting the requests in progress finish: a load
 * that queried after the close got 500 "Database is already closed", and the one held here, whose query H2's close
 * waits for, got no answer before the server's stop cut it off. Serve now opens the store so that H2 leaves the
 * database open at exit, and closes the store itself once the server has stopped.
 */
class ASignalStopAnswersTheLoadsInProgressTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aLoadInProgressAtSigtermIsAnswered() throws Exception {
        List<String> log = new ArrayList<>();
        H2OfferStore.open(dir, 10, 10, 1, log::add).close();
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.toAbsolutePath().resolve(H2OfferStore.NAME)
                + ";DB_CLOSE_DELAY=0", "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TRIGGER hold_a_load BEFORE SELECT ON offers CALL \""
                    + HoldALoadUntilH2HasShutDown.class.getName() + "\"");
        }
        Path arm = dir.resolve("hold-a-load");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process serve = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx64m",
                "-D" + HoldALoadUntilH2HasShutDown.ARM_FILE + "=" + arm, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "serve", "--variant", "on-heap", "--port", "0", "--db", dir.toString(),
                "--value-size", "10", "--max-entries", "5", "--threads", "2").redirectErrorStream(true).start();
        try {
            // the serve's output, line by line, read on a thread of its own so that a line that never comes fails
            // the test instead of holding it
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line = out.readLine(); line != null; line = out.readLine()) {
                        lines.add(line);
                    }
                } catch (java.io.IOException e) {
                    // the serve ended
                }
            });
            List<String> seen = new ArrayList<>();
            String port = null;
            while (port == null) {
                String line = lines.poll(30, TimeUnit.SECONDS);
                assertThat(line).as("the serve's next line after " + seen).isNotNull();
                seen.add(line);
                Matcher m = Pattern.compile("on http://127\\.0\\.0\\.1:(\\d+)/").matcher(line);
                port = m.find() ? m.group(1) : null;
            }
            Files.createFile(arm);
            CompletableFuture<HttpResponse<String>> load = HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/offers/3")).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.ISO_8859_1));
            assertThat(lines.poll(30, TimeUnit.SECONDS)).isEqualTo(HoldALoadUntilH2HasShutDown.HELD);

            assertThat(serve.toHandle().destroy()).isTrue(); // SIGTERM
            HttpResponse<String> r = load.get(30, TimeUnit.SECONDS);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(Offers.description(3, 10));
            assertThat(serve.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            serve.destroyForcibly();
        }
    }
}
