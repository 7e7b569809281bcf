package dev.offheap.cli.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.Function;

/**
 * The results of one benchmark class in one JMH mode, with each row's ratio to the class's
 * {@code @Baseline} method at the same parameters. Shared by the markdown report and the charts.
 *
 * @param className the benchmark class, as JMH names it
 * @param mode the JMH mode (thrpt, avgt, sample, ss)
 * @param baseline the baseline method, if the class has one
 * @param rows the rows, grouped by parameters (in the order JMH ran them), the baseline first in
 *     each group
 */
public record ResultTable(String className, String mode, Optional<String> baseline, List<Row> rows) {

    /**
     * A result row and its ratio to the baseline.
     *
     * @param result the JMH result
     * @param ratio score / baseline score at the same parameters; empty without a baseline, or when
     *     either score is NaN, the baseline's is 0, or both are infinite
     * @param baseline true if this row is the baseline method's own
     */
    public record Row(JmhResult result, OptionalDouble ratio, boolean baseline) {
    }

    /** @return the class name without its package */
    public String simpleName() {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** @return true if any row has parameters */
    public boolean hasParams() {
        return rows.stream().anyMatch(r -> !r.result().params().isEmpty());
    }

    /** @return true if any row ran with a thread count other than 1 */
    public boolean hasThreads() {
        return rows.stream().anyMatch(r -> r.result().threads() != 1);
    }

    /** @return the names of the secondary metrics present, GC metrics first */
    public List<String> secondaryMetrics() {
        Set<String> names = new LinkedHashSet<>();
        for (String gc : List.of("gc.alloc.rate.norm", "gc.alloc.rate", "gc.count", "gc.time")) {
            if (rows.stream().anyMatch(r -> r.result().secondary().containsKey(gc))) {
                names.add(gc);
            }
        }
        rows.forEach(r -> names.addAll(r.result().secondary().keySet()));
        return List.copyOf(names);
    }

    /** @return what a ratio means in this mode */
    public String ratioMeaning() {
        return "thrpt".equals(mode) ? "throughput ratio, higher is better" : "time ratio, lower is better";
    }

    /**
     * Groups results by class and mode, in order of first appearance, and computes the ratios.
     *
     * @param results JMH results
     * @param baselines the baseline method of a class, by class name
     * @return one table per class and mode
     */
    public static List<ResultTable> of(List<JmhResult> results, Function<String, Optional<String>> baselines) {
        Map<String, List<JmhResult>> groups = new LinkedHashMap<>();
        for (JmhResult r : results) {
            groups.computeIfAbsent(r.className() + "\u0000" + r.mode(), k -> new ArrayList<>()).add(r);
        }
        List<ResultTable> tables = new ArrayList<>();
        for (List<JmhResult> group : groups.values()) {
            JmhResult first = group.getFirst();
            Optional<String> baseline = baselines.apply(first.className())
                    .filter(b -> group.stream().anyMatch(r -> r.method().equals(b)));
            tables.add(new ResultTable(first.className(), first.mode(), baseline, rows(group, baseline)));
        }
        return tables;
    }

    private static List<Row> rows(List<JmhResult> group, Optional<String> baseline) {
        // parameter sets in the order JMH ran them, then the baseline first, then the variants in run order
        List<Map<String, String>> paramOrder = new ArrayList<>();
        for (JmhResult r : group) {
            if (!paramOrder.contains(r.params())) {
                paramOrder.add(r.params());
            }
        }
        List<JmhResult> sorted = new ArrayList<>(group);
        sorted.sort(Comparator.<JmhResult>comparingInt(r -> paramOrder.indexOf(r.params()))
                .thenComparing(r -> baseline.map(b -> !b.equals(r.method())).orElse(true))
                .thenComparingInt(group::indexOf));
        List<JmhResult> baselineRows = baseline.map(b -> group.stream().filter(r -> r.method().equals(b)).toList())
                .orElse(List.of());
        List<Row> rows = new ArrayList<>();
        for (JmhResult r : sorted) {
            rows.add(new Row(r, ratio(r, baselineRows), baseline.map(b -> b.equals(r.method())).orElse(false)));
        }
        return rows;
    }

    private static OptionalDouble ratio(JmhResult row, List<JmhResult> baselineRows) {
        JmhResult base = baselineRows.stream().filter(b -> b.params().equals(row.params())).findFirst()
                .orElseGet(() -> compatible(row, baselineRows));
        if (base == null || Double.isNaN(row.score()) || Double.isNaN(base.score()) || base.score() == 0
                || !base.unit().equals(row.unit())) {
            return OptionalDouble.empty();
        }
        double ratio = row.score() / base.score();
        // two infinite scores (JMH writes "Infinity") have no ratio
        return Double.isNaN(ratio) ? OptionalDouble.empty() : OptionalDouble.of(ratio);
    }

    /**
     * A baseline whose parameters differ in name but agree on every parameter both have (methods of
     * one class may use different {@code @State} objects); used only when exactly one fits.
     */
    private static JmhResult compatible(JmhResult row, List<JmhResult> baselineRows) {
        List<JmhResult> fits = baselineRows.stream().filter(b -> b.params().entrySet().stream()
                .allMatch(e -> !row.params().containsKey(e.getKey())
                        || row.params().get(e.getKey()).equals(e.getValue())))
                .toList();
        return fits.size() == 1 ? fits.getFirst() : null;
    }
}
