package dev.offheap.cli.bench;

import dev.offheap.bench.Baseline;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Finds the {@link Baseline} method of a benchmark class by reflection on the class named in a JMH
 * result. A class that cannot be loaded (a report re-generated where the benchmarks are not on the
 * class path) or that has no baseline is reported without ratios.
 */
public final class Baselines implements Function<String, Optional<String>> {
    private final ClassLoader loader;
    private final ConcurrentHashMap<String, Optional<String>> cache = new ConcurrentHashMap<>();

    /** @param loader where the benchmark classes are loaded from */
    public Baselines(ClassLoader loader) {
        this.loader = loader;
    }

    /** @return a lookup through the loader of this class, which sees offheap-bench */
    public static Baselines fromClassPath() {
        return new Baselines(Baselines.class.getClassLoader());
    }

    /**
     * @param className the class part of a JMH benchmark name (nested classes written with dots)
     * @return the name of its {@code @Baseline} method, if it has one
     */
    @Override
    public Optional<String> apply(String className) {
        return cache.computeIfAbsent(className, this::lookup);
    }

    private Optional<String> lookup(String className) {
        Class<?> type = load(loader, className);
        if (type == null) {
            return Optional.empty();
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Baseline.class)) {
                    return Optional.of(m.getName());
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Loads a class named the way JMH names it, without initializing it.
     *
     * @param loader where from
     * @param name the name, nested classes written with dots
     * @return the class, or null when it cannot be loaded
     */
    static Class<?> load(ClassLoader loader, String name) {
        String candidate = name;
        while (true) {
            try {
                return Class.forName(candidate, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                // JMH writes nested classes as Outer.Inner; the binary name is Outer$Inner
                int dot = candidate.lastIndexOf('.');
                if (dot < 0) {
                    return null;
                }
                candidate = candidate.substring(0, dot) + '$' + candidate.substring(dot + 1);
            }
        }
    }
}
