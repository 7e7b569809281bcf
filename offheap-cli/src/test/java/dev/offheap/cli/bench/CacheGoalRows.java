package dev.offheap.cli.bench;

import java.util.Map;

/** Synthetic JMH results of the cache suite, and the goal rows {@link CacheGoals} writes for them: for the goals' tests. */
final class CacheGoalRows {
    static final String PACKAGE = "dev.offheap.bench.cache.";
    /** A workload of 100-byte values. */
    static final String SMALL = "1000x100";
    /** A workload of 100 KB values. */
    static final String LARGE = "10x100000";

    private CacheGoalRows() {
    }

    /** A throughput result in ops/s, on two threads where the class's name says so, with JMH's secondary metrics. */
    static JmhResult thrpt(String cls, String method, String workload, double opsPerS,
                           Map<String, JmhResult.Metric> secondary) {
        return new JmhResult(PACKAGE + cls + "." + method, "thrpt", cls.contains("TwoThreads") ? 2 : 1, 1,
                Map.of("workload", workload), opsPerS, Double.NaN, "ops/s", secondary, Map.of());
    }

    /** The same without secondary metrics. */
    static JmhResult thrpt(String cls, String method, String workload, double opsPerS) {
        return thrpt(cls, method, workload, opsPerS, Map.of());
    }

    /** @return the row of the goal table for {@code goal} whose case starts with {@code caseStart} */
    static String row(String md, String goal, String caseStart) {
        return md.lines().filter(l -> l.startsWith("| " + goal + " | " + caseStart)).findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + goal + " | " + caseStart + "' in\n" + md));
    }
}
