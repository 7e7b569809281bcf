package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.BenchPlan;
import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import dev.offheap.cli.compare.CompareCommand;
import dev.offheap.cli.serve.ServeCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code --out} or {@code --db} that names an existing regular file (or a path under one) failed with
 * "cannot create the output folder X: java.nio.file.FileAlreadyExistsException: X", an exception's name that
 * does not say what is wrong. The message now says "X exists and is not a folder", in compare, serve and bench.
 */
class AFileWhereAFolderIsNamedIsCalledSoTest {
    @TempDir
    Path dir;

    private Path file;

    @BeforeEach
    void aRegularFile() throws IOException {
        file = Files.writeString(dir.resolve("results.txt"), "not a folder");
    }

    @Test
    void compareSaysItsOutputFolderIsAFile() {
        Run r = run(new CompareCommand(), "compare", "--loader", "memory", "--value-size", "1000", "--max-entries",
                "10", "--out", file.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap compare: cannot create the output folder " + file + ": " + file
                + " exists and is not a folder\n");
    }

    @Test
    void compareSaysWhichPartOfItsOutputFolderIsAFile() {
        Path under = file.resolve("compare");
        Run r = run(new CompareCommand(), "compare", "--loader", "memory", "--value-size", "1000", "--max-entries",
                "10", "--out", under.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap compare: cannot create the output folder " + under + ": " + file
                + " exists and is not a folder\n");
    }

    @Test
    void compareSaysItsLogsFolderIsAFile() throws IOException {
        Path out = Files.createDirectory(dir.resolve("out"));
        Path logs = Files.writeString(out.resolve("logs"), "not a folder");
        Run r = run(new CompareCommand(), "compare", "--loader", "memory", "--value-size", "1000", "--max-entries",
                "10", "--out", out.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap compare: cannot write to the output folder " + out + ": " + logs
                + " exists and is not a folder\n");
    }

    @Test
    void compareSaysItsDatabaseFolderIsAFile() {
        Run r = run(new CompareCommand(), "compare", "--value-size", "1000", "--max-entries", "10", "--out",
                dir.resolve("out").toString(), "--db", file.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap compare: cannot create the database folder " + file + ": " + file
                + " exists and is not a folder\n");
    }

    @Test
    void serveSaysItsDatabaseFolderIsAFile() {
        Run r = run(new ServeCommand(), "serve", "--port", "0", "--value-size", "10", "--max-entries", "5",
                "--stop-after", "1s", "--db", file.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap serve: cannot create the database folder " + file + ": " + file
                + " exists and is not a folder\n");
    }

    @Test
    void benchSaysItsOutputFolderIsAFile() {
        Suites suites = new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                Map.of("size", List.of("16")))));
        Run r = run(new BenchCommand(suites, BenchPlan::available), "bench", "tiny", "--smoke", "--out",
                file.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap bench: cannot create the output directory " + file + ": " + file
                + " exists and is not a folder\n");
    }

    @Test
    void benchSaysTheOutputFolderOfAReportIsAFile() throws IOException {
        Path json = Files.writeString(dir.resolve("tiny.json"), "[]");
        Run r = run(new BenchCommand(), "bench", "--report", json.toString(), "--out", file.toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).isEqualTo("offheap bench: cannot create the output directory " + file + ": " + file
                + " exists and is not a folder\n");
    }

    private record Run(int code, String out, String err) {
    }

    private static Run run(Command command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(List.of(command)).run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
