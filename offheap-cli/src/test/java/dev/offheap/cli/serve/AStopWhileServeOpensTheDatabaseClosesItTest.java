package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offheap serve} opens its store so that H2 leaves the database open at exit, and closes it from its own
 * shutdown hook. That hook was registered only once the server ran: Ctrl-C or SIGTERM while serve took its port,
 * created, filled or checked the database, or built the cache let the JVM exit with the database open, as a crash
 * leaves it. The hook is now registered before anything is opened, and closes what serve opened by the time the
 * JVM exits.
 */
class AStopWhileServeOpensTheDatabaseClosesItTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aStopWhileTheDatabaseIsCreatedLeavesItClosed() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp",
                System.getProperty("java.class.path"), StopWhileServeOpensTheDatabase.class.getName(),
                dir.resolve("db").toString(), dir.resolve("watch").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as(out).contains("created the offer database").contains("offers database: closed")
                .doesNotContain("offers database: open");
    }
}
