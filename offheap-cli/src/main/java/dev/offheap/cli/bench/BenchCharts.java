package dev.offheap.cli.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Bar charts of benchmark results, one PNG per benchmark class and mode: one bar group per
 * parameter set, one bar per variant, showing the ratio to the baseline (or the score when the
 * class has no baseline). Ratios spanning more than a factor of 50 are drawn on a log axis so the
 * small differences stay visible next to the large ones.
 */
public final class BenchCharts {
    private BenchCharts() {
    }

    /**
     * Writes the charts of a report.
     *
     * @param suite the suite name, the start of every file name
     * @param tables the report's tables
     * @param dir where to write
     * @return the files written
     * @throws IOException if one cannot be written
     */
    public static List<Path> write(String suite, List<ResultTable> tables, Path dir) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<Path> written = new ArrayList<>();
        Set<String> used = new LinkedHashSet<>();
        for (ResultTable table : tables) {
            if (table.rows().size() < 2) {
                continue; // one bar says nothing a table does not
            }
            String name = suite + "-" + table.simpleName();
            if (!used.add(name)) {
                // simple names clash across packages and for nested classes (several Outer.TwoThreads):
                // the mode first, then a counter, never a name already written
                String base = name + "-" + table.mode();
                name = base;
                for (int n = 2; !used.add(name); n++) {
                    name = base + "-" + n;
                }
            }
            Path file = dir.resolve(name + ".png");
            BitmapEncoder.saveBitmap(chart(table), file.toString(), BitmapEncoder.BitmapFormat.PNG);
            written.add(file);
        }
        return written;
    }

    static CategoryChart chart(ResultTable table) {
        boolean ratios = table.baseline().isPresent()
                && table.rows().stream().anyMatch(r -> r.ratio().isPresent());
        boolean params = table.hasParams();
        List<String> categories = new ArrayList<>();
        List<String> variants = new ArrayList<>();
        for (ResultTable.Row row : table.rows()) {
            String category = category(row.result(), params);
            if (!categories.contains(category)) {
                categories.add(category);
            }
            String variant = params ? row.result().method() : "score";
            if (!variants.contains(variant)) {
                variants.add(variant);
            }
        }
        int width = Math.max(800, Math.min(2400, 200 + categories.size() * Math.max(1, variants.size()) * 28));
        String unit = table.rows().getFirst().result().unit();
        CategoryChart chart = new CategoryChartBuilder().width(width).height(560)
                .title(table.simpleName() + " (" + table.mode() + ")")
                .xAxisTitle(params ? "parameters" : "variant")
                .yAxisTitle(ratios ? "ratio to " + table.baseline().orElseThrow() + ", "
                        + ("thrpt".equals(table.mode()) ? "higher is better" : "lower is better")
                        : "score (" + unit + ")")
                .build();
        Styler styler = chart.getStyler();
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setLegendVisible(params);
        chart.getStyler().setXAxisLabelRotation(categories.size() > 4 ? 30 : 0);
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        chart.getStyler().setLabelsVisible(false);

        double min = Double.MAX_VALUE;
        double max = 0;
        List<List<Double>> series = new ArrayList<>();
        for (String variant : variants) {
            List<Double> values = new ArrayList<>();
            for (String category : categories) {
                double value = 0;
                for (ResultTable.Row row : table.rows()) {
                    boolean sameVariant = !params || row.result().method().equals(variant);
                    if (sameVariant && category(row.result(), params).equals(category)) {
                        value = ratios ? row.ratio().orElse(0) : row.result().score();
                    }
                }
                if (Double.isNaN(value) || value < 0) {
                    value = 0;
                }
                if (value > 0) {
                    min = Math.min(min, value);
                    max = Math.max(max, value);
                }
                values.add(value);
            }
            series.add(values);
        }
        boolean log = max > 0 && max / min > 50;
        if (log) {
            chart.getStyler().setYAxisLogarithmic(true);
            // a log axis cannot show 0: a missing bar becomes a sliver below the smallest value. The
            // explicit minimum also keeps XChart from starting single-series bars at 0, which it rejects.
            double floor = min / 2;
            chart.getStyler().setYAxisMin(floor);
            chart.setYAxisTitle(chart.getYAxisTitle() + " (log scale)");
            series.forEach(values -> values.replaceAll(v -> v > 0 ? v : floor));
        }
        for (int i = 0; i < variants.size(); i++) {
            chart.addSeries(variants.get(i), categories, series.get(i));
        }
        return chart;
    }

    private static String category(JmhResult r, boolean params) {
        if (!params) {
            return r.method();
        }
        String label = r.paramsLabel();
        return r.threads() == 1 ? label : label + ", " + r.threads() + " threads";
    }
}
