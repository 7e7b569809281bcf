package dev.offheap.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of a JMH JSON result file: a benchmark method at one set of parameters.
 *
 * @param benchmark the full name, {@code package.Class.method}
 * @param mode JMH's short mode name: thrpt, avgt, sample, ss
 * @param threads threads per fork
 * @param forks forks measured
 * @param params the {@code @Param} values, in JMH's order (empty when none)
 * @param score the primary score
 * @param error the 99.9% error half-width, NaN when JMH could not compute one
 * @param unit the primary score's unit, e.g. {@code ns/op}
 * @param secondary secondary metrics (profilers, {@code @AuxCounters}) by name
 * @param settings iteration settings: warmup and measurement iterations and times, JVM and JDK
 */
public record JmhResult(
        String benchmark,
        String mode,
        int threads,
        int forks,
        Map<String, String> params,
        double score,
        double error,
        String unit,
        Map<String, Metric> secondary,
        Map<String, String> settings) {

    /**
     * A secondary metric.
     *
     * @param score the score
     * @param error the error half-width, NaN when unknown
     * @param unit the unit
     */
    public record Metric(double score, double error, String unit) {
    }

    /** @return the class part of {@link #benchmark()} */
    public String className() {
        int dot = benchmark.lastIndexOf('.');
        return dot < 0 ? "" : benchmark.substring(0, dot);
    }

    /** @return the method part of {@link #benchmark()} */
    public String method() {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    /** @return true for modes that report time per operation, where lower is better */
    public boolean lowerIsBetter() {
        return !"thrpt".equals(mode);
    }

    /** @return the parameters as {@code a=1, b=x}, or an empty string */
    public String paramsLabel() {
        List<String> parts = new ArrayList<>();
        params.forEach((k, v) -> parts.add(k + "=" + v));
        return String.join(", ", parts);
    }

    /**
     * Reads a JMH result file written with {@code -rf json}.
     *
     * @param file the file
     * @return its rows, in file order
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is not a JMH JSON result file
     */
    public static List<JmhResult> read(Path file) throws IOException {
        Object root;
        try {
            root = Json.parse(Files.readString(file));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        if (!(root instanceof List<?> rows)) {
            throw new IllegalArgumentException(file + ": not a JMH JSON result file (expected an array of results)");
        }
        List<JmhResult> results = new ArrayList<>();
        for (Object row : rows) {
            if (!(row instanceof Map<?, ?> map) || !(map.get("benchmark") instanceof String)
                    || !(map.get("primaryMetric") instanceof Map<?, ?>)) {
                throw new IllegalArgumentException(file + ": not a JMH JSON result file (a row without benchmark or primaryMetric)");
            }
            results.add(fromJson(map));
        }
        return results;
    }

    private static JmhResult fromJson(Map<?, ?> row) {
        Map<String, String> params = new LinkedHashMap<>();
        if (row.get("params") instanceof Map<?, ?> p) {
            p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
        }
        Map<?, ?> primary = (Map<?, ?>) row.get("primaryMetric");
        Map<String, Metric> secondary = new LinkedHashMap<>();
        if (row.get("secondaryMetrics") instanceof Map<?, ?> s) {
            s.forEach((k, v) -> {
                if (v instanceof Map<?, ?> m) {
                    secondary.put(String.valueOf(k), metric(m));
                }
            });
        }
        Map<String, String> settings = new LinkedHashMap<>();
        for (String key : List.of("warmupIterations", "warmupTime", "measurementIterations", "measurementTime",
                "jdkVersion", "vmName", "vmVersion", "jvm", "jmhVersion")) {
            Object v = row.get(key);
            if (v != null) {
                settings.put(key, v instanceof Double d && d == Math.rint(d) ? String.valueOf(d.longValue()) : String.valueOf(v));
            }
        }
        if (row.get("jvmArgs") instanceof List<?> args) {
            settings.put("jvmArgs", String.join(" ", args.stream().map(String::valueOf).toList()));
        }
        Metric p = metric(primary);
        return new JmhResult((String) row.get("benchmark"), String.valueOf(row.get("mode")),
                intValue(row.get("threads")), intValue(row.get("forks")),
                params, p.score(), p.error(), p.unit(), secondary, settings);
    }

    private static Metric metric(Map<?, ?> m) {
        return new Metric(number(m.get("score")), number(m.get("scoreError")), String.valueOf(m.get("scoreUnit")));
    }

    private static double number(Object o) {
        if (o instanceof Double d) {
            return d;
        }
        if (o instanceof String s) { // JMH writes "NaN" and "Infinity" as strings
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    private static int intValue(Object o) {
        return o instanceof Double d ? d.intValue() : 1;
    }
}
