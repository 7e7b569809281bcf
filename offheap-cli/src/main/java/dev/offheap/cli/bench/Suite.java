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
 * @param smokeParams {@code @Param} values used in {@code --smoke} mode instead of the classes'
 *     own, so that CI runs the small cases only; a name no benchmark of the suite has is ignored
 */
public record Suite(String name, String packageName, String description, Map<String, List<String>> smokeParams) {
    /** Copies the parameters. */
    public Suite {
        smokeParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(smokeParams));
    }

    /**
     * @param benchmark a JMH benchmark name, {@code package.Class.method}
     * @return true if it belongs to this suite
     */
    public boolean contains(String benchmark) {
        return benchmark.startsWith(packageName + ".");
    }
}
