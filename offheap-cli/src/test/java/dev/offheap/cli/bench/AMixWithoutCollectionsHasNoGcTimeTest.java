package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * JMH's GC profiler writes {@code gc.count} for every iteration but {@code gc.time} only for those in
 * which a collection ran: a variant that caused no collection at all has a count of 0 and no time. That
 * is no GC time, the best a cache can do against Caffeine's, not a result missing from the run.
 */
class AMixWithoutCollectionsHasNoGcTimeTest {
    private static final String LARGE = CacheGoalRows.LARGE;

    private final List<JmhResult> results = new ArrayList<>();

    private void mix(String method, Map<String, JmhResult.Metric> gc) {
        results.add(CacheGoalRows.thrpt("CacheMixBenchmark", method, LARGE, 1000, gc));
    }

    private static JmhResult.Metric count(double n) {
        return new JmhResult.Metric(n, Double.NaN, "counts");
    }

    private static String row(String md, String caseStart) {
        return CacheGoalRows.row(md, "GC time ≥ 5x lower than Caffeine", caseStart);
    }

    @Test
    void noCollectionAgainstCaffeinesGcTimePasses() {
        mix("caffeine", Map.of("gc.count", count(78), "gc.time", new JmhResult.Metric(1431, Double.NaN, "ms")));
        mix("offheapRead", Map.of("gc.count", count(0)));
        mix("offheapGet", Map.of("gc.count", count(0)));
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "90/10 mix, `offheapRead`, 100 KB values, 10 keys, 1 thread"))
                .contains("0 ms in 0 collections vs Caffeine's 1,431 ms in 78 collections").endsWith("| pass |");
    }

    @Test
    void noCollectionOnEitherSideSettlesNothing() {
        mix("caffeine", Map.of("gc.count", count(0)));
        mix("offheapRead", Map.of("gc.count", count(0)));
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "90/10 mix, `offheapRead`, 100 KB values, 10 keys, 1 thread"))
                .contains("(no GC time to compare)").endsWith("| not measured |");
    }

    @Test
    void aRunWithoutTheGcProfilerIsNotMeasured() {
        mix("caffeine", Map.of());
        mix("offheapRead", Map.of());
        String md = new CacheGoals().apply(results);
        assertThat(row(md, "90/10 mix, `offheapRead`, 100 KB values, 10 keys, 1 thread")).endsWith("| not measured |");
    }
}
