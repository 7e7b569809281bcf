package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.bench.Requires;
import dev.offheap.cli.testneeds.NeedsBench;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Preconditions asked before JMH runs, and the benchmarks a plan leaves out because of them. */
class RequirementsTest {
    private static final String NEEDS = "dev.offheap.cli.testneeds.NeedsBench.";

    /** Inherits a method with a precondition, as JMH's two-thread subclasses do. */
    static class Base {
        @Requires(NeedsBench.MissingLibrary.class)
        public void inherited() {
        }
    }

    static class Child extends Base {
    }

    @Test
    void unmetPreconditionsGiveTheirReason() {
        Requirements r = Requirements.fromClassPath();
        assertThat(r.apply(NEEDS + "plain")).isEmpty();
        assertThat(r.apply(NEEDS + "needsWhatIsThere")).isEmpty();
        assertThat(r.apply(NEEDS + "needsMissingLibrary")).contains(NeedsBench.MISSING);
        assertThat(r.apply("dev.offheap.cli.bench.RequirementsTest.Child.inherited")).contains(NeedsBench.MISSING);
    }

    @Test
    void aPreconditionThatThrowsLeavesTheBenchmarkOutWithTheError() {
        assertThat(Requirements.fromClassPath().apply(NEEDS + "needsBrokenCheck")).hasValueSatisfying(reason ->
                assertThat(reason).contains(NeedsBench.Broken.class.getName()).contains("probe crashed"));
    }

    @Test
    void unknownClassesAndNamesAreLeftToJmh() {
        Requirements r = Requirements.fromClassPath();
        assertThat(r.apply("dev.offheap.nowhere.Missing.run")).isEmpty();
        assertThat(r.apply("noDots")).isEmpty();
        assertThat(r.apply(NEEDS + "noSuchMethod")).isEmpty();
    }

    @Test
    void thePlanLeavesOutWhatCannotRunAndSaysWhy() {
        Suite needs = new Suite("needs", "dev.offheap.cli.testneeds", "test", Map.of());
        BenchPlan plan = BenchPlan.create(needs, BenchMode.SMOKE, null, null, null, Map.of(), false,
                BenchPlan.available(), Requirements.fromClassPath());
        assertThat(plan.benchmarks()).containsExactly(NEEDS + "needsWhatIsThere", NEEDS + "plain");
        assertThat(plan.skipped()).containsOnlyKeys(NEEDS + "needsBrokenCheck", NEEDS + "needsMissingLibrary")
                .containsEntry(NEEDS + "needsMissingLibrary", NeedsBench.MISSING);
        assertThat(plan.runs().getFirst().getIncludes()).hasSize(2);

        BenchPlan unchecked = BenchPlan.create(needs, BenchMode.SMOKE, null, null, Map.of(), false,
                BenchPlan.available());
        assertThat(unchecked.benchmarks()).hasSize(4);
        assertThat(unchecked.skipped()).isEmpty();
    }

    @Test
    void skippedBenchmarksTravelWithTheRunDescription(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path json = dir.resolve("needs.json");
        RunInfo run = RunInfo.current("offheap bench needs", "smoke")
                .withSkipped(Map.of(NEEDS + "needsMissingLibrary", NeedsBench.MISSING));
        run.writeFor(json);
        RunInfo read = RunInfo.readFor(json);
        assertThat(read.skipped()).containsExactly(Map.entry(NEEDS + "needsMissingLibrary", NeedsBench.MISSING));
        assertThat(read.command()).isEqualTo("offheap bench needs");

        String md = new BenchReport("needs", List.of(), read, Baselines.fromClassPath()).markdown();
        assertThat(md).contains("Not run here, so missing from the tables and goals:")
                .contains("- `NeedsBench.needsMissingLibrary`: " + NeedsBench.MISSING);
    }
}
