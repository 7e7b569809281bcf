package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.RunInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * compare's and serve's lines wrote every count in the plural: "1 threads, 1 measured requests after 1 warmup
 * requests", "GC 1 cycles", "1 entries", serve's "stopped after 1 requests". A count of one is now written in the
 * singular, and any other in the plural (serve's line: {@code dev.offheap.cli.serve.AStopAfterOneRequestSaysRequestTest}).
 */
class ACountOfOneIsWrittenInTheSingularTest {
    private static final RunInfo MACHINE = new RunInfo("offheap compare", "today", "cpu", 2, "8 GiB", "Linux",
            "JDK 25", "compare");

    private static VariantResult ran(String variant, int maxEntries, long gcCycles) {
        return new VariantResult(variant, 100, maxEntries, null, 10, 10.0, 50_000, gcCycles, 10, 4, 2.25, 1.0, 100,
                90, 80, 1000, 0, -1, 5000, 1.5, 300, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 0.0, "G1 Young Generation", "cache",
                "memory", 2.0);
    }

    @Test
    void thePlanLineOfOneThreadOneRequestAndOneWarmupRequestIsSingular() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--loader", "memory", "--threads", "1",
                "--requests", "1", "--warmup", "1", "--variants", "on-heap");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains(", 1 thread, 1 measured request after 1 warmup request; results to");
    }

    @Test
    void thePlanLineOfSeveralIsPlural() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--loader", "memory", "--threads", "2",
                "--requests", "2", "--warmup", "0", "--variants", "on-heap");
        assertThat(r.out()).contains(", 2 threads, 2 measured requests after 0 warmup requests; results to");
    }

    @Test
    void theProgressLinesOfOneEntryAndOneCycleAreSingular() {
        assertThat(CompareCommand.settingLine(1, 4, 100, 1, "on-heap")).isEqualTo("[1/4] 100 B, 1 entry, on-heap:");
        assertThat(CompareCommand.settingLine(2, 4, 100, 5_000, "ohc")).isEqualTo("[2/4] 100 B, 5,000 entries, ohc:");
        assertThat(CompareCommand.doneLine(ran("on-heap", 1, 1))).contains(", GC 1 cycle ");
        assertThat(CompareCommand.doneLine(ran("on-heap", 1, 3))).contains(", GC 3 cycles ");
    }

    @Test
    void theRatioAndVerdictLinesOfOneEntryAreSingular() throws Exception {
        CompareReport report = new CompareReport(CompareOptions.parse(List.of("--max-entries", "1", "--threads", "1",
                "--loader", "memory")), MACHINE, "memory", List.of(ran("on-heap", 1, 3), ran("off-heap", 1, 1)), List.of());
        assertThat(report.ratioLines()).singleElement().asString().startsWith("100 B, 1 entry, off-heap vs on-heap:");
        assertThat(report.verdictLines()).singleElement().asString().startsWith("100 B x 1 entry, off-heap:");
        assertThat(report.markdown()).contains("driven by 1 thread)").contains("| workload | 1 thread; ");
    }
}
