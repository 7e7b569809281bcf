package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Variant;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Goals checked against hand-made results whose ratios are known. */
class GoalTest {
    private static final String PKG = "dev.example.alloc.";
    private static final String ONE = "AllocBench";
    private static final String TWO = "AllocTwoThreadsBench";

    private static JmhResult avgt(String cls, String method, int threads, String bytes, double nsPerOp) {
        return new JmhResult(PKG + cls + "." + method, "avgt", threads, 1, Map.of("bytes", bytes), nsPerOp, 0.1,
                "ns/op", Map.of(), Map.of());
    }

    private static JmhResult thrpt(String method, double opsPerMs) {
        return new JmhResult(PKG + "Throughput." + method, "thrpt", 1, 1, Map.of(), opsPerMs, 1, "ops/ms", Map.of(),
                Map.of());
    }

    private static JmhResult withMetric(String method, String metric, double value) {
        return new JmhResult(PKG + "Frag." + method, "ss", 1, 1, Map.of("allocations", "1000", "seed", "1"), 12.0,
                Double.NaN, "ms/op", Map.of(metric, new JmhResult.Metric(value, Double.NaN, "#")), Map.of());
    }

    private static final List<JmhResult> RESULTS = List.of(
            avgt(ONE, "malloc", 1, "16", 20), avgt(ONE, "mimalloc", 1, "16", 12), avgt(ONE, "pooled", 1, "16", 6),
            avgt(ONE, "malloc", 1, "4096", 30), avgt(ONE, "mimalloc", 1, "4096", 40), avgt(ONE, "pooled", 1, "4096", 25),
            avgt(TWO, "pooled", 2, "16", 7.2), avgt(TWO, "pooled", 2, "4096", 40),
            thrpt("fast", 500), thrpt("slow", 100),
            withMetric("pooled", "trimmedFootprintRatio", 1.2), withMetric("malloc", "trimmedFootprintRatio", 4.0));

    @Test
    void fasterTakesTheFastestReferenceAtEachParameterSet() {
        Goal goal = Goal.faster("pooled 1.5x faster than malloc and mimalloc", 1.5, Variant.of(ONE, "pooled"),
                Variant.of(ONE, "malloc"), Variant.of(ONE, "mimalloc"));
        List<Check> checks = goal.check(RESULTS);
        assertThat(checks).extracting(Check::params)
                .containsExactly(Map.of("bytes", "16"), Map.of("bytes", "4096"));
        // 16 B: mimalloc (12) is the faster reference, 12 / 6 = 2.0; 4096 B: malloc, 30 / 25 = 1.2
        assertThat(checks).extracting(c -> c.measured().getAsDouble()).containsExactly(2.0, 1.2);
        assertThat(checks).extracting(Check::verdict).containsExactly(Verdict.PASS, Verdict.FAIL);
        assertThat(checks.getFirst().detail())
                .isEqualTo("pooled 6.00 ns/op vs mimalloc 12.0 ns/op (best of malloc, mimalloc)");
        assertThat(goal.measuredText(checks.get(1))).isEqualTo("1.20x");
        assertThat(goal.targetText()).isEqualTo("≥ 1.50x");
    }

    @Test
    void aMissingReferenceIsNamedAndTheOthersStillCountTowardsAFail() {
        Goal goal = Goal.faster("pooled vs malloc and jemalloc", 3, Variant.of(ONE, "pooled"),
                Variant.of(ONE, "malloc"), Variant.of(ONE, "jemalloc"));
        List<Check> checks = goal.check(RESULTS);
        // 16 B: 20 / 6 meets 3x against malloc, but jemalloc might be faster; 4096 B: 30 / 25 fails anyway
        assertThat(checks).extracting(Check::verdict).containsExactly(Verdict.NOT_MEASURED, Verdict.FAIL);
        assertThat(checks.getFirst().detail()).endsWith("(best of malloc, jemalloc; jemalloc not measured)");
        assertThat(checks.get(1).measured().getAsDouble()).isEqualTo(1.2);
    }

