package dev.offheap.cli.compare;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
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
        XYChart chart = chart(results, title, yTitle, metric);
        Path out = dir.resolve(file);
        BitmapEncoder.saveBitmap(chart, out.toString(), BitmapEncoder.BitmapFormat.PNG);
        return out;
    }

    /**
     * One chart, not yet drawn: a series per variant (and max entries when swept), a point per item size, in
     * item-size order.
     * A failed run, or one without the metric, is a NaN point, which XChart leaves out and breaks the line
     * at: dropped instead, its neighbours were joined by a line through a value nobody measured.
     */
    static XYChart chart(List<VariantResult> results, String title, String yTitle,
            ToDoubleFunction<VariantResult> metric) {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle("item size (bytes)")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        // from zero, so that the distance between the lines reads as the ratio it is
        chart.getStyler().setYAxisMin(0.0);
        boolean sweepEntries = results.stream().mapToInt(VariantResult::maxEntries).distinct().count() > 1;
        List<Integer> entries = results.stream().map(VariantResult::maxEntries).distinct().sorted().toList();
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
            boolean measured = false;
            // in item-size order, not run order: a sweep runs its sizes as the command line lists them, and a line
            // through 300,000, 100,000 and 200,000 B went back across 200,000 B and forward again
            List<VariantResult> bySize = results.stream().sorted(Comparator.comparingInt(VariantResult::valueSize))
                    .toList();
            for (VariantResult r : bySize) {
                if (seriesName(r, sweepEntries).equals(name)) {
                    double y = r.ok() ? metric.applyAsDouble(r) : Double.NaN;
                    measured |= !Double.isNaN(y);
                    xs.add((double) r.valueSize());
                    ys.add(y);
                }
            }
            if (measured) {
                VariantResult first = results.stream().filter(r -> seriesName(r, sweepEntries).equals(name))
                        .findFirst().orElseThrow();
                // a variant keeps its colour across max entries, and max entries keep their line style across
                // variants, so a sweep's twelve lines read as four variants at three cache sizes
                Color colour = colour(first.variant());
                BasicStroke stroke = STROKES[Math.max(0, entries.indexOf(first.maxEntries())) % STROKES.length];
                XYSeries series = chart.addSeries(name, xs, ys);
                series.setMarker(SeriesMarkers.CIRCLE);
                series.setMarkerColor(colour);
                series.setLineColor(colour);
                series.setLineStyle(stroke);
            }
        }
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("no results", List.of(0.0), List.of(0.0));
        }
        return chart;
    }

    private static final BasicStroke[] STROKES = {SeriesLines.SOLID, SeriesLines.DASH_DASH, SeriesLines.DOT_DOT,
        SeriesLines.DASH_DOT};

    private static Color colour(String variant) {
        return switch (Variant.byLabel(variant).orElse(Variant.ON_HEAP)) {
            case ON_HEAP -> new Color(0x1f77b4);
            case OFF_HEAP -> new Color(0xd62728);
            case OFF_HEAP_COPY -> new Color(0xff7f0e);
            case OHC -> new Color(0x2ca02c);
        };
    }

    private static String seriesName(VariantResult r, boolean sweepEntries) {
        return sweepEntries ? r.variant() + ", " + r.maxEntries() + " entries" : r.variant();
    }
}
