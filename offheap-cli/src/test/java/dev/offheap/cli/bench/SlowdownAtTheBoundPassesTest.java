package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Variant;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An "at most N times slower" goal passes at or below its bound: a slowdown of exactly the bound
 * passes in either mode, and the slowdown reported is the quotient of the two scores itself.
 */
class SlowdownAtTheBoundPassesTest {
    private static JmhResult row(String method, String mode, double score, String unit) {
        return new JmhResult("dev.example.alloc.Alloc." + method, mode, 1, 1, Map.of("bytes", "16"), score, 0.1, unit,
                Map.of(), Map.of());
    }

    /**
     * 23 ns against 20 ns is 1.15 times the time, and 20 ops/ms against 23 ops/ms the same slowdown in
     * throughput mode; computed as 1 / (20 / 23) it was 1.1500000000000001 and failed the bound. 1.61 against
     * 1.4 is 1.1500000000000001 as a quotient of doubles, and passes too (the scores are compared in decimal).
     */
    @ParameterizedTest
    @CsvSource({"avgt, ns/op, 20, 23", "thrpt, ops/ms, 23, 20", "avgt, ns/op, 1.4, 1.61", "thrpt, ops/ms, 1.61, 1.4"})
    void aSlowdownExactlyAtTheBoundPasses(String mode, String unit, double plain, double sampled) {
        List<JmhResult> results = List.of(row("pooled", mode, plain, unit), row("pooledSampled", mode, sampled, unit));
        Goal goal = Goal.atMostSlower("sampled at most 1.15x plain", 1.15, Variant.of("Alloc", "pooledSampled"),
                Variant.of("Alloc", "pooled"));
        Check check = goal.check(results).getFirst();
        assertThat(check.measured().getAsDouble()).isEqualTo(mode.equals("avgt") ? sampled / plain : plain / sampled);
        assertThat(check.verdict()).isEqualTo(Verdict.PASS);
        assertThat(goal.measuredText(check)).isEqualTo("1.15x");
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
