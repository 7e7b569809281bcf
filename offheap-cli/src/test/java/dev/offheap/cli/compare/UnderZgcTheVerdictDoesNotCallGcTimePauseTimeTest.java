package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A "does not pay" verdict gives the share of the run on-heap spent in GC. Under G1 and Parallel the GC time
 * counted is pause time; under ZGC it is the duration of the concurrent cycles (docs/compare.md), which run
 * beside the application, yet the verdict called it "of the run in GC pauses" (12 s of cycles in a 10 s run
 * read as 120% of the run paused).
 */
class UnderZgcTheVerdictDoesNotCallGcTimePauseTimeTest {
    @Test
    void zgcsCycleTimeIsCalledTheConcurrentCyclesTime() {
        VariantResult onHeap = result("on-heap", "ZGC Minor Cycles, ZGC Major Cycles", 12_000);
        String verdict = CompareReport.verdict(onHeap, result("off-heap", "ZGC Minor Cycles, ZGC Major Cycles", 9_000));
        assertThat(verdict).startsWith("does not pay: GC time only 1.33x lower than on-heap's")
                .doesNotContain("pauses")
                .contains("on-heap's concurrent ZGC cycles ran for 120% of the run");
    }

    @Test
    void g1sGcTimeIsStillCalledPauseTime() {
        VariantResult onHeap = result("on-heap", "G1 Young Generation, G1 Concurrent GC, G1 Old Generation", 1_000);
        assertThat(CompareReport.verdict(onHeap, result("off-heap", "G1 Young Generation, G1 Concurrent GC, "
                + "G1 Old Generation", 900))).contains("(on-heap spent 10% of the run in GC pauses)");
    }

    /** A result of a 10-second measured phase with the collector beans and GC time (ms) given. */
    private static VariantResult result(String variant, String collectors, double gcMillis) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, 40_000, 3, gcMillis, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, 500, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 0.0, collectors, "cache", "memory", 2.0);
    }
}
