package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Variant;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A goal's measured value is shown rounded towards failing its target: a value just short of the
 * target reads as short of it, next to its FAIL, never as the target itself; values that meet the
 * target read as before.
 */
class MeasuredValueNeverReadsAsAMissedTargetTest {
    private static JmhResult avgt(String method, double nsPerOp) {
        return new JmhResult("dev.example.alloc.Alloc." + method, "avgt", 1, 1, Map.of("bytes", "16"), nsPerOp, 0.1,
                "ns/op", Map.of(), Map.of());
    }

    private static Check only(Goal goal, List<JmhResult> results) {
        List<Check> checks = goal.check(results);
        assertThat(checks).hasSize(1);
        return checks.getFirst();
    }

    @Test
    void aSpeedupJustShortOfItsTargetReadsShortOfIt() {
        Goal goal = Goal.faster("pooled 1.5x faster than malloc", 1.5, Variant.of("Alloc", "pooled"),
                Variant.of("Alloc", "malloc"));
        Check missed = only(goal, List.of(avgt("pooled", 10), avgt("malloc", 14.97)));
        assertThat(missed.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(goal.measuredText(missed)).isEqualTo("1.49x"); // 1.497: rounded to the nearest, 1.50x
        Check met = only(goal, List.of(avgt("pooled", 10), avgt("malloc", 15)));
        assertThat(met.verdict()).isEqualTo(Verdict.PASS);
        assertThat(goal.measuredText(met)).isEqualTo("1.50x");
    }

    @Test
    void aSlowdownJustOverItsBoundReadsOverIt() {
        Goal goal = Goal.atMostSlower("two threads at most 1.25x", 1.25, Variant.of("Alloc", "pooled2"),
                Variant.of("Alloc", "pooled"));
        Check missed = only(goal, List.of(avgt("pooled2", 12.504), avgt("pooled", 10)));
        assertThat(missed.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(goal.measuredText(missed)).isEqualTo("1.26x");
        Check met = only(goal, List.of(avgt("pooled2", 11.1), avgt("pooled", 10)));
        assertThat(met.verdict()).isEqualTo(Verdict.PASS);
        assertThat(goal.measuredText(met)).isEqualTo("1.11x");
    }

    @Test
    void aValueJustOverItsBoundReadsOverIt() {
        JmhResult frag = new JmhResult("dev.example.alloc.Frag.pooled", "ss", 1, 1, Map.of(), 12, Double.NaN, "ms/op",
                Map.of("trimmedFootprintRatio", new JmhResult.Metric(1.503, Double.NaN, "#")), Map.of());
        Goal goal = Goal.valueAtMost("footprint at most 1.5", 1.5,
                Variant.of("Frag", "pooled").metric("trimmedFootprintRatio"));
        Check missed = only(goal, List.of(frag));
        assertThat(missed.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(goal.measuredText(missed)).isEqualTo("1.51");
    }

    @Test
    void theCacheGoalsRoundTowardsFailingToo() {
        String p = "dev.offheap.bench.cache.";
        List<JmhResult> results = new ArrayList<>();
        java.util.function.BiConsumer<String, Double> large = (benchmark, score) -> results.add(new JmhResult(
                p + benchmark, "thrpt", 1, 1, Map.of("workload", "10x100000"), score, Double.NaN, "ops/s", Map.of(),
                Map.of()));
        large.accept("CacheGetBenchmark.ohcLru", 100.0);
        large.accept("CacheGetBenchmark.offheapGet", 199.9); // 1.999x OHC: short of 2x
        large.accept("CacheBandwidthBenchmark.segmentCopyIn", 100_000.0);
        large.accept("CacheBandwidthBenchmark.offheapPut", 79_600.0); // 79.6% of the copy: short of 80%
        results.add(new JmhResult(p + "CacheFootprintBenchmark.offheap", "thrpt", 1, 1, Map.of(), 1, Double.NaN,
                "ops/s", Map.of("accountedOverheadBytesPerEntry", new JmhResult.Metric(32.04, Double.NaN, "#")),
                Map.of()));
        String md = new CacheGoals().apply(results);
        assertThat(line(md, "| throughput ≥ 2x OHC | get (`offheapGet`)")).contains("| 1.99x (")
                .endsWith("| **fail** |");
        assertThat(line(md, "| puts bandwidth-bound |")).contains("(79%)").endsWith("| **fail** |");
        assertThat(line(md, "| overhead per entry ≤ 32 B | 100 B values, 8 B keys, own accounting"))
                .contains("| 32.1 B |").endsWith("| **fail** |");
    }

    private static String line(String md, String start) {
        return md.lines().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + start + "' in\n" + md));
    }
}
