package dev.offheap.cli.bench;

import static dev.offheap.cli.bench.CacheGoalRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cache run with several values of a parameter ({@code --param workload=1000x100,2000x100},
 * {@code --param accesses=...}) has its goals judged at every value the goal applies to, each against
 * the references at the same value; a workload a goal does not apply to is named with the reason.
 */
class EveryParameterValueOfACacheRunIsJudgedTest {
    private static final String P = CacheGoalRows.PACKAGE;

    private final List<JmhResult> results = new ArrayList<>();

    private void thrpt(String cls, String method, String workload, double opsPerS) {
        results.add(CacheGoalRows.thrpt(cls, method, workload, opsPerS));
    }

    private void counter(String benchmark, Map<String, String> params, String name, double value) {
        results.add(new JmhResult(P + benchmark, "ss", 1, 1, params, 1, Double.NaN, "ms/op",
                Map.of(name, new JmhResult.Metric(value, Double.NaN, "#")), Map.of()));
    }

    private static Map<String, String> params(String... nameValue) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], nameValue[i + 1]);
        }
        return m;
    }

    @Test
    void everyWorkloadOfTheSmallValueSizeIsJudgedOnTheHundredByteGoals() {
        for (String w : List.of("1000x100", "2000x100")) {
            thrpt("CacheGetBenchmark", "caffeine", w, 1000);
            thrpt("CacheGetBenchmark", "ohcLru", w, 100);
            thrpt("CacheGetBenchmark", "ohcTinyLfu", w, 100);
        }
        thrpt("CacheGetBenchmark", "offheapGet", "1000x100", 600);
        thrpt("CacheGetBenchmark", "offheapGet", "2000x100", 400);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "100-byte gets ≥ 0.5x Caffeine", "`offheapGet`, 100 B values, 1000 keys, 1 thread"))
                .contains("0.60x").endsWith("| pass |");
        assertThat(row(md, "100-byte gets ≥ 0.5x Caffeine", "`offheapGet`, 100 B values, 2000 keys, 1 thread"))
                .contains("0.40x").endsWith("| **fail** |");
        assertThat(row(md, "throughput ≥ 2x OHC", "get (`offheapGet`), 100 B values, 2000 keys, 1 thread"))
                .contains("4.00x").endsWith("| pass |");
    }

    @Test
    void aWorkloadOfAnotherValueSizeIsJudgedOnThroughputAndTheRestSayWhyNot() {
        for (String w : List.of("1000x100", "1000x1000")) {
            thrpt("CacheGetBenchmark", "caffeine", w, 1000);
            thrpt("CacheGetBenchmark", "ohcLru", w, 100);
            thrpt("CacheGetBenchmark", "offheapGet", w, 600);
        }
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "throughput ≥ 2x OHC", "get (`offheapGet`), 1 KB values, 1000 keys, 1 thread"))
                .contains("6.00x");
        assertThat(md.lines().filter(l -> l.startsWith("| 100-byte gets")).toList()).isNotEmpty()
                .allSatisfy(l -> assertThat(l).contains("100 B values"));
        assertThat(md).contains("`1000x1000` (1 KB values) is judged on throughput against OHC only: "
                + "the 100-byte goals are judged at the run's smallest value size (100 B).");
    }

    @Test
    void everyValueOfTheHitRatioStreamsLengthIsJudgedAgainstCaffeineAtTheSameLength() {
        for (String[] r : new String[][] {{"caffeine", "400000", "50"}, {"offheapTinyLfu", "400000", "49.5"},
                {"caffeine", "2000000", "60"}, {"offheapTinyLfu", "2000000", "58"}}) {
            counter("HitRatioBenchmark." + r[0], params("stream", "zipf", "accesses", r[1]), "hitRatioPercent",
                    Double.parseDouble(r[2]));
        }
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "hit ratio within 1 pp of Caffeine", "zipf stream, W-TinyLFU, accesses=400000"))
                .contains("49.50% vs 50.00%").endsWith("| pass |");
        assertThat(row(md, "hit ratio within 1 pp of Caffeine", "zipf stream, W-TinyLFU, accesses=2000000"))
                .contains("58.00% vs 60.00%").endsWith("| **fail** |");
    }

    @Test
    void everyCapacityOfTheFootprintRunIsJudged() {
        counter("CacheFootprintBenchmark.offheap", params("capacityMiB", "32"), "accountedOverheadBytesPerEntry", 20);
        counter("CacheFootprintBenchmark.offheap", params("capacityMiB", "128"), "accountedOverheadBytesPerEntry", 40);
        counter("CacheFootprintBenchmark.ohcLru", params("capacityMiB", "128"), "accountedOverheadBytesPerEntry", 64);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "overhead per entry ≤ 32 B", "100 B values, 8 B keys, own accounting"))
                .contains("capacityMiB=32").contains("| 20.0 B |").endsWith("| pass |");
        assertThat(md.lines().filter(l -> l.startsWith("| overhead per entry ≤ 32 B | 100 B values, 8 B keys, own")
                && l.contains("capacityMiB=128")).toList()).singleElement().asString()
                .contains("| 40.0 B; OHC 64.0 B |").endsWith("| **fail** |");
    }
}
