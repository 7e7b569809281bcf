package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * "Pooled at 2 threads: at most 1.25x the 1-thread time" and "MemoryManager at 2 threads: at least
 * 1.6x the 1-thread throughput" compare two thread counts. A run with {@code --threads 2} runs the
 * one-thread classes on 2 threads as well; comparing those with the two-thread classes measures
 * nothing about scaling, so the goals are not measured there, not passed or failed.
 */
class AThreadScalingGoalComparesTheThreadCountsItNamesTest {
    private static JmhResult alloc(String cls, String method, int threads, double nsPerOp) {
        return new JmhResult("dev.offheap.bench.alloc." + cls + "." + method, "avgt", threads, 1,
                Map.of("bytes", "16"), nsPerOp, 0.1, "ns/op", Map.of(), Map.of());
    }

    private static JmhResult pages(String cls, String method, int threads, double opsPerMs) {
        return new JmhResult("dev.offheap.bench.manager." + cls + "." + method, "thrpt", threads, 1,
                Map.of("pageCount", "1", "pageSize", "32768"), opsPerMs, 1, "ops/ms", Map.of(), Map.of());
    }

    private static Check check(List<Goal> goals, String statementStart, List<JmhResult> results) {
        return goals.stream().filter(g -> g.statement().startsWith(statementStart)).findFirst().orElseThrow()
                .check(results).getFirst();
    }

    @Test
    void pooledAtTwoThreadsIsComparedWithOneThreadOnly() {
        String scaling = "Pooled at 2 threads";
        List<JmhResult> normal = List.of(alloc("UninitializedAllocationBenchmark", "pooled", 1, 20),
                alloc("UninitializedAllocationTwoThreadsBenchmark", "pooled", 2, 22));
        assertThat(check(Suites.allocGoals(), scaling, normal).verdict()).isEqualTo(Verdict.PASS);

        List<JmhResult> allOnTwoThreads = List.of(alloc("UninitializedAllocationBenchmark", "pooled", 2, 22),
                alloc("UninitializedAllocationTwoThreadsBenchmark", "pooled", 2, 22));
        Check check = check(Suites.allocGoals(), scaling, allOnTwoThreads);
        assertThat(check.verdict()).isEqualTo(Verdict.NOT_MEASURED);
        assertThat(check.detail()).isEqualTo("no result of pooled on 1 thread at these parameters");
    }

    @Test
    void theManagerAtTwoThreadsIsComparedWithOneThreadOnly() {
        String scaling = "MemoryManager at 2 threads";
        List<JmhResult> normal = List.of(pages("PageAllocationBenchmark", "managerConfined", 1, 100),
                pages("PageAllocationTwoThreadsBenchmark", "managerConfined", 2, 170));
        assertThat(check(Suites.managerGoals(), scaling, normal).verdict()).isEqualTo(Verdict.PASS);

        List<JmhResult> allOnFourThreads = List.of(pages("PageAllocationBenchmark", "managerConfined", 4, 170),
                pages("PageAllocationTwoThreadsBenchmark", "managerConfined", 4, 170));
        assertThat(check(Suites.managerGoals(), scaling, allOnFourThreads).verdict()).isEqualTo(Verdict.NOT_MEASURED);
    }
}
