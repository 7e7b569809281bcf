package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offheap compare} stopped by SIGTERM or Ctrl-C kills the running variant's JVM from its shutdown hook,
 * but its own thread goes on until the JVM halts: it reported the variant it had just killed as "crashed: the
 * JVM died (killed by signal 9)", and started the next variant's JVM (killed at once). The command's thread gets
 * that far whenever the shutdown takes a moment (here another hook of the JVM takes two seconds).
 */
class AStoppedCompareStartsNoVariantAndCallsNoneCrashedTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void aVariantKilledForTheStopIsSaidToBeStoppedAndNoFurtherVariantStarts() throws Exception {
        Path out = dir.resolve("out");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process cli = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-cp",
                System.getProperty("java.class.path"), CompareWithASlowShutdown.class.getName(), "compare",
                "--variants", "on-heap,off-heap", "--loader", "memory", "--latency", "0us", "--value-size", "100",
                "--max-entries", "10", "--threads", "1", "--duration", "60s", "--warmup", "0", "--heap", "64m",
                "--out", out.toString()).redirectErrorStream(true).start();
        try {
            StringBuffer seen = new StringBuffer();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(cli.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (int c = in.read(); c >= 0; c = in.read()) {
                        seen.append((char) c);
                    }
                } catch (java.io.IOException e) {
                    // the command ended
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!seen.toString().contains("on-heap: measure") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(seen.toString()).contains("on-heap: measure");

            cli.destroy(); // SIGTERM
            assertThat(cli.waitFor(20, TimeUnit.SECONDS)).as("the command ended").isTrue();
            reader.join(5000);
            assertThat(seen.toString()).as("what the command printed").doesNotContain("crashed")
                    .doesNotContain("killed by signal");
            assertThat(out.resolve("logs").resolve("100-10-off-heap.log"))
                    .as("the next variant's JVM never started; the command printed: %s", seen).doesNotExist();
            assertThat(Files.exists(out.resolve("report.md"))).as("no report of a stopped run").isFalse();
        } finally {
            cli.destroyForcibly();
            for (ProcessHandle p : List.copyOf(cli.toHandle().descendants().toList())) {
                p.destroyForcibly();
            }
        }
    }

    /** The command, in a JVM where another shutdown hook takes two seconds; run in a JVM of its own. */
    public static final class CompareWithASlowShutdown {
        public static void main(String[] args) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    Thread.sleep(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            int code = Main.standard().run(List.of(args), System.out, System.err);
            System.out.flush();
            System.exit(code);
        }
    }
}
