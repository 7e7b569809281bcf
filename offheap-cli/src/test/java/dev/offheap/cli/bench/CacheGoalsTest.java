package dev.offheap.cli.bench;

import static dev.offheap.cli.bench.CacheGoalRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cache suite's goal section, judged from hand-made results whose ratios are known. */
class CacheGoalsTest {
    private static final String P = CacheGoalRows.PACKAGE;
    private static final String SMALL = CacheGoalRows.SMALL;
    private static final String LARGE = CacheGoalRows.LARGE;

    private final List<JmhResult> results = new ArrayList<>();

    private void thrpt(String cls, String method, String workload, double score, Map<String, JmhResult.Metric> secondary) {
        results.add(CacheGoalRows.thrpt(cls, method, workload, score, secondary));
    }

    private void thrpt(String cls, String method, String workload, double score) {
        results.add(CacheGoalRows.thrpt(cls, method, workload, score));
    }

    /** A one-thread result whose score does not matter, only its auxiliary counters. */
    private void counters(String benchmark, String mode, Map<String, String> params, String unit,
            Map<String, JmhResult.Metric> counters) {
        results.add(new JmhResult(P + benchmark, mode, 1, 1, params, 1, Double.NaN, unit, counters, Map.of()));
    }

    private static JmhResult.Metric counter(double value) {
        return new JmhResult.Metric(value, Double.NaN, "#");
    }

    private static Map<String, JmhResult.Metric> gc(double count, double timeMs) {
        Map<String, JmhResult.Metric> m = new LinkedHashMap<>();
        m.put("gc.count", new JmhResult.Metric(count, Double.NaN, "counts"));
        m.put("gc.time", new JmhResult.Metric(timeMs, Double.NaN, "ms"));
        return m;
    }


