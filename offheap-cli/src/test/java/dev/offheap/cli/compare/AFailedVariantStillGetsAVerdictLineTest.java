package dev.offheap.cli.compare;

import dev.offheap.cli.bench.RunInfo;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The "Does off-heap pay?" answer has a line for every variant run beside on-heap. A variant that failed, or one
 * that ran where on-heap failed, had none: the section just left the setting out, and where on-heap failed at every
 * setting (out of memory at the heap asked for, the case where the answer matters most) the section was gone from
 * the report and the console without a word.
 */
class AFailedVariantStillGetsAVerdictLineTest {
    private static final RunInfo MACHINE = new RunInfo("offheap compare", "today", "cpu", 2, "8 GiB", "Linux",
            "JDK 25", "compare");

    private static VariantResult ran(String variant, double gcMillis, double throughput, double p99) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, throughput, 3, gcMillis, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, p99, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 0.0, "G1 Young Generation", "cache", "memory",
                2.0);
    }

    private static CompareReport report(VariantResult... results) throws Exception {
        return new CompareReport(CompareOptions.parse(List.of()), MACHINE, "memory", List.of(results), List.of());
    }

    @Test
    void aVariantThatRanWhereOnHeapFailedSaysSoAndWhatItMeasured() throws Exception {
        CompareReport report = report(
                VariantResult.failed("on-heap", 100, 5, "out of memory: java.lang.OutOfMemoryError: Java heap space", 1.0),
                ran("off-heap", 12, 50_000, 300));
        assertThat(report.verdictLines()).containsExactly("100 B x 5 entries, off-heap: no comparison: on-heap failed "
                + "(out of memory: java.lang.OutOfMemoryError: Java heap space), off-heap ran (GC time 0.012 s, p99 300 us, "
                + "throughput 50,000 rps)");
        assertThat(report.markdown()).contains("**Does off-heap pay?**")
                .contains("- 100 B x 5 entries, off-heap: no comparison: on-heap failed (out of memory");
    }

    @Test
    void aFailedVariantGetsALineWithItsReason() throws Exception {
        CompareReport report = report(ran("on-heap", 1000, 40_000, 500), ran("off-heap", 10, 50_000, 300),
                VariantResult.failed("ohc", 100, 5, "crashed: the JVM died (killed by signal 9)", 1.0));
        assertThat(report.verdictLines()).containsExactly(
                "100 B x 5 entries, off-heap: pays (100x less GC time, 1.25x the throughput, p99 0.60x on-heap's)",
                "100 B x 5 entries, ohc: no verdict: it failed (crashed: the JVM died (killed by signal 9))");
    }

    @Test
    void withoutOnHeapInTheRunThereIsNothingToJudgeBy() throws Exception {
        CompareReport report = report(ran("off-heap", 10, 50_000, 300), ran("ohc", 20, 40_000, 400));
        assertThat(report.verdictLines()).isEmpty();
        assertThat(report.markdown()).doesNotContain("Does off-heap pay?");
    }
}
