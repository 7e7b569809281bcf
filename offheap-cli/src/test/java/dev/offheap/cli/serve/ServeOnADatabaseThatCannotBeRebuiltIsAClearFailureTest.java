package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database that is corrupt and cannot be deleted for its rebuild (here a folder where the file should
 * be; likewise a file in a folder the user may not write) ended {@code offheap serve} with an uncaught
 * UncheckedIOException and its stack trace, where {@code offheap compare} says what is wrong with exit
 * code 1.
 */
class ServeOnADatabaseThatCannotBeRebuiltIsAClearFailureTest {
    @TempDir
    Path dir;

    @Test
    void aCorruptDatabaseThatCannotBeDeletedIsACommandFailure() throws Exception {
        Files.createDirectories(dir.resolve("offers.mv.db").resolve("in-the-way"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            code = new Main(List.of(new ServeCommand())).run(List.of("serve", "--port", "0", "--value-size", "100",
                    "--max-entries", "5", "--db", dir.toString(), "--stop-after", "100ms"),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            throw new AssertionError("escaped Main.run: " + e, e);
        }
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.FAILED);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("is corrupt").contains("rebuilding it");
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("offheap serve: cannot delete the corrupt offer database " + dir.resolve("offers.mv.db"));
    }
}
