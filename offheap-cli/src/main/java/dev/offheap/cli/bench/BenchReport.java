package dev.offheap.cli.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Renders JMH results as a markdown report: how and where they were produced, then one table per
 * benchmark class with each variant's score and its ratio to the class's {@code @Baseline} at the
 * same parameters, and a second table for secondary metrics (GC profiler, {@code @AuxCounters}).
 * A suite's {@link Goal goals} come first, checked against the results with a verdict each, and
 * benchmarks left out for lack of something they need are listed with the reason.
 * It reads only the JMH JSON and the run description next to it, so a report can be re-generated
 * from committed files ({@code offheap bench --report docs/benchmarks/segments.json}).
 */
public final class BenchReport {
    private final String suite;
    private final List<JmhResult> results;
    private final RunInfo run;
    private final Function<String, Optional<String>> baselines;
    private final List<Goal> goals;
    private final Function<List<JmhResult>, String> goalWriter;

    /**
     * A report without goals.
     *
     * @param suite the suite name, used in the title
     * @param results the JMH results
     * @param run how and where they were produced
     * @param baselines the {@code @Baseline} method of a class, by class name
     */
    public BenchReport(String suite, List<JmhResult> results, RunInfo run,
            Function<String, Optional<String>> baselines) {
        this(suite, results, run, baselines, List.of(), null);
    }

    /**
     * @param suite the suite name, used in the title
     * @param results the JMH results
     * @param run how and where they were produced
     * @param baselines the {@code @Baseline} method of a class, by class name
     * @param goals the suite's goals, checked in a section before the tables; empty for none
     * @param goalWriter writes a further goal section from the results (goals that {@link Goal} cannot
     *     express), placed after the checked goals; null for none
     */
    public BenchReport(String suite, List<JmhResult> results, RunInfo run,
            Function<String, Optional<String>> baselines, List<Goal> goals,
            Function<List<JmhResult>, String> goalWriter) {
        this.suite = suite;
        this.results = List.copyOf(results);
        this.run = run;
        this.baselines = baselines;
        this.goals = List.copyOf(goals);
        this.goalWriter = goalWriter;
    }

    /**
     * @return every goal checked against the results, in goal order, each at the parameter sets it
     *     judges, then those it shows for comparison
     */
    public List<Goal.Check> checks() {
        return goals.stream().flatMap(g -> g.check(results).stream()).toList();
    }

    /** @return the tables of this report, one per class and mode */
    public List<ResultTable> tables() {
        return ResultTable.of(results, baselines);
    }

