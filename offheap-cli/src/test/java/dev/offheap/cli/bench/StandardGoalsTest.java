package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Every goal of the standard suites names benchmark methods that exist, so that a renamed method
 * shows up here and not as a "not measured" goal in a committed report.
 */
class StandardGoalsTest {
    @Test
    void everyGoalVariantIsABenchmarkMethodOfItsSuite() {
        List<String> checked = new ArrayList<>();
        for (Suite suite : Suites.standard().all()) {
            for (Goal goal : suite.goals()) {
                List<Goal.Variant> variants = new ArrayList<>(goal.references());
                variants.add(goal.subject());
                for (Goal.Variant v : variants) {
                    String className = suite.packageName() + "." + v.benchmarkClass();
                    Class<?> type = Baselines.load(StandardGoalsTest.class.getClassLoader(), className);
                    assertThat(type).as("class of goal '%s'", goal.statement()).isNotNull();
                    assertThat(isBenchmark(type, v.method())).as("%s.%s in goal '%s'", className, v.method(),
                            goal.statement()).isTrue();
                    checked.add(v.label());
                }
            }
        }
        assertThat(checked).contains("UninitializedAllocationBenchmark.pooled",
                "UninitializedAllocationTwoThreadsBenchmark.pooled",
                "FragmentationBenchmark.pooled[trimmedFootprintRatio]",
                "PageAllocationBenchmark.flinkUnsafe", "PageAllocationTwoThreadsBenchmark.managerConfined",
                "BufferHeapCostBenchmark.managerPagesOnDemand[heapPercentOfData]",
                "PageAllocationBenchmark.groupConfined", "BufferHeapCostBenchmark.managerPageGroupOnDemand[heapPercentOfData]");
    }

    @Test
    void theAllocSuiteChecksEveryGoalTheIssueStates() {
        Suite alloc = Suites.standard().find("alloc").orElseThrow();
        assertThat(alloc.packageName()).isEqualTo("dev.offheap.bench.alloc");
        assertThat(alloc.goals()).extracting(Goal::kind, Goal::target).containsSubsequence(
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.FASTER, 1.5),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.FASTER, 3.0),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.FASTER, 5.0),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.AT_MOST_SLOWER, 1.25),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.AT_MOST_SLOWER, 1.5),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.FASTER, 3.0),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.AT_MOST_SLOWER, 1.15),
                org.assertj.core.groups.Tuple.tuple(Goal.Kind.VALUE_AT_MOST, 1.5));
        assertThat(alloc.goals()).anySatisfy(g -> {
            assertThat(g.kind()).isEqualTo(Goal.Kind.SLOWDOWN);
            assertThat(g.subject().method()).isEqualTo("pooledFull");
        });
        assertThat(alloc.smallParams()).containsKeys("bytes", "allocations");
    }

    private static boolean isBenchmark(Class<?> type, String method) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(method) && m.isAnnotationPresent(Benchmark.class)) {
                    return true;
                }
            }
        }
        return false;
    }
}
