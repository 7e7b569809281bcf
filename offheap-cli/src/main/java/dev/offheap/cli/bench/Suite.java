package dev.offheap.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A named set of benchmarks: every JMH benchmark in one package (and its sub-packages).
 *
 * @param name the name users type: {@code offheap bench <name>}
 * @param packageName the Java package of its benchmark classes
 * @param description one line for {@code --list} and {@code --help}
 * @param smallParams {@code @Param} values used in the default quick mode instead of the classes' own,
 *     so that a first look runs the small cases only ({@code --full} runs them all); a name no
 *     benchmark of the suite has is ignored
 * @param smokeParams {@code @Param} values used in {@code --smoke} (CI), usually smaller still
 * @param gcProfiled the benchmarks (a regular expression found in {@code package.Class.method}) that
 *     always run with JMH's GC profiler, because a goal needs their GC numbers; null for none
 * @param goals the goals its report checks, each a comparison of benchmark scores (see {@link Goal}),
 *     in the order the report lists them; empty for none
 * @param goalWriter writes a goal section (markdown) for goals that need more than {@link Goal}'s
 *     comparisons (the cache suite's: best of two baselines per row, bandwidth and GC ratios); null for none
 */
public record Suite(String name, String packageName, String description, Map<String, List<String>> smallParams,
        Map<String, List<String>> smokeParams, Pattern gcProfiled, List<Goal> goals,
        Function<List<JmhResult>, String> goalWriter) {
    /** Copies the parameters and goals. */
    public Suite {
        smallParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(smallParams));
        smokeParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(smokeParams));
        goals = List.copyOf(goals);
    }

    /**
     * A suite whose smoke runs use the quick mode's small parameters, without profiled benchmarks or goals.
     *
     * @param name the name users type
     * @param packageName the Java package of its benchmark classes
     * @param description one line for {@code --list} and {@code --help}
     * @param smallParams {@code @Param} values of the quick and smoke modes
     */
    public Suite(String name, String packageName, String description, Map<String, List<String>> smallParams) {
        this(name, packageName, description, smallParams, smallParams, null, List.of(), null);
    }

    /**
     * @param benchmark a JMH benchmark name, {@code package.Class.method}
     * @return true if it belongs to this suite
     */
    public boolean contains(String benchmark) {
        return benchmark.startsWith(packageName + ".");
    }

    /**
     * @param benchmark a JMH benchmark name of this suite
     * @return true if it always runs with JMH's GC profiler
     */
    public boolean gcProfiled(String benchmark) {
        return gcProfiled != null && gcProfiled.matcher(benchmark).find();
    }

    /** @return the writer of the suite's own goal section, if it has one */
    public Optional<Function<List<JmhResult>, String>> goalSection() {
        return Optional.ofNullable(goalWriter);
    }
}
