package dev.offheap.cli.bench;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * What {@code offheap bench} will run: the suite's benchmarks that match the filter, and the JMH
 * {@link Options} to run them with.
 *
 * <p>The mode sets forks, warmup and measurement; the command line may set threads, parameters and
 * the GC profiler; everything else comes from the benchmark classes' annotations. Forks always get
 * {@code --enable-native-access=ALL-UNNAMED} prepended to their JVM arguments. JMH options replace
 * the annotation they correspond to rather than adding to it, so benchmarks whose
 * {@code @Fork(jvmArgsPrepend = ...)} differ run as separate JMH runs, each with its own prepend
 * kept after the native access flag; so do the benchmarks the suite always profiles for GC
 * ({@link Suite#gcProfiled()}) when the command line does not ask for the GC profiler for all.
 *
 * @param suite the suite
 * @param mode the mode
 * @param benchmarks the benchmark names ({@code package.Class.method}) that will run, sorted
 * @param params the {@code @Param} overrides in effect
 * @param runs one JMH run per distinct {@code jvmArgsPrepend} among them
 * @param skipped benchmarks that matched but are left out because their {@code @Requires}
 *     precondition is unmet here, by name, with the reason; sorted
 */
public record BenchPlan(Suite suite, BenchMode mode, List<String> benchmarks, Map<String, List<String>> params,
        List<Options> runs, Map<String, String> skipped) {

    /** What every fork gets: the library and JMH's generated code use restricted FFM methods. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    /** Marks, in the grouping key of the runs, the group that runs with the GC profiler. */
    private static final String PROFILE_GC = "\u0000gc";

    /**
     * Plans a run.
     *
     * @param suite the suite
     * @param mode the mode
     * @param include only benchmarks whose full name this finds a match in; null for all
     * @param threads threads per benchmark, or null to keep each class's {@code @Threads}
     * @param params {@code @Param} overrides from the command line; in quick and smoke mode merged
     *     over the suite's small or smoke parameters
     * @param gcProfiler whether to add JMH's GC profiler
     * @param available every benchmark on the class path
     * @return the plan; its benchmark list is empty if nothing matched
     */
    public static BenchPlan create(Suite suite, BenchMode mode, Pattern include, Integer threads,
            Map<String, List<String>> params, boolean gcProfiler, Collection<BenchmarkListEntry> available) {
        return create(suite, mode, include, threads, null, params, gcProfiler, available);
    }

    /**
     * Plans the JMH runs of a suite, with a fork count other than the mode's.
     *
     * @param suite the suite
     * @param mode quick, full or smoke: forks, warmup and measurement
     * @param include only benchmarks whose full name matches, or null for all
     * @param threads threads per benchmark, or null to keep each class's {@code @Threads}
     * @param forks forks per benchmark, or null for the mode's
     * @param params {@code @Param} overrides
     * @param gcProfiler whether to add JMH's GC profiler
     * @param available every benchmark on the class path
     * @return the plan; its benchmark list is empty if nothing matched
     */
    public static BenchPlan create(Suite suite, BenchMode mode, Pattern include, Integer threads, Integer forks,
            Map<String, List<String>> params, boolean gcProfiler, Collection<BenchmarkListEntry> available) {
        return create(suite, mode, include, threads, forks, params, gcProfiler, available, b -> Optional.empty());
    }

    /**
     * Plans the JMH runs of a suite, leaving out the benchmarks that cannot run on this machine.
     *
     * @param suite the suite
     * @param mode quick, full or smoke: forks, warmup and measurement
     * @param include only benchmarks whose full name matches, or null for all
     * @param threads threads per benchmark, or null to keep each class's {@code @Threads}
     * @param forks forks per benchmark, or null for the mode's
     * @param params {@code @Param} overrides
     * @param gcProfiler whether to add JMH's GC profiler
     * @param available every benchmark on the class path
     * @param unmet why a benchmark cannot run here, by name (see {@link Requirements}); empty when it can
     * @return the plan; its benchmark list is empty if nothing matched or everything was left out
     */
    public static BenchPlan create(Suite suite, BenchMode mode, Pattern include, Integer threads, Integer forks,
            Map<String, List<String>> params, boolean gcProfiler, Collection<BenchmarkListEntry> available,
            Function<String, Optional<String>> unmet) {
        // one JMH run per distinct prepend and GC profiling: options apply to a whole run
        Map<List<String>, Set<String>> byPrepend = new LinkedHashMap<>();
        Set<String> names = new TreeSet<>();
        Map<String, String> skipped = new TreeMap<>();
        for (BenchmarkListEntry entry : available) {
            String name = entry.getUsername();
            if (!suite.contains(name) || (include != null && !include.matcher(name).find())) {
                continue;
            }
            Optional<String> reason = unmet.apply(name);
            if (reason.isPresent()) {
                skipped.put(name, reason.get());
                continue;
            }
            names.add(name);
            List<String> prepend = new ArrayList<>(entry.getJvmArgsPrepend().orElse(List.of()));
            prepend.add(gcProfiler || suite.gcProfiled(name) ? PROFILE_GC : "");
            byPrepend.computeIfAbsent(List.copyOf(prepend), k -> new TreeSet<>()).add(name);
        }
        Map<String, List<String>> effectiveParams = new LinkedHashMap<>();
        if (mode == BenchMode.QUICK) {
            effectiveParams.putAll(suite.smallParams());
        } else if (mode == BenchMode.SMOKE) {
            effectiveParams.putAll(suite.smokeParams());
        }
        effectiveParams.putAll(params);

        List<Options> runs = new ArrayList<>();
        for (Map.Entry<List<String>, Set<String>> group : byPrepend.entrySet()) {
            boolean profileGc = group.getKey().getLast().equals(PROFILE_GC);
            List<String> classPrepend = group.getKey().subList(0, group.getKey().size() - 1);
            ChainedOptionsBuilder b = new OptionsBuilder();
            for (String name : group.getValue()) {
                b.include("^" + Pattern.quote(name) + "$");
            }
            List<String> prepend = new ArrayList<>(List.of(NATIVE_ACCESS));
            classPrepend.stream().filter(a -> !a.equals(NATIVE_ACCESS)).forEach(prepend::add);
            b.jvmArgsPrepend(prepend.toArray(String[]::new));
            b.forks(forks != null ? forks : mode.forks)
                    .warmupIterations(mode.warmupIterations).warmupTime(mode.warmupTime)
                    .measurementIterations(mode.measurementIterations).measurementTime(mode.measurementTime)
                    .shouldFailOnError(mode == BenchMode.SMOKE);
            if (threads != null) {
                b.threads(threads);
            }
            effectiveParams.forEach((k, v) -> b.param(k, v.toArray(String[]::new)));
            if (profileGc) {
                b.addProfiler(GCProfiler.class);
            }
            runs.add(b.build());
        }
        return new BenchPlan(suite, mode, List.copyOf(names),
                java.util.Collections.unmodifiableMap(effectiveParams), List.copyOf(runs),
                java.util.Collections.unmodifiableMap(skipped));
    }

    /**
     * Every benchmark that JMH's annotation processor registered on the class path.
     *
     * @return the entries, empty if no benchmark was compiled
     */
    public static Set<BenchmarkListEntry> available() {
        PrintStream silent = new PrintStream(OutputStream.nullOutputStream());
        try {
            return BenchmarkList.defaultList().getAll(
                    OutputFormatFactory.createFormatInstance(silent, VerboseMode.SILENT), List.of());
        } catch (RuntimeException e) {
            // no META-INF/BenchmarkList on the class path: no benchmark compiled at all
            return Set.of();
        }
    }

    /**
     * @param available every benchmark on the class path
     * @return the distinct benchmark names of this suite among them
     */
    public static Set<String> namesIn(Suite suite, Collection<BenchmarkListEntry> available) {
        Set<String> names = new LinkedHashSet<>();
        available.stream().map(BenchmarkListEntry::getUsername).filter(suite::contains).sorted().forEach(names::add);
        return names;
    }
}
