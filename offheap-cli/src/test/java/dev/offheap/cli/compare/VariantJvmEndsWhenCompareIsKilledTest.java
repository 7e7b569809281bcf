package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A variant's JVM ends with the {@code offheap compare} that started it, however the command ends.
 * <ul>
 *   <li>Stopped by a signal (kill, a scheduler's TERM) while a variant ran, the command left that variant's
 *       JVM running on its own: nothing enforced {@code --timeout} any more, it kept the cores busy and the
 *       database locked (the next run found it "in use by another process") until its measured phase ended,
 *       or for ever if it hung.</li>
 *   <li>Killed outright (SIGKILL: {@code kill -9}, the OOM killer, a CI job's timeout), the command runs no
 *       shutdown hook, so the hook that ends a variant's JVM on SIGTERM never ran, and the variant's JVM went
 *       on measuring on its own, holding the cores and the database, with nobody to read its results.</li>
 * </ul>
 */
class VariantJvmEndsWhenCompareIsKilledTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void theVariantJvmEndsWithTheCommand() throws Exception {
        // SIGTERM, as kill or a scheduler sends it
        endsWithTheCommand(false, "60s", 10);
    }

    @Test
    @Timeout(90)
    void theVariantJvmEndsWhenTheCommandIsKilledWithoutItsHooks() throws Exception {
        // SIGKILL: no shutdown hook runs; the variant must see its parent gone, well inside the 120 s it would measure
        endsWithTheCommand(true, "120s", 20);
    }

    private void endsWithTheCommand(boolean forcibly, String duration, int endsWithinSeconds) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process cli = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "compare", "--variants", "on-heap",
                "--loader", "memory", "--latency", "0us", "--value-size", "100", "--max-entries", "10", "--threads", "1",
                "--duration", duration, "--warmup", "0", "--heap", "64m", "--out", dir.resolve("out").toString())
                .redirectErrorStream(true).start();
        ProcessHandle worker = null;
        try {
            StringBuffer seen = new StringBuffer();
            Thread.ofPlatform().daemon().start(() -> {
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
            while (worker == null && System.nanoTime() < deadline) {
                // the command's one child process is the variant's JVM
                Optional<ProcessHandle> child = cli.toHandle().children().findFirst();
                if (child.isPresent()) {
                    worker = child.get();
                } else {
                    Thread.sleep(50);
                }
            }
            assertThat(worker).as("the variant's JVM; the command printed: " + seen).isNotNull();
            // into its measured phase: the parent prints the phase as the variant reports it
            while (!seen.toString().contains("on-heap: measure") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(seen.toString()).contains("on-heap: measure");

            if (forcibly) {
                cli.destroyForcibly();
            } else {
                cli.destroy();
            }
            assertThat(cli.waitFor(30, TimeUnit.SECONDS)).as("the command ended").isTrue();
            assertThat(worker.onExit().completeOnTimeout(null, endsWithinSeconds, TimeUnit.SECONDS).get())
                    .as("the variant JVM %d ended with the command that started it", worker.pid()).isNotNull();
            assertThat(worker.isAlive()).isFalse();
        } finally {
            cli.destroyForcibly();
            if (worker != null) {
                worker.destroyForcibly();
            }
            for (ProcessHandle p : List.copyOf(cli.toHandle().descendants().toList())) {
                p.destroyForcibly();
            }
        }
    }
}