    /** @return the report as GitHub-flavoured markdown */
    public String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: ").append(suite).append("\n\n");
        md.append("Produced by `").append(run.command()).append("` on ").append(run.date()).append(".\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| Machine | ").append(cell(run.cpu()));
        if (run.cores() > 0) {
            md.append(", ").append(run.cores()).append(run.cores() == 1 ? " core" : " cores");
        }
        md.append(", ").append(cell(run.memory())).append(" memory |\n");
        md.append("| OS | ").append(cell(run.os())).append(" |\n");
        md.append("| JDK | ").append(cell(forkedJdk())).append(" |\n");
        md.append("| Launched by | ").append(cell(run.jdk())).append(" |\n");
        md.append("| JMH | ").append(cell(jmhSettings())).append(" |\n");
        String jvmArgs = distinct("jvmArgs");
        if (!jvmArgs.isEmpty()) {
            md.append("| Fork JVM args | `").append(cell(jvmArgs)).append("` |\n");
        }
        md.append('\n');
        md.append("Score: the JMH score ± the half-width of its 99.9% confidence interval. ")
                .append("Ratio: the score divided by the score of the class's `@Baseline` method ")
                .append("at the same parameters, in the same run. Absolute numbers drift on shared machines; ")
                .append("quote ratios.\n");
        appendSkipped(md);
        appendGoals(md);
        if (goalWriter != null && !results.isEmpty()) {
            md.append('\n').append(goalWriter.apply(results));
        }
        List<ResultTable> tables = tables();
        for (ResultTable table : tables) {
            appendTable(md, table, tables, baselines.apply(table.className()));
        }
        if (results.isEmpty()) {
            md.append("\nNo results.\n");
        }
        return md.toString();
    }

    private void appendSkipped(StringBuilder md) {
        if (run.skipped().isEmpty()) {
            return;
        }
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        run.skipped().forEach((benchmark, reason) -> byReason.computeIfAbsent(reason, r -> new ArrayList<>())
                .add(shortName(benchmark)));
        md.append("\nNot run here, so missing from the tables and goals:\n\n");
        byReason.forEach((reason, names) -> md.append("- ")
                .append(String.join(", ", names.stream().map(n -> "`" + n + "`").toList()))
                .append(": ").append(cell(reason)).append('\n'));
    }

    private static String shortName(String benchmark) {
        int method = benchmark.lastIndexOf('.');
        int cls = method <= 0 ? -1 : benchmark.lastIndexOf('.', method - 1);
        return cls < 0 ? benchmark : benchmark.substring(cls + 1);
    }

    private void appendGoals(StringBuilder md) {
        if (goals.isEmpty()) {
            return;
        }
        List<Goal.Check> checks = checks();
        Map<Goal.Verdict, Long> counts = new EnumMap<>(Goal.Verdict.class);
        checks.forEach(c -> counts.merge(c.verdict(), 1L, Long::sum));
        md.append("\n## Goals\n\n");
        md.append("Each goal is checked at the parameter sets it names (at every parameter set of its subject where ")
                .append("it names none), against this run's results; rows shown for comparison are not counted. ")
                .append("Speed goals compare primary scores: a speedup is the reference's time per operation ")
                .append("divided by the subject's (or the subject's throughput divided by the reference's), a ")
                .append("slowdown its inverse; where a goal names several references, the fastest counts. ")
                .append("Value goals read one number of the subject. ");
        md.append(counts.getOrDefault(Goal.Verdict.PASS, 0L)).append(" pass, ")
                .append(counts.getOrDefault(Goal.Verdict.FAIL, 0L)).append(" fail, ")
                .append(counts.getOrDefault(Goal.Verdict.REPORTED, 0L)).append(" reported only, ")
                .append(counts.getOrDefault(Goal.Verdict.NOT_MEASURED, 0L)).append(" not measured");
        long shown = counts.getOrDefault(Goal.Verdict.FOR_COMPARISON, 0L);
        if (shown > 0) {
            md.append("; ").append(shown).append(shown == 1 ? " row" : " rows").append(" for comparison, not counted");
        }
        md.append(".\n\n");
        md.append("| goal | params | measured | target | result | from |\n|---|---|--:|---|---|---|\n");
        for (Goal.Check c : checks) {
            List<String> params = new ArrayList<>();
            c.params().forEach((k, v) -> params.add(k + "=" + v));
            md.append("| ").append(cell(c.goal().statement())).append(" | ").append(cell(String.join(", ", params)))
                    .append(" | ").append(c.goal().measuredText(c)).append(" | ")
                    .append(c.verdict() == Goal.Verdict.FOR_COMPARISON ? "" : c.goal().targetText())
                    .append(" | ").append(verdict(c.verdict())).append(" | ").append(cell(c.detail())).append(" |\n");
        }
    }

    private static String verdict(Goal.Verdict v) {
        return switch (v) {
            case PASS -> "pass";
            case FAIL -> "**FAIL**";
            case REPORTED -> "reported";
            case NOT_MEASURED -> "not measured";
            case FOR_COMPARISON -> "for comparison, not counted";
        };
    }

    private static void appendTable(StringBuilder md, ResultTable table, List<ResultTable> tables,
            Optional<String> declaredBaseline) {
        boolean params = table.hasParams();
        boolean threads = table.hasThreads();
        md.append("\n## ").append(table.simpleName());
        if (tables.stream().filter(t -> t.className().equals(table.className())).count() > 1) {
            md.append(" (").append(table.mode()).append(')');
        }
        md.append("\n\n`").append(table.className()).append("`, mode ").append(table.mode()).append(": ");
        md.append(table.baseline().map(b -> "ratio to `" + b + "`, " + table.ratioMeaning() + ".")
                .orElse(declaredBaseline.map(b -> "its baseline `" + b + "` did not run (left out by --include?), "
                        + "so no ratios.").orElse("no `@Baseline` method, so no ratios.")));
        md.append("\n\n| variant |");
        if (params) {
            md.append(" params |");
        }
        if (threads) {
            md.append(" threads |");
        }
        md.append(" score | ± error | unit | ratio |\n|---|");
        if (params) {
            md.append("---|");
        }
        if (threads) {
            md.append("--:|");
        }
        md.append("--:|--:|---|--:|\n");
        for (ResultTable.Row row : table.rows()) {
            JmhResult r = row.result();
            md.append("| ").append(r.method()).append(row.baseline() ? " (baseline)" : "").append(" |");
            if (params) {
                md.append(' ').append(cell(r.paramsLabel())).append(" |");
            }
            if (threads) {
                md.append(' ').append(r.threads()).append(" |");
            }
            md.append(' ').append(number(r.score())).append(" | ").append(error(r.score(), r.error())).append(" | ")
                    .append(cell(r.unit())).append(" | ")
                    .append(row.ratio().isPresent() ? ratio(row.ratio().getAsDouble()) : "")
                    .append(" |\n");
        }
        List<String> metrics = table.secondaryMetrics();
        if (metrics.isEmpty()) {
            return;
        }
        md.append("\nSecondary metrics of ").append(table.simpleName()).append(":\n\n| variant |");
        if (params) {
            md.append(" params |");
        }
        for (String m : metrics) {
            String unit = table.rows().stream().map(r -> r.result().secondary().get(m))
                    .filter(java.util.Objects::nonNull).map(JmhResult.Metric::unit).findFirst().orElse("");
            md.append(' ').append(cell(m)).append(unit.isEmpty() ? "" : " (" + cell(unit) + ")").append(" |");
        }
        md.append("\n|---|");
        if (params) {
            md.append("---|");
        }
        md.append("--:|".repeat(metrics.size())).append('\n');
        for (ResultTable.Row row : table.rows()) {
            JmhResult r = row.result();
            md.append("| ").append(r.method()).append(" |");
            if (params) {
                md.append(' ').append(cell(r.paramsLabel())).append(" |");
            }
            for (String m : metrics) {
                JmhResult.Metric metric = r.secondary().get(m);
                md.append(' ');
                if (metric != null) {
                    md.append(number(metric.score()));
                    if (!Double.isNaN(metric.error())) {
                        md.append(" ± ").append(error(metric.score(), metric.error()));
                    }
                }
                md.append(" |");
            }
            md.append('\n');
        }
    }

    private String forkedJdk() {
        List<String> parts = new ArrayList<>();
        String version = distinct("jdkVersion");
        if (!version.isEmpty()) {
            parts.add(version);
        }
        String vm = (distinct("vmName") + " " + distinct("vmVersion")).trim();
        if (!vm.isEmpty()) {
            parts.add(vm);
        }
        String jvm = distinct("jvm");
        if (!jvm.isEmpty()) {
            parts.add(jvm);
        }
        return parts.isEmpty() ? "(not recorded)" : String.join(", ", parts);
    }

    private String jmhSettings() {
        Set<String> settings = new LinkedHashSet<>();
        for (JmhResult r : results) {
            settings.add(r.forks() + (r.forks() == 1 ? " fork" : " forks") + ", "
                    + r.settings().getOrDefault("warmupIterations", "?") + " warmup × "
                    + r.settings().getOrDefault("warmupTime", "?") + ", "
                    + r.settings().getOrDefault("measurementIterations", "?") + " measurement × "
                    + r.settings().getOrDefault("measurementTime", "?"));
        }
        String version = distinct("jmhVersion");
        return (version.isEmpty() ? "" : version + "; ") + "mode " + run.mode()
                + (settings.isEmpty() ? "" : ": " + String.join(" / ", settings));
    }

    private String distinct(String setting) {
        Set<String> values = new LinkedHashSet<>();
        for (JmhResult r : results) {
            String v = r.settings().get(setting);
            if (v != null && !v.isBlank()) {
                values.add(v);
            }
        }
        return String.join(" / ", values);
    }

    /**
     * Formats a score for a table: about three significant digits, thousands grouped.
     *
     * @param v the number
     * @return its text, or an empty string for NaN
     */
    public static String number(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "∞" : "-∞";
        }
        double a = Math.abs(v);
        if (a >= 1e12) {
            return String.format(Locale.ROOT, "%.3e", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        if (a == 0) {
            return "0";
        }
        return new BigDecimal(v).round(new MathContext(3)).toPlainString();
    }

    /**
     * Formats an error with as many decimals as its score shows, so that {@code 10.0 ± 0.5} line up.
     *
     * @param score the score it belongs to
     * @param error the error
     * @return its text, or an empty string for NaN
     */
    public static String error(double score, double error) {
        if (Double.isNaN(error) || Double.isNaN(score) || Double.isInfinite(score)) {
            return number(error);
        }
        String s = number(score);
        int dot = s.indexOf('.');
        int decimals = dot < 0 || s.contains("e") ? 0 : s.length() - dot - 1;
        String e = String.format(Locale.ROOT, "%,." + decimals + "f", error);
        return error > 0 && e.replaceAll("[0.,]", "").isEmpty() ? number(error) : e;
    }

    /**
     * Formats a ratio: two decimals, fewer digits when large, more when tiny.
     *
     * @param v the ratio
     * @return its text, or an empty string for NaN (like {@link #number})
     */
    public static String ratio(double v) {
        if (Double.isNaN(v)) {
            return ""; // BigDecimal below rejects NaN; a ratio of two infinite scores is one
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "∞" : "-∞";
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (v >= 0.01 || v == 0) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return new BigDecimal(v).round(new MathContext(2)).toPlainString();
    }

    /**
     * Formats a ratio as {@link #ratio(double)} does, rounded in one direction: for a goal's value that
     * missed its target but rounds to it, rounded towards failing, so that it does not read as the
     * target itself (a speedup of 1.497 against at least 1.50x shows 1.49x, not 1.50x next to a FAIL).
     *
     * @param v the ratio
     * @param rounding {@link RoundingMode#FLOOR} for an at-least target, {@link RoundingMode#CEILING}
     *     for an at-most one
     * @return its text, as {@link #ratio(double)} gives it for NaN and infinities
     */
    static String ratio(double v, RoundingMode rounding) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return ratio(v);
        }
        // the shortest decimal of the double, as String.format rounds it: 1.15 rounded down stays 1.15,
        // where its exact binary value, 1.1499..., would give 1.14
        BigDecimal d = BigDecimal.valueOf(v);
        if (v < 0.01 && v != 0) {
            return d.round(new MathContext(2, rounding)).toPlainString();
        }
        return d.setScale(v >= 100 ? 0 : v >= 10 ? 1 : 2, rounding).toPlainString();
    }

    /**
     * Formats a number as {@link #number(double)} does, rounded in one direction (see
     * {@link #ratio(double, RoundingMode)}).
     *
     * @param v the number
     * @param rounding the direction
     * @return its text
     */
    static String number(double v, RoundingMode rounding) {
        double a = Math.abs(v);
        if (Double.isNaN(v) || Double.isInfinite(v) || a >= 1e12 || a == 0) {
            return number(v);
        }
        if (a < 1) {
            return BigDecimal.valueOf(v).round(new MathContext(3, rounding)).toPlainString();
        }
        int scale = a >= 100 ? 0 : a >= 10 ? 1 : 2;
        return String.format(Locale.ROOT, "%,." + scale + "f", BigDecimal.valueOf(v).setScale(scale, rounding));
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
