package dev.offheap.cli.bench;

import static dev.offheap.cli.bench.CacheGoalRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --threads 4} runs every class of the cache suite on 4 threads, the one-thread and two-thread
 * classes alike: the goal rows say 4 threads, as the JMH results do, and not what the class's name says.
 */
class ACacheGoalNamesTheThreadsItsResultRanOnTest {
    private final List<JmhResult> results = new ArrayList<>();

    private void onFourThreads(String cls, String method, String workload, double opsPerS) {
        results.add(new JmhResult(CacheGoalRows.PACKAGE + cls + "." + method, "thrpt", 4, 1,
                Map.of("workload", workload), opsPerS, Double.NaN, "ops/s", Map.of(), Map.of()));
    }

    @Test
    void theRowsOfARunOnFourThreadsSayFourThreads() {
        for (String cls : List.of("CacheGetBenchmark", "CacheGetTwoThreadsBenchmark")) {
            onFourThreads(cls, "caffeine", CacheGoalRows.SMALL, 1000);
            onFourThreads(cls, "ohcLru", CacheGoalRows.SMALL, 100);
            onFourThreads(cls, "offheapGet", CacheGoalRows.SMALL, 600);
            onFourThreads(cls, "ohcLru", CacheGoalRows.LARGE, 100);
            onFourThreads(cls, "ohcTinyLfu", CacheGoalRows.LARGE, 90);
            onFourThreads(cls, "offheapRead", CacheGoalRows.LARGE, 2000);
        }
        // puts: only OHC ran, so the put rows are not measured, on the run's thread count all the same
        onFourThreads("CachePutBenchmark", "ohcLru", CacheGoalRows.SMALL, 100);
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "throughput ≥ 2x OHC", "get (`offheapGet`), 100 B values, 1000 keys, 4 threads"))
                .contains("6.00x");
        assertThat(row(md, "100-byte gets ≥ 0.5x Caffeine", "`offheapGet`, 100 B values, 1000 keys, 4 threads"))
                .endsWith("| pass |");
        assertThat(row(md, "100 KB zero-copy reads ≥ 10x OHC gets", "`offheapRead`, 100 KB values, 10 keys, 4 threads"))
                .endsWith("| pass |");
        assertThat(row(md, "throughput ≥ 2x OHC", "put (`offheapPut`), 100 B values, 1000 keys, 4 threads"))
                .endsWith("| not measured |");
        assertThat(md.lines().filter(l -> l.contains("1 thread") || l.contains("2 threads")).toList()).isEmpty();
    }
}
