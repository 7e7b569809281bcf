package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.BenchPlan;
import dev.offheap.cli.bench.JmhResult;
import dev.offheap.cli.testneeds.NeedsBench;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the test-only {@code TinyBench} through the CLI and the real JMH runner in smoke mode: one
 * fork per benchmark, 100 ms of warmup and of measurement, a few seconds in all.
 */
class EndToEndTest {
    @TempDir
    Path out;

    @Test
    void smokeRunWritesJsonReportChartsAndRunDescription() throws Exception {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        Main main = new Main(List.of(new BenchCommand(TestSuites.suites(), BenchPlan::available)));

        int code = main.run(List.of("bench", "tiny", "--smoke", "--out", out.toString()),
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));

        assertThat(code).as("exit code; stderr: %s", stderr).isZero();
        Path json = out.resolve("tiny.json");
        List<JmhResult> results = JmhResult.read(json);
        // the smoke parameters replaced @Param({"16", "4096"}); the fork count came from the mode, not @Fork(3)
        assertThat(results).extracting(JmhResult::method).containsExactlyInAnyOrder("sumArray", "sumSegment");
        assertThat(results).allSatisfy(r -> {
            assertThat(r.params()).containsExactly(java.util.Map.entry("size", "16"));
            assertThat(r.forks()).isEqualTo(1);
            assertThat(r.settings()).containsEntry("measurementIterations", "1");
            assertThat(r.settings().get("jvmArgs")).contains(BenchPlan.NATIVE_ACCESS)
                    .contains("-Doffheap.test.marker=from-annotation");
        });

        String md = Files.readString(out.resolve("tiny.md"));
        assertThat(md).contains("# Benchmarks: tiny")
                .contains("| sumArray (baseline) | size=16 |")
                .containsPattern("\\| sumArray \\(baseline\\) \\| size=16 \\|[^\\n]*\\| 1\\.00 \\|")
                .contains("time ratio, lower is better")
                .contains("bench tiny --smoke --out");
        assertThat(Files.readString(out.resolve("tiny.run.properties"))).contains("mode=smoke");
        byte[] png = Files.readAllBytes(out.resolve("tiny-TinyBench.png"));
        assertThat(png).hasSizeGreaterThan(1000).startsWith(0x89, 'P', 'N', 'G');
        assertThat(stdout.toString(StandardCharsets.UTF_8)).contains("offheap: wrote");
    }

    @Test
    void benchmarksWhosePreconditionIsUnmetAreLeftOutAndTheReportChecksTheGoals() throws Exception {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        Main main = new Main(List.of(new BenchCommand(TestSuites.suites(), BenchPlan::available)));

        int code = main.run(List.of("bench", "needs", "--smoke", "--out", out.toString()),
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));

        assertThat(code).as("exit code; stderr: %s", stderr).isZero();
        assertThat(stdout.toString(StandardCharsets.UTF_8))
                .contains("offheap: skipping NeedsBench.needsMissingLibrary: " + NeedsBench.MISSING)
                .contains("offheap: skipping NeedsBench.needsBrokenCheck: its precondition");
        assertThat(JmhResult.read(out.resolve("needs.json"))).extracting(JmhResult::method)
                .containsExactlyInAnyOrder("plain", "needsWhatIsThere");
        String md = Files.readString(out.resolve("needs.md"));
        assertThat(md).contains("- `NeedsBench.needsMissingLibrary`: " + NeedsBench.MISSING)
                .contains("## Goals")
                .containsPattern("\\| needsWhatIsThere at most 100x plain \\|  \\| [0-9.]+x \\| ≤ 100x \\| (pass|\\*\\*FAIL\\*\\*) \\|");
        assertThat(Files.readString(out.resolve("needs.run.properties")))
                .contains("skipped.dev.offheap.cli.testneeds.NeedsBench.needsMissingLibrary=");

        // the report re-generated from the files still lists what was skipped and checks the goal
        Files.delete(out.resolve("needs.md"));
        assertThat(main.run(List.of("bench", "--report", out.resolve("needs.json").toString()),
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8)))
                .isZero();
        assertThat(Files.readString(out.resolve("needs.md"))).contains("NeedsBench.needsMissingLibrary")
                .contains("needsWhatIsThere at most 100x plain");
    }

    @Test
    void aRunWhoseEveryBenchmarkIsLeftOutFailsWithTheReason() {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        Main main = new Main(List.of(new BenchCommand(TestSuites.suites(), BenchPlan::available)));

        int code = main.run(List.of("bench", "needs", "--smoke", "--include", "needsMissing", "--out", out.toString()),
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true, StandardCharsets.UTF_8));

        assertThat(code).isNotZero();
        assertThat(stderr.toString(StandardCharsets.UTF_8))
                .contains("every benchmark of suite 'needs' that matched was left out: " + NeedsBench.MISSING);
        assertThat(out.resolve("needs.json")).doesNotExist();
    }
}