    @Test
    void atMostSlowerComparesAcrossClassesAndNamesTheThreads() {
        Goal goal = Goal.atMostSlower("2 threads at most 1.25x 1 thread", 1.25, Variant.of(TWO, "pooled"),
                Variant.of(ONE, "pooled"));
        List<Check> checks = goal.check(RESULTS);
        assertThat(checks).extracting(c -> Math.round(c.measured().getAsDouble() * 1e9) / 1e9).containsExactly(1.2, 1.6);
        assertThat(checks).extracting(Check::verdict).containsExactly(Verdict.PASS, Verdict.FAIL);
        assertThat(checks.getFirst().detail()).isEqualTo("pooled (2 threads) 7.20 ns/op vs pooled (1 thread) 6.00 ns/op");
        assertThat(goal.targetText()).isEqualTo("≤ 1.25x");
    }

    @Test
    void slowdownOnlyReports() {
        Goal goal = Goal.slowdown("malloc, how slow", Variant.of(ONE, "malloc"), Variant.of(ONE, "pooled"));
        List<Check> checks = goal.check(RESULTS);
        assertThat(checks).extracting(c -> c.measured().getAsDouble()).containsExactly(20.0 / 6, 1.2);
        assertThat(checks).extracting(Check::verdict).containsOnly(Verdict.REPORTED);
        assertThat(goal.targetText()).isEmpty();
    }

    @Test
    void inThroughputModeHigherIsFaster() {
        Goal goal = Goal.faster("fast 4x slow", 4, Variant.of("Throughput", "fast"), Variant.of("Throughput", "slow"));
        Check check = goal.check(RESULTS).getFirst();
        assertThat(check.measured().getAsDouble()).isEqualTo(5.0);
        assertThat(check.verdict()).isEqualTo(Verdict.PASS);
        Goal inverse = Goal.atMostSlower("slow at most 4x", 4, Variant.of("Throughput", "slow"),
                Variant.of("Throughput", "fast"));
        assertThat(inverse.check(RESULTS).getFirst().measured().getAsDouble()).isEqualTo(5.0);
        assertThat(inverse.check(RESULTS).getFirst().verdict()).isEqualTo(Verdict.FAIL);
    }

    @Test
    void valueGoalsReadASecondaryMetric() {
        Goal goal = Goal.valueAtMost("footprint at most 1.5", 1.5, Variant.of("Frag", "pooled").metric("trimmedFootprintRatio"));
        Check check = goal.check(RESULTS).getFirst();
        assertThat(check.verdict()).isEqualTo(Verdict.PASS);
        assertThat(check.params()).containsEntry("allocations", "1000");
        assertThat(check.detail()).isEqualTo("pooled trimmedFootprintRatio 1.20");
        assertThat(goal.measuredText(check)).isEqualTo("1.20");
        assertThat(goal.targetText()).isEqualTo("≤ 1.50");
        assertThat(Goal.valueAtMost("malloc", 1.5, Variant.of("Frag", "malloc").metric("trimmedFootprintRatio"))
                .check(RESULTS).getFirst().verdict()).isEqualTo(Verdict.FAIL);
        Check reported = Goal.value("malloc", Variant.of("Frag", "malloc").metric("trimmedFootprintRatio"))
                .check(RESULTS).getFirst();
        assertThat(reported.verdict()).isEqualTo(Verdict.REPORTED);
        assertThat(reported.measured().getAsDouble()).isEqualTo(4.0);
        Check primary = Goal.value("time", Variant.of("Frag", "malloc")).check(RESULTS).getFirst();
        assertThat(primary.detail()).isEqualTo("malloc 12.0 ms/op");
    }

