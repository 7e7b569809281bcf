package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code offheap bench <suite> --forks 3} began with "mode quick (1 fork, 1 warmup × 300 ms, ...)": the
 * mode's own settings, though every benchmark ran in 3 forks (as the plan below the line and the report
 * said). Now the first line names the forks that run.
 */
class TheFirstLineNamesTheForksThatRunTest {
    @Test
    void forksGivenOnTheCommandLineReplaceTheModes() {
        BenchReportEdgeTest.Result r = BenchReportEdgeTest.run("bench", "tiny", "--forks", "3", "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out().lines().findFirst().orElseThrow())
                .contains("mode quick (3 forks, 1 warmup × 300 ms, 2 measurement × 300 ms)");
        assertThat(r.out()).contains("forks 3, warmup 1 × 300 ms");
    }

    @Test
    void withoutForksTheModesAreNamed() {
        BenchReportEdgeTest.Result r = BenchReportEdgeTest.run("bench", "tiny", "--full", "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out().lines().findFirst().orElseThrow())
                .contains("mode full (2 forks, 3 warmup × 1 s, 5 measurement × 1 s)");
    }
}
