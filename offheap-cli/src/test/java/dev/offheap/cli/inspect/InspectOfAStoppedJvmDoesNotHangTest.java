package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A JVM that does not answer (stopped by SIGSTOP or a debugger, or hung) once its attach listener and JMX
 * agent run: {@code offheap inspect <pid>} waited for its answer without end, and {@code --watch} of a JVM
 * that stopped after its first snapshot never took the next one nor returned. Now each attach and snapshot
 * has a time to answer in, past which the command says so.
 */
class InspectOfAStoppedJvmDoesNotHangTest {
    private static final Duration ANSWER = Duration.ofSeconds(2);

    private static int signal(Process p, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).redirectErrorStream(true).start();
        return kill.waitFor(10, TimeUnit.SECONDS) ? kill.exitValue() : -1;
    }

    private static Main main() {
        return new Main(List.of(new InspectCommand(ANSWER)));
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    @Test
    void aStoppedJvmIsACommandFailureNotAHang() throws Exception {
        Process target = InspectCommandTest.startTarget();
        try {
            String pid = Long.toString(target.pid());
            // the first inspect starts the target's attach listener and JMX agent, which answer no more once stopped
            InspectCommandTest.Result first = InspectCommandTest.run("inspect", pid);
            assertThat(first.code()).as(first.err()).isZero();
            assumeTrue(signal(target, "STOP") == 0, "kill -STOP is not available here");

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = assertTimeoutPreemptively(Duration.ofSeconds(30),
                    () -> main().run(List.of("inspect", pid), print(out), print(err)),
                    "inspect of a stopped JVM did not return");
            assertThat(code).isEqualTo(Main.FAILED);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("JVM " + pid + " did not answer within 2s");
        } finally {
            signal(target, "CONT");
            target.getOutputStream().close();
            if (!target.waitFor(20, TimeUnit.SECONDS)) {
                target.destroyForcibly();
            }
        }
    }

    @Test
    void watchingAJvmThatStopsEndsWithTheSnapshotsItTook() throws Exception {
        Process target = InspectCommandTest.startTarget();
        try {
            String pid = Long.toString(target.pid());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            AtomicInteger code = new AtomicInteger(-1);
            Thread watcher = Thread.ofPlatform().daemon().start(() -> code.set(main().run(
                    List.of("inspect", pid, "--watch", "100ms"), print(out), print(err))));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!out.toString(StandardCharsets.UTF_8).contains("target-cache") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(out.toString(StandardCharsets.UTF_8)).as(err.toString(StandardCharsets.UTF_8))
                    .contains("target-cache");
            assumeTrue(signal(target, "STOP") == 0, "kill -STOP is not available here");

            watcher.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(watcher.isAlive()).as("the watch still runs, 20 s after its JVM stopped").isFalse();
            assertThat(code.get()).isZero();
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("JVM " + pid + " can no longer be read")
                    .contains("did not answer within 2s").contains("stopped after");
        } finally {
            signal(target, "CONT");
            target.getOutputStream().close();
            if (!target.waitFor(20, TimeUnit.SECONDS)) {
                target.destroyForcibly();
            }
        }
    }
}
