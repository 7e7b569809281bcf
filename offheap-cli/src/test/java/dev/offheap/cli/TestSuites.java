package dev.offheap.cli;

import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import java.util.List;
import java.util.Map;

/** The suites the tests run: the test-only benchmark package, and one with no benchmarks. */
final class TestSuites {
    private TestSuites() {
    }

    static Suites suites() {
        return new Suites(List.of(
                new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                        Map.of("size", List.of("16"))),
                new Suite("empty", "dev.offheap.cli.nothing", "a suite without benchmarks", Map.of())));
    }
}
