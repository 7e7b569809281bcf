package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.RunInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A ratio below 0.005 was written with two decimals as "0.00x": a variant whose p99 was 4.04 us against
 * on-heap's 2.75 ms read as having a p99 of nothing. Such a ratio keeps two significant digits now, in the
 * ratio lines and in the verdict.
 */
class ARatioFarBelowOneIsNotWrittenAsZeroTest {
    @Test
    void aP99FarBelowOnHeapsKeepsItsSignificantDigits() throws Exception {
        CompareReport report = report(List.of(result("on-heap", 2750, 11_291, 56), result("ohc", 4.04, 460_950, 1)));

        assertThat(report.ratioLines()).singleElement().asString().contains("p99 0.0015x,").doesNotContain("0.00x");
        assertThat(report.verdictLines()).singleElement().asString().contains("p99 0.0015x").doesNotContain("0.00x");
    }

    @Test
    void aThroughputFarBelowOnHeapsKeepsItsSignificantDigits() throws Exception {
        CompareReport report = report(List.of(result("on-heap", 100, 460_950, 56), result("off-heap", 100, 290, 56)));

        assertThat(report.ratioLines()).singleElement().asString().contains("throughput 0.00063x")
                .doesNotContain("0.00x");
    }

    @Test
    void ratiosFromOneHundredthOnKeepTheirTwoDecimals() {
        assertThat(CompareReport.factor(0.16)).isEqualTo("0.16x");
        assertThat(CompareReport.factor(0.01)).isEqualTo("0.01x");
        assertThat(CompareReport.factor(2.5)).isEqualTo("2.50x");
        assertThat(CompareReport.factor(62.4)).isEqualTo("62x");
        assertThat(CompareReport.times(1, 100)).isEqualTo("0.01x");
        assertThat(CompareReport.times(0, 100)).isEqualTo("0.00x");
    }

    private static CompareReport report(List<VariantResult> results) throws Exception {
        RunInfo machine = new RunInfo("offheap compare", "today", "cpu", 2, "8 GiB", "Linux", "JDK 25", "compare");
        return new CompareReport(CompareOptions.parse(List.of("--loader", "memory")), machine, "memory", results,
                List.of());
    }

    private static VariantResult result(String variant, double p99Micros, double throughput, double gcMillis) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, throughput, 3, gcMillis, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, p99Micros, p99Micros * 2, p99Micros * 3, 0.5, 5, 0.75, 0.1, 0.0,
                "G1 Young Generation", "cache", "memory", 2.0);
    }
}
