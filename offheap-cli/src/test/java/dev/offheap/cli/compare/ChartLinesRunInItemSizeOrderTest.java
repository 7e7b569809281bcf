package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/**
 * A sweep runs its item sizes in the order the command line gives them ({@code --value-size
 * 300000,100000,200000}), and each chart line took its points in that order: it ran from 300,000 B back to
 * 100,000 B, across 200,000 B, and then forward again, so two segments crossed 200,000 B and one of them
 * through a value never measured there. A line's points are in item-size order now.
 */
class ChartLinesRunInItemSizeOrderTest {
    @Test
    void aSweepGivenOutOfOrderIsDrawnFromTheSmallestItemSizeToTheLargest() {
        List<VariantResult> results = List.of(result("on-heap", 300_000, 500), result("off-heap", 300_000, 600),
                result("on-heap", 100_000, 900), result("off-heap", 100_000, 1000),
                VariantResult.failed("on-heap", 200_000, 5, "crashed", 1.0), result("off-heap", 200_000, 800));

        XYChart chart = CompareCharts.chart(results, "Throughput", "requests per second", VariantResult::throughput);

        XYSeries onHeap = chart.getSeriesMap().get("on-heap");
        assertThat(onHeap.getXData()).containsExactly(100_000, 200_000, 300_000);
        assertThat(onHeap.getYData()).containsExactly(900, Double.NaN, 500);
        XYSeries offHeap = chart.getSeriesMap().get("off-heap");
        assertThat(offHeap.getXData()).containsExactly(100_000, 200_000, 300_000);
        assertThat(offHeap.getYData()).containsExactly(1000, 800, 600);
    }

    private static VariantResult result(String variant, int valueSize, double throughput) {
        return new VariantResult(variant, valueSize, 5, null, 10, 10.0, throughput, 3, 20, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, 500, 3.5, 4.5, 0.5, 5, 0.75, 0.1, 0.0, "G1 Young Generation", "cache",
                "memory", 2.0);
    }
}
