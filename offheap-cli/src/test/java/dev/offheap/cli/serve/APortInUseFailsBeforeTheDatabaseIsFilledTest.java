package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offheap serve} on a port another process listens on (a second serve, left running): it created
 * and filled the offer database (at the most 5,000,000 offers, about 10 GB and many minutes) and built the
 * cache, and only then found that it could not listen. Now it takes the port first, and a port in use or an
 * address it cannot listen on fails before the database is touched.
 */
class APortInUseFailsBeforeTheDatabaseIsFilledTest {
    @TempDir
    Path dir;

    @Test
    void aPortInUseFailsWithoutCreatingTheDatabase() throws Exception {
        Path db = dir.resolve("db");
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--port",
                    Integer.toString(taken.getLocalPort()), "--db", db.toString(), "--keys", "500", "--value-size", "10",
                    "--max-entries", "5", "--stop-after", "100ms"),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            String message = err.toString(StandardCharsets.UTF_8);
            assertThat(code).as(message).isEqualTo(Main.FAILED);
            assertThat(message).startsWith("offheap serve: cannot listen on 127.0.0.1:" + taken.getLocalPort())
                    .contains("pick another port with --port");
            assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("offer database");
            assertThat(db.resolve("offers.mv.db")).as("the database, which it did not need").doesNotExist();
        }
    }

    @Test
    void anAddressThatCannotBeResolvedFailsWithoutCreatingTheDatabase() {
        Path db = dir.resolve("db");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // .invalid is reserved never to resolve (RFC 2606)
        int code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--bind", "no-such-host.invalid", "--port",
                "0", "--db", db.toString(), "--keys", "500", "--value-size", "10", "--max-entries", "5", "--stop-after",
                "100ms"), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(message).isEqualTo(Main.FAILED);
        assertThat(message).startsWith("offheap serve: cannot start the HTTP server on no-such-host.invalid:0");
        assertThat(db.resolve("offers.mv.db")).as("the database, which it did not need").doesNotExist();
    }
}
