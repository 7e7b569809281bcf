package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/**
 * A variant that failed at one item size of a sweep leaves a gap in its chart line there. Its failed point
 * was dropped from the series, so the line ran straight from the size before to the size after, through a
 * value that was never measured.
 */
class AFailedRunBreaksItsChartLineTest {
    @TempDir
    Path dir;

    @Test
    void theFailedItemSizeIsAGapInTheVariantsLineNotAPointItsNeighboursAreJoinedAcross() throws Exception {
        List<VariantResult> results = List.of(result("on-heap", 100_000, 900), result("off-heap", 100_000, 1000),
                VariantResult.failed("on-heap", 200_000, 5, "out of memory: java.lang.OutOfMemoryError", 1.0),
                result("off-heap", 200_000, 800), result("on-heap", 300_000, 500), result("off-heap", 300_000, 600));

        XYChart chart = CompareCharts.chart(results, "Throughput", "requests per second", VariantResult::throughput);

        XYSeries onHeap = chart.getSeriesMap().get("on-heap");
        assertThat(onHeap.getXData()).containsExactly(100_000, 200_000, 300_000);
        assertThat(onHeap.getYData()).containsExactly(900, Double.NaN, 500);
        assertThat(chart.getSeriesMap().get("off-heap").getYData()).containsExactly(1000, 800, 600);
        // and the chart with its gap still draws
        assertThat(CompareCharts.write(results, dir)).allSatisfy(png -> assertThat(Files.readAllBytes(png))
                .hasSizeGreaterThan(1000).startsWith(0x89, 'P', 'N', 'G'));
    }

    @Test
    void aVariantThatFailedEverywhereHasNoLine() {
        List<VariantResult> results = List.of(result("on-heap", 100_000, 900),
                VariantResult.failed("ohc", 100_000, 5, "crashed", 1.0), result("on-heap", 200_000, 800),
                VariantResult.failed("ohc", 200_000, 5, "crashed", 1.0));

        XYChart chart = CompareCharts.chart(results, "Throughput", "requests per second", VariantResult::throughput);

        assertThat(chart.getSeriesMap()).containsOnlyKeys("on-heap");
    }

    private static VariantResult result(String variant, int valueSize, double throughput) {
        return new VariantResult(variant, valueSize, 5, null, 10, 10.0, throughput, 3, 20, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, 500, 3.5, 4.5, 0.5, 5, 0.75, 0.1, 0.0, "G1 Young Generation", "cache",
                "memory", 2.0);
    }
}
