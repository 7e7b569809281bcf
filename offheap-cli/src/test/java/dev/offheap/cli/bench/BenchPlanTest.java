package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;

/** The JMH options each mode builds, against the test-only benchmark's real BenchmarkList entries. */
class BenchPlanTest {
    private static final Suite TINY = new Suite("tiny", "dev.offheap.cli.testbench", "test",
            Map.of("size", List.of("16")));

    private static BenchPlan plan(BenchMode mode, Pattern include, Integer threads, Map<String, List<String>> params,
            boolean gc) {
        return BenchPlan.create(TINY, mode, include, threads, params, gc, BenchPlan.available());
    }

    @Test
    void smokeIsOneShortIterationOnSmallParametersAndFailsOnError() {
        BenchPlan plan = plan(BenchMode.SMOKE, null, null, Map.of(), false);
        assertThat(plan.benchmarks()).containsExactly("dev.offheap.cli.testbench.TinyBench.sumArray",
                "dev.offheap.cli.testbench.TinyBench.sumSegment");
        assertThat(plan.runs()).hasSize(1);
        Options o = plan.runs().getFirst();
        assertThat(o.getForkCount().get()).isEqualTo(1);
        assertThat(o.getWarmupIterations().get()).isEqualTo(1);
        assertThat(o.getWarmupTime().get()).isEqualTo(TimeValue.milliseconds(100));
        assertThat(o.getMeasurementIterations().get()).isEqualTo(1);
        assertThat(o.getMeasurementTime().get()).isEqualTo(TimeValue.milliseconds(100));
        assertThat(o.shouldFailOnError().get()).isTrue();
        assertThat(o.getParameter("size").get()).containsExactly("16");
        assertThat(o.getJvmArgsPrepend().get()).containsExactly(BenchPlan.NATIVE_ACCESS);
        // what the mode does not set stays with the class's annotations
        assertThat(o.getThreads().hasValue()).isFalse();
        assertThat(o.getJvmArgsAppend().hasValue()).isFalse();
        assertThat(o.getJvmArgs().hasValue()).isFalse();
        assertThat(o.getProfilers()).isEmpty();
        assertThat(o.getIncludes()).containsExactly(
                "^\\Qdev.offheap.cli.testbench.TinyBench.sumArray\\E$",
                "^\\Qdev.offheap.cli.testbench.TinyBench.sumSegment\\E$");
    }

    @Test
    void forksFromTheCommandLineReplaceTheModesOnly() {
        Options full = BenchPlan.create(TINY, BenchMode.FULL, null, null, 1, Map.of(), false, BenchPlan.available())
                .runs().getFirst();
        assertThat(full.getForkCount().get()).isEqualTo(1);
        assertThat(full.getWarmupIterations().get()).isEqualTo(3);
        assertThat(full.getMeasurementIterations().get()).isEqualTo(5);
    }

    @Test
    void quickRunsTheSmallParametersAndFullKeepsTheClassParametersAndNeitherFailsOnError() {
        Options quick = plan(BenchMode.QUICK, null, null, Map.of(), false).runs().getFirst();
        assertThat(quick.getForkCount().get()).isEqualTo(1);
        assertThat(quick.getWarmupIterations().get()).isEqualTo(1);
        assertThat(quick.getWarmupTime().get()).isEqualTo(TimeValue.milliseconds(300));
        assertThat(quick.getMeasurementIterations().get()).isEqualTo(2);
        assertThat(quick.getMeasurementTime().get()).isEqualTo(TimeValue.milliseconds(300));
        assertThat(quick.getParameter("size").get()).containsExactly("16");
        assertThat(quick.shouldFailOnError().get()).isFalse();

        Options full = plan(BenchMode.FULL, null, null, Map.of(), false).runs().getFirst();
        assertThat(full.getForkCount().get()).isEqualTo(2);
        assertThat(full.getWarmupIterations().get()).isEqualTo(3);
        assertThat(full.getWarmupTime().get()).isEqualTo(TimeValue.seconds(1));
        assertThat(full.getMeasurementIterations().get()).isEqualTo(5);
        assertThat(full.getMeasurementTime().get()).isEqualTo(TimeValue.seconds(1));
    }

    @Test
    void commandLineSetsThreadsParametersProfilerAndFilter() {
        BenchPlan plan = plan(BenchMode.SMOKE, Pattern.compile("Segment$"), 2, Map.of("size", List.of("64", "128")),
                true);
        assertThat(plan.benchmarks()).containsExactly("dev.offheap.cli.testbench.TinyBench.sumSegment");
        Options o = plan.runs().getFirst();
        assertThat(o.getThreads().get()).isEqualTo(2);
        assertThat(o.getParameter("size").get()).containsExactly("64", "128");
        assertThat(o.getProfilers()).extracting(p -> p.getKlass()).containsExactly(GCProfiler.class.getName());
    }