    @Test
    void missingSubjectsReferencesAndMetricsAreNotMeasured() {
        Check noSubject = Goal.faster("stack", 3, Variant.of(ONE, "stack"), Variant.of(ONE, "malloc"))
                .check(RESULTS).getFirst();
        assertThat(noSubject.verdict()).isEqualTo(Verdict.NOT_MEASURED);
        assertThat(noSubject.params()).isEmpty();
        assertThat(noSubject.detail()).isEqualTo("no result of AllocBench.stack");

        Goal noRef = Goal.faster("pooled vs bump", 3, Variant.of(ONE, "pooled"), Variant.of(ONE, "bump"));
        Check c = noRef.check(RESULTS).getFirst();
        assertThat(c.verdict()).isEqualTo(Verdict.NOT_MEASURED);
        assertThat(c.detail()).isEqualTo("no result of bump at these parameters");
        assertThat(noRef.measuredText(c)).isEqualTo("—");

        Check noMetric = Goal.value("rss", Variant.of("Frag", "pooled").metric("rssRatio")).check(RESULTS).getFirst();
        assertThat(noMetric.verdict()).isEqualTo(Verdict.NOT_MEASURED);
        assertThat(noMetric.detail()).isEqualTo("no value of Frag.pooled[rssRatio]");
    }

    @Test
    void aReferenceWithOtherParameterNamesCountsWhenTheSharedOnesAgree() {
        JmhResult subject = new JmhResult(PKG + "X.a", "avgt", 1, 1, Map.of("bytes", "16", "mode", "fast"), 5, 0,
                "ns/op", Map.of(), Map.of());
        JmhResult ref = new JmhResult(PKG + "X.b", "avgt", 1, 1, Map.of("bytes", "16"), 10, 0, "ns/op", Map.of(),
                Map.of());
        JmhResult otherUnit = new JmhResult(PKG + "X.c", "avgt", 1, 1, Map.of("bytes", "16", "mode", "fast"), 1, 0,
                "us/op", Map.of(), Map.of());
        Goal goal = Goal.faster("a vs b", 2, Variant.of("X", "a"), Variant.of("X", "b"));
        assertThat(goal.check(List.of(subject, ref)).getFirst().measured().getAsDouble()).isEqualTo(2.0);
        assertThat(Goal.faster("a vs c", 2, Variant.of("X", "a"), Variant.of("X", "c"))
                .check(List.of(subject, otherUnit)).getFirst().verdict()).isEqualTo(Verdict.NOT_MEASURED);
    }

    @Test
    void classNamesMatchWholeSegmentsOnly() {
        // "Bench" must not match "AllocBench": a class is named by its simple or nested name
        Check check = Goal.value("x", Variant.of("Bench", "pooled")).check(RESULTS).getFirst();
        assertThat(check.verdict()).isEqualTo(Verdict.NOT_MEASURED);
        assertThat(Goal.value("x", Variant.of("alloc.AllocBench", "pooled")).check(RESULTS)).hasSize(2);
    }

    @Test
    void malformedGoalsAreRefusedWithTheReason() {
        Variant a = Variant.of("C", "a");
        assertThatThrownBy(() -> Goal.faster("no refs", 2, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'no refs' needs at least one reference");
        assertThatThrownBy(() -> new Goal("value with refs", Goal.Kind.VALUE, Double.NaN, a, List.of(a)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("takes no references, got 1");
        assertThatThrownBy(() -> Goal.faster("zero", 0, a, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive finite target, got 0.0");
        assertThatThrownBy(() -> Goal.valueAtMost("nan", Double.NaN, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive finite target, got NaN");
        assertThatThrownBy(() -> Goal.atMostSlower("metric", 2, a.metric("m"), a))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("compares primary scores");
        assertThatThrownBy(() -> Variant.of(" ", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a class and a method");
        assertThatThrownBy(() -> Variant.of("C", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("method");
        assertThatThrownBy(() -> new Goal(null, Goal.Kind.VALUE, 1, a, List.of()))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("statement");
        assertThatThrownBy(() -> a.metric(null)).isInstanceOf(NullPointerException.class);
    }
}
