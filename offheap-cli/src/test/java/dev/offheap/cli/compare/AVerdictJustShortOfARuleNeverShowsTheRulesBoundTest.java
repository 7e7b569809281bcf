package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The verdict's rules are GC time at least 2x lower, throughput at least 0.95x and p99 at most 1.1x of
 * on-heap's. A ratio just on the failing side of a bound was rounded to the nearest hundredth, onto the
 * bound: "does not pay: GC time only 2.00x lower", "costs throughput (0.95x on-heap's)", "costs latency (p99
 * 1.10x on-heap's)", each the value the rule accepts. Such a ratio is now rounded toward failing.
 */
class AVerdictJustShortOfARuleNeverShowsTheRulesBoundTest {
    private static final VariantResult ON_HEAP = result("on-heap", 1000, 40_000, 500);

    @Test
    void gcTimeJustUnderTwiceLowerReadsAsUnderTwice() {
        // 1000 / 501 = 1.996
        assertThat(CompareReport.verdict(ON_HEAP, result("off-heap", 501, 40_000, 500)))
                .startsWith("does not pay: GC time only 1.99x lower than on-heap's");
    }

    @Test
    void throughputJustUnderTheKeptShareReadsAsUnderIt() {
        // 37,999 / 40,000 = 0.949975
        assertThat(CompareReport.verdict(ON_HEAP, result("off-heap", 10, 37_999, 500)))
                .isEqualTo("pays for the collector (100x less GC time) but costs throughput (0.94x on-heap's)");
    }

    @Test
    void p99JustOverTheKeptMultipleReadsAsOverIt() {
        // 550.1 / 500 = 1.1002
        assertThat(CompareReport.verdict(ON_HEAP, result("off-heap", 10, 40_000, 550.1)))
                .isEqualTo("pays for the collector (100x less GC time) but costs latency (p99 1.11x on-heap's)");
    }

    @Test
    void ratiosExactlyAtTheBoundsPassAndRatiosFarFromThemKeepTheirNearestRounding() {
        assertThat(CompareReport.verdict(ON_HEAP, result("off-heap", 500, 38_000, 550)))
                .isEqualTo("pays (2.00x less GC time)");
        assertThat(CompareReport.verdict(ON_HEAP, result("off-heap", 600, 40_000, 500)))
                .startsWith("does not pay: GC time only 1.67x lower");
        assertThat(CompareReport.verdict(ON_HEAP, result("off-heap", 10, 30_000, 2000)))
                .endsWith("costs throughput (0.75x on-heap's) and latency (p99 4.00x on-heap's)");
    }

    /** A result with the numbers the verdict reads: GC time (ms), throughput (rps) and p99 (us). */
    private static VariantResult result(String variant, double gcMillis, double throughput, double p99) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, throughput, 3, gcMillis, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, p99, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 0.0, "G1 Young Generation", "cache", "memory",
                2.0);
    }
}
