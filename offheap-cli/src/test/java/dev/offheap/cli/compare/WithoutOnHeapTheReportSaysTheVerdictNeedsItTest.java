package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.RunInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code compare --variants off-heap,ohc} printed the table and then neither ratio nor verdict lines, without
 * a word on why: both compare each variant with on-heap, their baseline, which was not run. The console and
 * report.md now say so in one line, and what to add; a run with on-heap has no such line.
 */
class WithoutOnHeapTheReportSaysTheVerdictNeedsItTest {
    private static final RunInfo MACHINE = new RunInfo("offheap compare", "today", "cpu", 2, "8 GiB", "Linux",
            "JDK 25", "compare");

    private static VariantResult ran(String variant) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, 50_000, 3, 10, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, 300, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 0.0, "G1 Young Generation", "cache", "memory",
                2.0);
    }

    private static CompareReport report(String variants, VariantResult... results) throws Exception {
        return new CompareReport(CompareOptions.parse(List.of("--variants", variants, "--loader", "memory")), MACHINE,
                "memory", List.of(results), List.of());
    }

    @Test
    void withoutOnHeapOneLineSaysTheVerdictNeedsItAsItsBaseline() throws Exception {
        CompareReport report = report("off-heap,ohc", ran("off-heap"), ran("ohc"));
        assertThat(report.ratioLines()).isEmpty();
        assertThat(report.verdictLines()).isEmpty();
        assertThat(report.noVerdictLine()).hasValue("no ratios and no verdict: they compare each variant with on-heap,"
                + " their baseline, at the same setting, and --variants did not name on-heap (add it:"
                + " --variants on-heap,off-heap,ohc)");
        assertThat(report.markdown()).contains("\n" + report.noVerdictLine().orElseThrow() + "\n");
    }

    @Test
    void withOnlyOnHeapOneLineSaysThereIsNothingToCompareWithIt() throws Exception {
        CompareReport report = report("on-heap", ran("on-heap"));
        assertThat(report.noVerdictLine()).hasValue("no ratios and no verdict: they compare each off-heap variant"
                + " with on-heap, and --variants named only on-heap (add one: --variants on-heap,off-heap)");
    }

    @Test
    void withOnHeapAndAnotherVariantThereIsNoSuchLine() throws Exception {
        CompareReport report = report("off-heap,on-heap", ran("off-heap"), ran("on-heap"));
        assertThat(report.noVerdictLine()).isEmpty();
        assertThat(report.markdown()).doesNotContain("no ratios and no verdict");
    }
}
