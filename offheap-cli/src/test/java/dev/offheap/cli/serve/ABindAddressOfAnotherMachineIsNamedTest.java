package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --bind} with an address that is not this machine's (a typo, a server's address on a laptop) fails
 * to bind as a port in use does, and the message said "(Cannot assign requested address); pick another
 * port with --port": another port fails the same way. It names the address now.
 */
class ABindAddressOfAnotherMachineIsNamedTest {
    @Test
    void theMessageSaysTheAddressIsNotThisMachinesNotToPickAnotherPort() {
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): no machine has it
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--bind", "192.0.2.1", "--port", "0",
                "--loader", "memory", "--value-size", "10", "--max-entries", "5", "--stop-after", "100ms"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(message).isEqualTo(Main.FAILED);
        assertThat(message).startsWith("offheap serve: cannot listen on 192.0.2.1:0")
                .contains("192.0.2.1 is not an address of this machine").contains("--bind")
                .doesNotContain("pick another port");
    }
}
