package dev.offheap.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A named set of benchmarks: every JMH benchmark in one package (and its sub-packages).
 *
 * @param name the name users type: {@code offheap bench <name>}
 * @param packageName the Java package of its benchmark classes
 * @param description one line for {@code --list} and {@code --help}
 * @param smallParams {@code @Param} values used in {@code --smoke} and the default quick mode
 *     instead of the classes' own, so that a first look and CI run the small cases only ({@code --full}
 *     runs them all); a name no benchmark of the suite has is ignored
 * @param goals what its report checks, in the order the report lists them; empty for none
 */
public record Suite(String name, String packageName, String description, Map<String, List<String>> smallParams,
        List<Goal> goals) {
    /** Copies the parameters and goals. */
    public Suite {
        smallParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(smallParams));
        goals = List.copyOf(goals);
    }

    /**
     * A suite whose report checks no goals.
     *
     * @param name the name users type
     * @param packageName the Java package of its benchmark classes
     * @param description one line for {@code --list} and {@code --help}
     * @param smallParams {@code @Param} values of the smoke and quick modes
     */
    public Suite(String name, String packageName, String description, Map<String, List<String>> smallParams) {
        this(name, packageName, description, smallParams, List.of());
    }

    /**
     * @param benchmark a JMH benchmark name, {@code package.Class.method}
     * @return true if it belongs to this suite
     */
    public boolean contains(String benchmark) {
        return benchmark.startsWith(packageName + ".");
    }
}
