package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code offheap inspect <pid> --watch D} started a new thread for every call to the inspected JVM (each
 * call is bounded by a time to answer in), so a watch started one thread per snapshot for as long as it ran.
 * Now the command makes its calls on the threads of one executor, kept for its lifetime and shut down at
 * its end.
 */
class AWatchMakesItsCallsOnOneThreadTest {
    private static final int SNAPSHOTS = 60;

    /** @return the inspect threads that run now and did not before */
    private static Set<Thread> inspectThreadsBut(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("inspect-") && !before.contains(t))
                .collect(Collectors.toSet());
    }

    @Test
    void aWatchOfManySnapshotsStartsAFewThreadsNotOneASnapshot() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // another test's call to a JVM that stopped answering may still wait
        Set<Thread> earlier = inspectThreadsBut(Set.of());
        long before = threads.getTotalStartedThreadCount();
        int code = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> Main.standard().run(
                List.of("inspect", Long.toString(ProcessHandle.current().pid()), "--watch", "5ms",
                        "--count", Integer.toString(SNAPSHOTS)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        long started = threads.getTotalStartedThreadCount() - before;
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).split("(?m)^JVM ", -1)).hasSize(SNAPSHOTS + 1);
        // the JVM may start threads of its own meanwhile (a compiler thread, a pool's worker): a few, not one a snapshot
        assertThat(started).as("threads started for %d snapshots", SNAPSHOTS).isLessThan(20);

        // the executor is shut down with the command: none of its threads outlives it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!inspectThreadsBut(earlier).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(inspectThreadsBut(earlier)).as("inspect threads that run after the command returned").isEmpty();
    }
}
