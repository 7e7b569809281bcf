package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The variants' histograms resolve request times to the nanosecond (three significant digits), but the
 * report printed every latency below a millisecond in whole microseconds: the in-place hits of a small
 * cache, 0.35 us, read "0 us" in the table's p50 and p99 columns (a request that took no time), and a
 * 3.6 us median read "4 us", so p50s that differ by 40% looked the same.
 */
class MicrosecondLatenciesKeepThreeSignificantDigitsTest {
    @Test
    void latenciesBelowAMillisecondKeepThreeDigits() {
        assertThat(CompareReport.latency(0.35)).isEqualTo("0.350 us");
        assertThat(CompareReport.latency(0.001)).isEqualTo("0.001 us");
        assertThat(CompareReport.latency(3.6)).isEqualTo("3.60 us");
        assertThat(CompareReport.latency(2.5)).isEqualTo("2.50 us");
        assertThat(CompareReport.latency(42.25)).isEqualTo("42.3 us");
        assertThat(CompareReport.latency(523.4)).isEqualTo("523 us");
        assertThat(CompareReport.latency(1234.5)).isEqualTo("1.23 ms");
        assertThat(CompareReport.latency(Double.NaN)).isEqualTo("n/a");
    }

    @Test
    void theTableShowsASubMicrosecondMedian() throws Exception {
        VariantResult r = new VariantResult("ohc", 1000, 50, null, 1000, 1.0, 1000, 0, 0, 0, 0, 0, 100, -1, 80, 1000, 0,
                -1, 5000, 0.35, 0.9, 1.5, 20, 0.9, 50, 1.0, 0.0, 0.0, "G1", "OHC", "memory", 1.0);
        CompareOptions o = CompareOptions.parse(List.of("--loader", "memory"));
        String table = new CompareReport(o, null, "memory", List.of(r), List.of()).table();
        assertThat(table).contains("0.350 us").contains("0.900 us").doesNotContain(" 0 us").doesNotContain(" 1 us");
    }
}
