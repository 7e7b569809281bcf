package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offheap compare} found out that it could not write its output folder only when it wrote there:
 * a {@code logs} it could not create failed every variant with a misleading "could not start its JVM",
 * and a report it could not write lost the whole run (minutes to hours of measurements), its table never
 * printed. Now it checks the folder before anything runs, as {@code offheap bench} does.
 */
class AnOutputFolderThatCannotBeWrittenFailsBeforeTheRunTest {
    @TempDir
    Path dir;

    private CliRun compare(Path out) {
        return CliRun.of(new CompareCommand(), "compare", "--variants", "on-heap", "--loader", "memory", "--latency", "0us",
                "--value-size", "100", "--max-entries", "10", "--threads", "1", "--requests", "100", "--warmup", "0",
                "--heap", "64m", "--out", out.toString());
    }

    @Test
    void aLogsFolderThatCannotBeCreatedFailsBeforeAnyVariantRuns() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.writeString(out.resolve("logs"), "a file in the way");
        CliRun r = compare(out);
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).startsWith("offheap compare: cannot write to the output folder " + out);
        assertThat(r.out()).doesNotContain("[1/1]").doesNotContain("could not start its JVM");
    }

    @Test
    void aReportThatCouldNotBeWrittenFailsBeforeAnyVariantRuns() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.createDirectories(out.resolve("report.md"));
        CliRun r = compare(out);
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).startsWith("offheap compare: cannot write " + out.resolve("report.md")
                + ": a directory of that name is in the way");
        assertThat(r.out()).doesNotContain("[1/1]");
    }
}
