package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compare --dry-run} prints the variant JVMs' command lines to be run by hand, but joined their
 * arguments with spaces as they were: with an output or database folder whose path has a space, the
 * crash-report option, the result file and the database folder each fell apart into two words, and the
 * line did not run. The arguments a shell would split are quoted now.
 */
class DryRunCommandLinesAreShellQuotedTest {
    @TempDir
    Path dir;

    @Test
    void aPathWithSpacesStaysOneArgument() throws Exception {
        Path out = dir.resolve("o u t");
        Path db = dir.resolve("d b");
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--variants", "on-heap", "--out", out.toString(),
                "--db", db.toString());
        assertThat(r.code()).as(r.err()).isZero();
        String line = r.out().lines().filter(l -> l.startsWith("  ")).findFirst().orElseThrow().trim();
        String errorFile = "-XX:ErrorFile=" + out.toAbsolutePath().resolve("logs").resolve("100000-5000-on-heap-hs_err.log");
        String result = out.toAbsolutePath().resolve("logs").resolve("100000-5000-on-heap.json").toString();
        String dbDir = "dbDir=" + db.toAbsolutePath();
        assertThat(line).contains("'" + errorFile + "'").contains("'" + result + "'").contains("'" + dbDir + "'");

        // and a shell reads each back as one word
        Process sh = new ProcessBuilder("sh", "-c", "printf '%s\\n' " + line).redirectErrorStream(true).start();
        List<String> words = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(words).contains(errorFile, result, dbDir);
    }
}