    @Test
    void throughputAgainstTheBetterOhcVariantPassesAtTwiceAndFailsBelow() {
        thrpt("CacheGetBenchmark", "ohcLru", SMALL, 100);
        thrpt("CacheGetBenchmark", "ohcTinyLfu", SMALL, 150);
        thrpt("CacheGetBenchmark", "offheapGet", SMALL, 300);
        thrpt("CacheGetBenchmark", "offheapRead", SMALL, 299);
        thrpt("CacheGetBenchmark", "ohcLru", LARGE, 10);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "throughput ≥ 2x OHC", "get (`offheapGet`), 100 B values, 1000 keys, 1 thread"))
                .contains("2.00x (300 vs 150 ops/s)").endsWith("| pass |");
        assertThat(row(md, "throughput ≥ 2x OHC", "get (`offheapRead`), 100 B values, 1000 keys, 1 thread"))
                .contains("1.99x").endsWith("| **fail** |");
        assertThat(row(md, "throughput ≥ 2x OHC", "put (`offheapPut`), 100 B values"))
                .endsWith("| not measured |");
        assertThat(md).contains("1 of ").contains("1 missed");
    }

    @Test
    void caffeineRatiosUseTheSmallValuesAndZeroCopyReadsTheLargeOnes() {
        thrpt("CacheGetBenchmark", "caffeine", SMALL, 1000);
        thrpt("CacheGetBenchmark", "offheapGet", SMALL, 500);
        thrpt("CachePutBenchmark", "caffeine", SMALL, 1000);
        thrpt("CachePutBenchmark", "offheapPut", SMALL, 999);
        thrpt("CacheGetBenchmark", "ohcLru", LARGE, 100);
        thrpt("CacheGetBenchmark", "ohcTinyLfu", LARGE, 90);
        thrpt("CacheGetBenchmark", "offheapRead", LARGE, 1000);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "100-byte gets ≥ 0.5x Caffeine", "`offheapGet`, 100 B values, 1000 keys, 1 thread"))
                .contains("0.50x").endsWith("| pass |");
        assertThat(row(md, "100-byte puts ≥ 1x Caffeine", "`offheapPut`, 100 B values, 1000 keys, 1 thread"))
                .endsWith("| **fail** |");
        assertThat(row(md, "100 KB zero-copy reads ≥ 10x OHC gets", "`offheapRead`, 100 KB values, 10 keys, 1 thread"))
                .contains("10.0x (1,000 vs 100 ops/s)").endsWith("| pass |");
    }

    /** A run of large values alone (a partial run) judges the large-value goals, and no 100-byte goal on them. */
    @Test
    void aRunOfOneWorkloadIsJudgedByItsValueSize() {
        thrpt("CacheGetBenchmark", "caffeine", LARGE, 1_000_000);
        thrpt("CacheGetBenchmark", "offheapGet", LARGE, 90);
        thrpt("CacheGetBenchmark", "ohcLru", LARGE, 100);
        thrpt("CacheGetBenchmark", "ohcTinyLfu", LARGE, 80);
        thrpt("CacheGetBenchmark", "offheapRead", LARGE, 1000);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "100 KB zero-copy reads ≥ 10x OHC gets", "`offheapRead`, 100 KB values, 10 keys, 1 thread"))
                .endsWith("| pass |");
        assertThat(md.lines().filter(l -> l.startsWith("| 100-byte gets"))).isEmpty();

        results.clear();
        thrpt("CacheGetBenchmark", "caffeine", SMALL, 1000);
        thrpt("CacheGetBenchmark", "offheapGet", SMALL, 500);
        md = new CacheGoals().apply(results);
        assertThat(row(md, "100-byte gets ≥ 0.5x Caffeine", "`offheapGet`, 100 B values, 1000 keys, 1 thread"))
                .endsWith("| pass |");
        assertThat(md.lines().filter(l -> l.startsWith("| 100 KB zero-copy"))).isEmpty();
    }

    @Test
    void bandwidthIsBytesPerSecondAgainstTheCopy() {
        thrpt("CacheGetBenchmark", "caffeine", SMALL, 1);
        thrpt("CacheBandwidthBenchmark", "segmentToArray", LARGE, 100_000);
        thrpt("CacheBandwidthBenchmark", "offheapGet", LARGE, 80_000);
        thrpt("CacheBandwidthBenchmark", "segmentCopyIn", LARGE, 100_000);
        thrpt("CacheBandwidthBenchmark", "offheapPut", LARGE, 79_000);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "copying gets bandwidth-bound", "`offheapGet`"))
                .contains("8.00 GB/s vs 10.00 GB/s (80%)").endsWith("| pass |");
        assertThat(row(md, "puts bandwidth-bound", "`offheapPut`")).contains("(79%)").endsWith("| **fail** |");
    }

    @Test
    void gcTimeMustBeFiveTimesLowerAndNoGcOnEitherSideSettlesNothing() {
        thrpt("CacheMixBenchmark", "caffeine", SMALL, 1, gc(0, 0));
        thrpt("CacheMixBenchmark", "caffeine", LARGE, 1, gc(78, 1431));
        thrpt("CacheMixBenchmark", "offheapGet", LARGE, 1, gc(10, 300));
        thrpt("CacheMixBenchmark", "offheapRead", LARGE, 1, gc(1, 0));
        thrpt("CacheMixTwoThreadsBenchmark", "caffeine", LARGE, 1, gc(0, 0));
        thrpt("CacheMixTwoThreadsBenchmark", "offheapGet", LARGE, 1, gc(0, 0));
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "GC time ≥ 5x lower than Caffeine", "90/10 mix, `offheapGet`, 100 KB values, 10 keys, 1 thread"))
                .contains("300 ms in 10 collections vs Caffeine's 1,431 ms in 78 collections (4.77x lower)")
                .endsWith("| **fail** |");
        assertThat(row(md, "GC time ≥ 5x lower than Caffeine", "90/10 mix, `offheapRead`, 100 KB values, 10 keys, 1 thread"))
                .contains("0 ms in 1 collection").endsWith("| pass |");
        assertThat(row(md, "GC time ≥ 5x lower than Caffeine", "90/10 mix, `offheapGet`, 100 KB values, 10 keys, 2 threads"))
                .contains("no GC time to compare").endsWith("| not measured |");
    }

    @Test
    void footprintAndHitRatioComeFromTheAuxiliaryCounters() {
        counters("CacheFootprintBenchmark.offheap", "thrpt", Map.of("capacityMiB", "32"), "ops/s",
                Map.of("accountedOverheadBytesPerEntry", counter(24), "nmtOverheadBytesPerEntry", counter(33)));
        counters("CacheFootprintBenchmark.ohcLru", "thrpt", Map.of("capacityMiB", "32"), "ops/s",
                Map.of("accountedOverheadBytesPerEntry", counter(64)));
        for (String[] r : new String[][] {{"caffeine", "zipf", "50"}, {"offheapTinyLfu", "zipf", "49"},
                {"caffeine", "scan", "30"}, {"offheapTinyLfu", "scan", "28.5"}, {"offheapLru", "scan", "20"},
                {"caffeineEqualEntries", "scan", "28.25"}}) {
            counters("HitRatioBenchmark." + r[0], "ss", Map.of("accesses", "100", "stream", r[1]), "ms/op",
                    Map.of("hitRatioPercent", counter(Double.parseDouble(r[2]))));
        }
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "overhead per entry ≤ 32 B", "100 B values, 8 B keys, own accounting"))
                .contains("24.0 B; OHC 64.0 B").endsWith("| pass |");
        assertThat(row(md, "overhead per entry ≤ 32 B", "100 B values, 8 B keys, Native Memory Tracking"))
                .contains("33.0 B").endsWith("| **fail** |");
        assertThat(row(md, "overhead per entry ≤ 32 B", "100 B values, 8 B keys, resident set"))
                .endsWith("| not measured |");
        assertThat(row(md, "hit ratio within 1 pp of Caffeine", "zipf stream"))
                .contains("49.00% vs 50.00% (-1.00 pp)").endsWith("| pass |");
        assertThat(row(md, "hit ratio within 1 pp of Caffeine", "scan stream"))
                .contains("(-1.50 pp); Caffeine holding as many entries as offheap (the policies alone) 28.25%;"
                        + " offheap LRU 20.00%").endsWith("| **fail** |");
    }

    /** A negative overhead means NMT saw less than the keys and values: memory it does not count, no verdict. */
    @Test
    void memoryThatNativeMemoryTrackingCannotSeeIsNotJudgedByIt() {
        counters("CacheFootprintBenchmark.offheap", "thrpt", Map.of("capacityMiB", "32"), "ops/s",
                Map.of("nmtOverheadBytesPerEntry", counter(-105), "rssOverheadBytesPerEntry", counter(30)));
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "overhead per entry ≤ 32 B", "100 B values, 8 B keys, Native Memory Tracking"))
                .contains("not seen by NMT (-105 B").endsWith("| not measured |");
        assertThat(row(md, "overhead per entry ≤ 32 B", "100 B values, 8 B keys, resident set"))
                .contains("30.0 B").endsWith("| pass |");
    }

    @Test
    void theReportPlacesTheGoalsBeforeTheTables() {
        thrpt("CacheGetBenchmark", "ohcLru", SMALL, 100);
        thrpt("CacheGetBenchmark", "offheapGet", SMALL, 300);
        String md = new BenchReport("cache", results, RunInfo.unknown(), c -> java.util.Optional.of("ohcLru"),
                List.of(), new CacheGoals()).markdown();
        assertThat(md.indexOf("## Goals")).isPositive().isLessThan(md.indexOf("## CacheGetBenchmark"));
    }
}
