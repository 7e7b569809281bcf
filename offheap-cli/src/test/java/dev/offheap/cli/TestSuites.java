package dev.offheap.cli;

import dev.offheap.cli.bench.Goal;
import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import java.util.List;
import java.util.Map;

/**
 * The suites the tests run: the test-only benchmark packages (one with a goal, one whose methods
 * have preconditions), and one with no benchmarks.
 */
final class TestSuites {
    private TestSuites() {
    }

    static Suites suites() {
        return new Suites(List.of(
                new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                        Map.of("size", List.of("16"))),
                new Suite("needs", "dev.offheap.cli.testneeds", "test-only benchmarks with preconditions", Map.of(),
                        Map.of(), null, List.of(Goal.atMostSlower("needsWhatIsThere at most 100x plain", 100,
                                Goal.Variant.of("NeedsBench", "needsWhatIsThere"),
                                Goal.Variant.of("NeedsBench", "plain"))), null),
                new Suite("empty", "dev.offheap.cli.nothing", "a suite without benchmarks", Map.of())));
    }
}