    @Test
    void aSuiteWithoutBenchmarksPlansNothing() {
        Suite empty = new Suite("empty", "dev.offheap.cli.nothing", "none", Map.of());
        BenchPlan plan = BenchPlan.create(empty, BenchMode.QUICK, null, null, Map.of(), false, BenchPlan.available());
        assertThat(plan.benchmarks()).isEmpty();
        assertThat(plan.runs()).isEmpty();
    }

    @Test
    void standardSuitesMapToTheBenchPackages() {
        Suites suites = Suites.standard();
        assertThat(suites.all()).extracting(Suite::name).containsExactly("segments", "buffers", "manager", "cache", "alloc");
        assertThat(suites.find("segments").orElseThrow().packageName()).isEqualTo("dev.offheap.bench.segments");
        assertThat(suites.find("segments").orElseThrow().contains("dev.offheap.bench.segments.X.y")).isTrue();
        assertThat(suites.find("segments").orElseThrow().contains("dev.offheap.bench.segmentsX.y")).isFalse();
    }

    @Test
    void smokeUsesTheSuitesSmokeParametersAndQuickItsSmallOnes() {
        Suite suite = new Suite("tiny", "dev.offheap.cli.testbench", "test", Map.of("size", List.of("16")),
                Map.of("size", List.of("8")), null, List.of(), null);
        Options smoke = BenchPlan.create(suite, BenchMode.SMOKE, null, null, Map.of(), false, BenchPlan.available())
                .runs().getFirst();
        Options quick = BenchPlan.create(suite, BenchMode.QUICK, null, null, Map.of(), false, BenchPlan.available())
                .runs().getFirst();
        Options full = BenchPlan.create(suite, BenchMode.FULL, null, null, Map.of(), false, BenchPlan.available())
                .runs().getFirst();
        assertThat(smoke.getParameter("size").get()).containsExactly("8");
        assertThat(quick.getParameter("size").get()).containsExactly("16");
        assertThat(full.getParameter("size").hasValue()).isFalse();
    }

    @Test
    void benchmarksTheSuiteProfilesForGcRunApartWithTheGcProfiler() {
        Suite suite = new Suite("tiny", "dev.offheap.cli.testbench", "test", Map.of(), Map.of(),
                Pattern.compile("\\.sumSegment$"), List.of(), null);
        BenchPlan plan = BenchPlan.create(suite, BenchMode.SMOKE, null, null, Map.of(), false, BenchPlan.available());
        assertThat(plan.runs()).hasSize(2);
        Options plain = plan.runs().stream().filter(o -> o.getProfilers().isEmpty()).findFirst().orElseThrow();
        Options profiled = plan.runs().stream().filter(o -> !o.getProfilers().isEmpty()).findFirst().orElseThrow();
        assertThat(plain.getIncludes()).containsExactly("^\\Qdev.offheap.cli.testbench.TinyBench.sumArray\\E$");
        assertThat(profiled.getIncludes()).containsExactly("^\\Qdev.offheap.cli.testbench.TinyBench.sumSegment\\E$");
        assertThat(profiled.getProfilers()).singleElement()
                .satisfies(p -> assertThat(p.getKlass()).isEqualTo(GCProfiler.class.getName()));
        // the marker that separates the groups never reaches a fork's command line
        assertThat(profiled.getJvmArgsPrepend().get()).containsExactly(BenchPlan.NATIVE_ACCESS);
        assertThat(plain.getJvmArgsPrepend().get()).containsExactly(BenchPlan.NATIVE_ACCESS);
    }

    @Test
    void theGcProfilerForAllKeepsOneRun() {
        Suite suite = new Suite("tiny", "dev.offheap.cli.testbench", "test", Map.of(), Map.of(),
                Pattern.compile("\\.sumSegment$"), List.of(), null);
        BenchPlan plan = BenchPlan.create(suite, BenchMode.SMOKE, null, null, Map.of(), true, BenchPlan.available());
        assertThat(plan.runs()).singleElement().satisfies(o -> assertThat(o.getProfilers()).hasSize(1));
    }

    @Test
    void theCacheSuiteIsRegisteredWithSmallerSmokeThanQuickParametersAndGoals() {
        Suite cache = Suites.standard().find("cache").orElseThrow();
        assertThat(cache.packageName()).isEqualTo("dev.offheap.bench.cache");
        assertThat(cache.smallParams()).containsKeys("workload", "capacityMiB", "accesses");
        assertThat(cache.smokeParams()).containsKeys("workload", "capacityMiB", "accesses");
        assertThat(cache.gcProfiled("dev.offheap.bench.cache.CacheMixBenchmark.caffeine")).isTrue();
        assertThat(cache.gcProfiled("dev.offheap.bench.cache.CacheMixTwoThreadsBenchmark.caffeine")).isTrue();
        assertThat(cache.gcProfiled("dev.offheap.bench.cache.CacheGetBenchmark.caffeine")).isFalse();
        assertThat(cache.goalSection()).isPresent();
        assertThat(Integer.parseInt(cache.smokeParams().get("capacityMiB").getFirst()))
                .isLessThan(Integer.parseInt(cache.smallParams().get("capacityMiB").getFirst()));
    }
}
