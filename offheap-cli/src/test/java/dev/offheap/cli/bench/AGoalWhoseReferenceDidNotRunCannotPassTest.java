package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Variant;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * "At least 1.5x faster than the faster of malloc and mimalloc" is not shown met by a run without
 * mimalloc (not installed, or left out by --include): mimalloc may be the faster. Beating the
 * references that ran is not enough to pass; missing one of them is already enough to fail.
 */
class AGoalWhoseReferenceDidNotRunCannotPassTest {
    private static final String U = "UninitializedAllocationBenchmark";

    private static JmhResult row(String method, String bytes, double nsPerOp) {
        return new JmhResult("dev.offheap.bench.alloc." + U + "." + method, "avgt", 1, 1, Map.of("bytes", bytes),
                nsPerOp, 0.1, "ns/op", Map.of(), Map.of());
    }

    // no mimalloc rows: its benchmarks were left out
    private static final List<JmhResult> WITHOUT_MIMALLOC = List.of(
            row("malloc", "16", 30), row("pooled", "16", 10),
            row("malloc", "4096", 30), row("pooled", "4096", 25),
            row("bump", "16", 3), row("stack", "16", 4));

    @Test
    void beatingTheReferencesThatRanIsNotMeasuredAndMissingThemIsAFail() {
        Goal goal = Goal.faster("pooled at least 1.5x faster than the faster of malloc and mimalloc", 1.5,
                Variant.of(U, "pooled"), Variant.of(U, "malloc"), Variant.of(U, "mimalloc"));
        List<Check> checks = goal.check(WITHOUT_MIMALLOC);
        // 16 B: 3x faster than malloc, but mimalloc did not run; 4096 B: 1.2x malloc fails whatever mimalloc does
        assertThat(checks).extracting(Check::verdict).containsExactly(Verdict.NOT_MEASURED, Verdict.FAIL);
        assertThat(goal.measuredText(checks.getFirst())).isEqualTo("—");
        assertThat(checks.getFirst().detail())
                .isEqualTo("pooled 10.0 ns/op vs malloc 30.0 ns/op (best of malloc, mimalloc; mimalloc not measured)");
        assertThat(goal.measuredText(checks.get(1))).isEqualTo("1.20x");
    }

    @Test
    void anAtMostSlowerGoalWithAReferenceMissingCannotPassEither() {
        Goal goal = Goal.atMostSlower("stack within 1.5x of the faster of bump and arena", 1.5,
                Variant.of(U, "stack"), Variant.of(U, "bump"), Variant.of(U, "arena"));
        Check check = goal.check(WITHOUT_MIMALLOC).getFirst();
        assertThat(check.verdict()).isEqualTo(Verdict.NOT_MEASURED);
        assertThat(check.detail()).endsWith("(best of bump, arena; arena not measured)");
    }

    @Test
    void theReportCountsItAsNotMeasured() {
        BenchReport report = new BenchReport("alloc", WITHOUT_MIMALLOC, RunInfo.unknown(), c -> Optional.empty(),
                List.of(Goal.faster("pooled at least 1.5x faster than the faster of malloc and mimalloc", 1.5,
                        Variant.of(U, "pooled"), Variant.of(U, "malloc"), Variant.of(U, "mimalloc"))), null);
        assertThat(report.markdown()).contains("0 pass, 1 fail, 0 reported only, 1 not measured.")
                .contains("| bytes=16 | — | ≥ 1.50x | not measured |");
    }
}
