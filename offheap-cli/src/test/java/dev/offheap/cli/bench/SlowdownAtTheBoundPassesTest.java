package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Variant;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An "at most N times slower" goal passes at or below its bound: a slowdown of exactly the bound
 * passes in either mode, and the slowdown reported is the quotient of the two scores itself.
 */
class SlowdownAtTheBoundPassesTest {
    private static JmhResult row(String method, String mode, double score, String unit) {
        return new JmhResult("dev.example.alloc.Alloc." + method, mode, 1, 1, Map.of("bytes", "16"), score, 0.1, unit,
                Map.of(), Map.of());
    }

    @Test
    void aTimeExactlyAtTheBoundPasses() {
        // 23 ns against 20 ns is 1.15 times the time; 1 / (20 / 23) is 1.1500000000000001
        List<JmhResult> results = List.of(row("pooled", "avgt", 20, "ns/op"), row("pooledSampled", "avgt", 23, "ns/op"));
        Goal goal = Goal.atMostSlower("sampled at most 1.15x plain", 1.15, Variant.of("Alloc", "pooledSampled"),
                Variant.of("Alloc", "pooled"));
        Check check = goal.check(results).getFirst();
        assertThat(check.measured().getAsDouble()).isEqualTo(23.0 / 20);
        assertThat(check.verdict()).isEqualTo(Verdict.PASS);
        assertThat(goal.measuredText(check)).isEqualTo("1.15x");
    }

    @Test
    void aThroughputExactlyAtTheBoundPasses() {
        // 20 ops/ms against 23 ops/ms is the same slowdown in throughput mode
        List<JmhResult> results = List.of(row("pooled", "thrpt", 23, "ops/ms"), row("pooledSampled", "thrpt", 20, "ops/ms"));
        Goal goal = Goal.atMostSlower("sampled at most 1.15x plain", 1.15, Variant.of("Alloc", "pooledSampled"),
                Variant.of("Alloc", "pooled"));
        Check check = goal.check(results).getFirst();
        assertThat(check.measured().getAsDouble()).isEqualTo(23.0 / 20);
        assertThat(check.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void aReportedSlowdownIsTheQuotientOfTheScores() {
        List<JmhResult> results = List.of(row("pooled", "avgt", 1.6, "ns/op"), row("pooledFull", "avgt", 1.84, "ns/op"));
        Check check = Goal.slowdown("full, how much slower", Variant.of("Alloc", "pooledFull"),
                Variant.of("Alloc", "pooled")).check(results).getFirst();
        assertThat(check.measured().getAsDouble()).isEqualTo(1.84 / 1.6);
        assertThat(check.verdict()).isEqualTo(Verdict.REPORTED);
    }
}
