package dev.offheap.cli.compare;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Line charts of a compare run: throughput, p99 latency and GC time against item size, one line per
 * variant (and per max entries when the run swept them). Failed runs leave gaps. Thread-safe: stateless.
 */
public final class CompareCharts {
    private CompareCharts() {
    }

    /**
     * Writes {@code compare-throughput.png}, {@code compare-p99.png} and {@code compare-gc-time.png}.
     *
     * @param results the results
     * @param dir where to write
     * @return the files written
     * @throws IOException if one cannot be written
     */
    public static List<Path> write(List<VariantResult> results, Path dir) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<Path> files = new ArrayList<>();
        files.add(chart(results, dir, "compare-throughput.png", "Throughput", "requests per second",
                VariantResult::throughput));
        files.add(chart(results, dir, "compare-p99.png", "Request latency, 99th percentile", "p99 (ms)",
                r -> r.p99Micros() / 1000));
        files.add(chart(results, dir, "compare-gc-time.png", "GC time in the measured phase", "GC time (s)",
                r -> r.gcTimeMillis() / 1000));
        return files;
    }

    private static Path chart(List<VariantResult> results, Path dir, String file, String title, String yTitle,
            ToDoubleFunction<VariantResult> metric) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle("item size (bytes)")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        // from zero, so that the distance between the lines reads as the ratio it is
        chart.getStyler().setYAxisMin(0.0);
        boolean sweepEntries = results.stream().mapToInt(VariantResult::maxEntries).distinct().count() > 1;
        List<String> seriesNames = new ArrayList<>();
        for (VariantResult r : results) {
            String name = seriesName(r, sweepEntries);
            if (!seriesNames.contains(name)) {
                seriesNames.add(name);
            }
        }
        for (String name : seriesNames) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (VariantResult r : results) {
                double y = metric.applyAsDouble(r);
                if (r.ok() && seriesName(r, sweepEntries).equals(name) && !Double.isNaN(y)) {
                    xs.add((double) r.valueSize());
                    ys.add(y);
                }
            }
            if (!xs.isEmpty()) {
                chart.addSeries(name, xs, ys).setMarker(SeriesMarkers.CIRCLE);
            }
        }
        Path out = dir.resolve(file);
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("no results", List.of(0.0), List.of(0.0));
        }
        BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
        return out;
    }

    private static String seriesName(VariantResult r, boolean sweepEntries) {
        return sweepEntries ? r.variant() + ", " + r.maxEntries() + " entries" : r.variant();
    }
}
