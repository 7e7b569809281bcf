package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code offheap inspect <pid> --watch 1s | head -20} never ended: once head had its lines and exited,
 * every write to the closed pipe failed, but a PrintStream keeps such failures to itself, so the watch
 * went on taking a snapshot a second for as long as the JVM ran, and the shell's pipeline with it. Now a
 * watch stops when its output can no longer be written.
 */
class WatchStopsWhenItsOutputIsClosedTest {
    /** Standard output after the reader went away: every write fails, as on a closed pipe. */
    private static final class ClosedPipe extends OutputStream {
        final AtomicInteger writes = new AtomicInteger();

        @Override
        public void write(int b) throws IOException {
            writes.incrementAndGet();
            throw new IOException("Broken pipe");
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            writes.incrementAndGet();
            throw new IOException("Broken pipe");
        }
    }

    @Test
    void aWatchWhoseReaderWentAwayEnds() {
        ClosedPipe pipe = new ClosedPipe();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> Main.standard().run(
                List.of("inspect", Long.toString(ProcessHandle.current().pid()), "--watch", "10ms"),
                new PrintStream(pipe, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)),
                "the watch went on writing to a closed output");
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(pipe.writes.get()).as("writes tried").isPositive();
    }
}
