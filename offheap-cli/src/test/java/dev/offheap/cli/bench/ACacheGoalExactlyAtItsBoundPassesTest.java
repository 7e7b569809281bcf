package dev.offheap.cli.bench;

import static dev.offheap.cli.bench.CacheGoalRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The cache goals are judged on the numbers as JMH wrote them: a ratio, a share of the copy's
 * bandwidth or a hit-ratio gap of exactly the bound meets it, even where the arithmetic of the
 * doubles rounds past it (56,123.68 / 70,154.6 is 0.7999999999999999, 31.02 − 32.02 is
 * −1.0000000000000036).
 */
class ACacheGoalExactlyAtItsBoundPassesTest {
    private static final String P = CacheGoalRows.PACKAGE;
    private static final String LARGE = CacheGoalRows.LARGE;

    private final List<JmhResult> results = new ArrayList<>();

    private void thrpt(String cls, String method, double opsPerS) {
        results.add(CacheGoalRows.thrpt(cls, method, LARGE, opsPerS));
    }

    private void hitRatio(String method, String stream, double percent) {
        results.add(new JmhResult(P + "HitRatioBenchmark." + method, "ss", 1, 1, Map.of("stream", stream), 1,
                Double.NaN, "ms/op", Map.of("hitRatioPercent", new JmhResult.Metric(percent, Double.NaN, "#")),
                Map.of()));
    }


    @Test
    void eightyPercentOfTheCopysBandwidthIsBandwidthBound() {
        thrpt("CacheBandwidthBenchmark", "offheapPut", 56_123.68);
        thrpt("CacheBandwidthBenchmark", "segmentCopyIn", 70_154.6);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "puts bandwidth-bound", "`offheapPut` vs `segmentCopyIn`"))
                .contains("(80%)").endsWith("| pass |");
    }

    @Test
    void tenTimesOhcsGetsIsTenTimes() {
        thrpt("CacheGetBenchmark", "offheapRead", 1_695_139.88);
        thrpt("CacheGetBenchmark", "ohcLru", 169_513.988);
        thrpt("CacheGetBenchmark", "ohcTinyLfu", 100_000);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "100 KB zero-copy reads ≥ 10x OHC gets", "`offheapRead`, 100 KB values, 10 keys, 1 thread"))
                .contains("x (1,695,140 vs 169,514 ops/s)").endsWith("| pass |");
    }

    @Test
    void onePercentagePointBelowCaffeineIsWithinOne() {
        hitRatio("caffeine", "zipf", 32.02);
        hitRatio("offheapTinyLfu", "zipf", 31.02);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "hit ratio within 1 pp of Caffeine", "zipf stream"))
                .contains("31.02% vs 32.02% (-1.00 pp)").endsWith("| pass |");
    }
}
