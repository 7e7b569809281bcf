package dev.offheap.cli.bench;

import dev.offheap.bench.Precondition;
import dev.offheap.bench.Requires;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Asks a benchmark's {@link Requires @Requires} precondition whether it can run on this machine,
 * before JMH starts, so that a benchmark whose optional library is missing is left out with the
 * precondition's message rather than failing the run. A benchmark without {@code @Requires}, or one
 * whose class cannot be loaded here, is left to JMH.
 */
public final class Requirements implements Function<String, Optional<String>> {
    private final ClassLoader loader;
    private final ConcurrentHashMap<String, Optional<String>> byBenchmark = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Class<?>, Optional<String>> byPrecondition = new ConcurrentHashMap<>();

    /** @param loader where the benchmark classes are loaded from */
    public Requirements(ClassLoader loader) {
        this.loader = loader;
    }

    /** @return the check through the loader of this class, which sees offheap-bench */
    public static Requirements fromClassPath() {
        return new Requirements(Requirements.class.getClassLoader());
    }

    /**
     * @param benchmark a JMH benchmark name, {@code package.Class.method}
     * @return why it cannot run here, or empty when it can (or nothing is known against it)
     */
    @Override
    public Optional<String> apply(String benchmark) {
        return byBenchmark.computeIfAbsent(benchmark, this::lookup);
    }

    private Optional<String> lookup(String benchmark) {
        int dot = benchmark.lastIndexOf('.');
        if (dot <= 0) {
            return Optional.empty();
        }
        Class<?> type = Baselines.load(loader, benchmark.substring(0, dot));
        if (type == null) {
            return Optional.empty();
        }
        String method = benchmark.substring(dot + 1);
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(method) && m.isAnnotationPresent(Requires.class)) {
                    Class<? extends Precondition> check = m.getAnnotation(Requires.class).value();
                    return byPrecondition.computeIfAbsent(check, k -> ask(check));
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> ask(Class<? extends Precondition> check) {
        try {
            Optional<String> unmet = check.getConstructor().newInstance().unmet();
            return unmet == null ? Optional.empty() : unmet;
        } catch (InvocationTargetException e) {
            return Optional.of("its precondition " + check.getName() + " failed: " + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Optional.of("its precondition " + check.getName() + " cannot be checked: " + e);
        }
    }
}
