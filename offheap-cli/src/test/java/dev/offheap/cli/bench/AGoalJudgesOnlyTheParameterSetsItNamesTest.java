package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * "Heap cost at most 1% with 4 KiB pages (the 4 MiB row for comparison)" is judged on the 4 KiB row:
 * the 4 MiB row is shown beside it, not counted. The manager's goals for one page are judged at
 * {@code pageCount=1}, its page-group goal at {@code pageCount=64}, and neither at the other page count.
 * The header counts the judged rows only.
 */
class AGoalJudgesOnlyTheParameterSetsItNamesTest {
    private static final String HEAP = "dev.offheap.bench.buffers.BufferHeapCostBenchmark.";
    private static final String PAGES = "dev.offheap.bench.manager.PageAllocationBenchmark.";

    private static JmhResult heapCost(String method, String blockSize, double percent) {
        return new JmhResult(HEAP + method, "ss", 1, 1, Map.of("blockSize", blockSize), 50, 1, "ms/op",
                Map.of("heapPercentOfData", new JmhResult.Metric(percent, Double.NaN, "#")), Map.of());
    }

    private static JmhResult pages(String method, int threads, String pageCount, double opsPerMs) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("pageCount", pageCount);
        params.put("pageSize", "32768");
        String cls = threads == 1 ? PAGES : PAGES.replace("PageAllocationBenchmark", "PageAllocationTwoThreadsBenchmark");
        return new JmhResult(cls + method, "thrpt", threads, 1, params, opsPerMs, 1, "ops/ms", Map.of(), Map.of());
    }

    private static String goals(String suite, List<JmhResult> results) {
        String md = new BenchReport(suite, results, RunInfo.unknown(), c -> Optional.empty(),
                Suites.standard().find(suite).orElseThrow().goals(), null).markdown();
        return md.substring(md.indexOf("## Goals"), md.indexOf("\n## ", md.indexOf("## Goals") + 1));
    }

    private static List<String> rows(String md, String statementStart) {
        return md.lines().filter(l -> l.startsWith("| " + statementStart)).toList();
    }

    @Test
    void theFourMibRowOfTheHeapCostGoalIsShownForComparisonAndNotCounted() {
        String md = goals("buffers", List.of(
                heapCost("managerPagesOnDemand", "4096", 3.85), heapCost("managerPagesOnDemand", "4194304", 0.008),
                heapCost("managerPageGroupOnDemand", "4096", 0.33),
                heapCost("managerPageGroupOnDemand", "4194304", 0.0047),
                heapCost("directByteBuffers", "4096", 3.42), heapCost("directByteBuffers", "4194304", 0.0034)));
        assertThat(md).contains("1 pass, 1 fail, 1 reported only, 0 not measured")
                .contains("2 rows for comparison, not counted");
        assertThat(rows(md, "Heap cost of the manager")).satisfiesExactly(
                judged -> assertThat(judged).contains("| blockSize=4096 | 3.85 | ≤ 1.00 | **FAIL** |"),
                shown -> assertThat(shown).contains("| blockSize=4194304 | 0.00800 |  | for comparison, not counted |"));
        assertThat(rows(md, "The same, the pages held as one PageGroup")).satisfiesExactly(
                judged -> assertThat(judged).contains("| blockSize=4096 | 0.330 | ≤ 1.00 | pass |"),
                shown -> assertThat(shown).contains("| blockSize=4194304 |").endsWith("| for comparison, not counted | "
                        + "managerPageGroupOnDemand heapPercentOfData 0.00470 |"));
        // "4 KiB direct ByteBuffers" names its block size and no row for comparison
        assertThat(rows(md, "Heap cost of 4 KiB direct ByteBuffers")).singleElement().asString()
                .contains("| blockSize=4096 | 3.42 |  | reported |");
    }

    @Test
    void aRunWithoutTheNamedParametersLeavesTheGoalNotMeasured() {
        // the quick mode runs the 4 MiB blocks only
        String md = goals("buffers", List.of(heapCost("managerPagesOnDemand", "4194304", 0.008)));
        assertThat(md).contains("0 pass, 0 fail, 0 reported only, 3 not measured");
        assertThat(rows(md, "Heap cost of the manager")).satisfiesExactly(
                missing -> assertThat(missing).contains("| blockSize=4096 | — | ≤ 1.00 | not measured | "
                        + "no result of BufferHeapCostBenchmark.managerPagesOnDemand[heapPercentOfData] at blockSize=4096 |"),
                shown -> assertThat(shown).contains("| blockSize=4194304 | 0.00800 |"));
    }

    @Test
    void theManagersOnePageGoalsAreJudgedAtOnePageAndTheGroupGoalAtSixtyFour() {
        String md = goals("manager", List.of(
                pages("flinkUnsafe", 1, "1", 100), pages("managerConfined", 1, "1", 300),
                pages("groupConfined", 1, "1", 200), pages("arenaShared", 1, "1", 1),
                pages("flinkUnsafe", 1, "64", 10), pages("managerConfined", 1, "64", 60),
                pages("groupConfined", 1, "64", 90), pages("arenaShared", 1, "64", 0.01),
                pages("managerConfined", 2, "1", 500), pages("managerConfined", 2, "64", 50)));
        // 1 page: 3x Flink (fail), 300x arenaShared (pass), 1.67x on two threads (pass); 64 pages: the group 9x Flink
        assertThat(md).contains("3 pass, 1 fail, 0 reported only, 0 not measured");
        assertThat(rows(md, "MemoryManager allocate+release of one page at least 5x faster than Flink"))
                .singleElement().asString().contains("| pageCount=1, pageSize=32768 | 3.00x | ≥ 5.00x | **FAIL** |");
        assertThat(rows(md, "MemoryManager allocate+release of one page at least 100x faster than an Arena"))
                .singleElement().asString().contains("| pageCount=1, pageSize=32768 |");
        assertThat(rows(md, "MemoryManager at 2 threads")).singleElement().asString()
                .contains("| pageCount=1, pageSize=32768 | 1.67x |");
        assertThat(rows(md, "The same, 64 pages allocated and released as one PageGroup")).singleElement().asString()
                .contains("| pageCount=64, pageSize=32768 | 9.00x | ≥ 5.00x | pass |");
    }
}
