package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The segments suite judges the access goals as the issue states them, as the other suites judge theirs: the
 * library's way against the Java array of each access pattern, the helpers on call sites that saw every kind of
 * segment against the same helper where one kind was seen (at the same kind and region length, named by class
 * since the methods share a name), and Segments.copy and fill against the best bandwidth of the run. Its report
 * had no goals section: the verdicts were only in prose.
 */
class TheSegmentsSuiteJudgesIssueTwosGoalsTest {
    private static final String PACKAGE = "dev.offheap.bench.segments.";

    private static JmhResult row(String benchmark, String method, Map<String, String> params, double score, String unit) {
        return new JmhResult(PACKAGE + benchmark + "." + method, "avgt", 1, 1, params, score, 0.01, unit, Map.of(),
                Map.of());
    }

    private static Goal goal(String startingWith) {
        return Suites.standard().find("segments").orElseThrow().goals().stream()
                .filter(g -> g.statement().startsWith(startingWith)).findFirst().orElseThrow();
    }

    @Test
    void theLibrarysWayIsJudgedAgainstTheArrayOfItsPatternAtEverySize() {
        List<JmhResult> results = List.of(
                row("ReadIntsBenchmark", "intArray", Map.of("bytes", "32768"), 1.00, "us/op"),
                row("ReadIntsBenchmark", "library", Map.of("bytes", "32768"), 1.10, "us/op"),
                row("ReadIntsBenchmark", "intArray", Map.of("bytes", "1073741824"), 100, "us/op"),
                row("ReadIntsBenchmark", "library", Map.of("bytes", "1073741824"), 111, "us/op"),
                row("ReadIntsBenchmark", "nativeSegment", Map.of("bytes", "32768"), 0.5, "us/op"));
        List<Check> checks = goal("The library's way within 1.10x of intArray[]: ReadInts").check(results);
        assertThat(checks).extracting(Check::verdict).containsExactly(Verdict.PASS, Verdict.FAIL);
        assertThat(checks.getFirst().detail()).isEqualTo("library 1.10 us/op vs intArray 1.00 us/op");
    }

    @Test
    void aHelperOnMixedCallSitesIsJudgedAgainstTheSameHelperOnOneKind() {
        Map<String, String> nativeShort = Map.of("kind", "native", "len", "16");
        Map<String, String> heapShort = Map.of("kind", "heap", "len", "16");
        List<JmhResult> results = List.of(
                row("ExclusiveKindBenchmark", "swap", nativeShort, 10, "us/op"),
                row("MixedKindBenchmark", "swap", nativeShort, 12, "us/op"),
                row("ExclusiveKindBenchmark", "swap", heapShort, 10, "us/op"),
                row("MixedKindBenchmark", "swap", heapShort, 50, "us/op"));
        List<Check> checks = goal("Segments.swap with heap, native and mapped").check(results);
        assertThat(checks).extracting(Check::verdict).containsExactlyInAnyOrder(Verdict.PASS, Verdict.FAIL);
        assertThat(checks).extracting(Check::detail).contains(
                "MixedKindBenchmark.swap 12.0 us/op vs ExclusiveKindBenchmark.swap 10.0 us/op",
                "MixedKindBenchmark.swap 50.0 us/op vs ExclusiveKindBenchmark.swap 10.0 us/op");
    }

    @Test
    void bulkCopyIsJudgedAgainstTheBestBandwidthOfTheRun() {
        List<JmhResult> results = List.of(
                row("BulkCopyBenchmark", "memcpy", Map.of(), 20, "ms/op"),
                row("BulkCopyBenchmark", "segmentCopy", Map.of(), 15, "ms/op"),
                row("BulkCopyBenchmark", "segmentsCopy", Map.of(), 16.5, "ms/op"));
        Check check = goal("Segments.copy at 90% or more").check(results).getFirst();
        assertThat(check.verdict()).as("15 / 16.5 = 0.909 of the best").isEqualTo(Verdict.PASS);
        assertThat(check.detail()).contains("vs segmentCopy 15.0 ms/op (best of memcpy, segmentCopy)");
        Check slower = goal("Segments.copy at 90% or more").check(List.of(results.get(0), results.get(1),
                row("BulkCopyBenchmark", "segmentsCopy", Map.of(), 17, "ms/op"))).getFirst();
        assertThat(slower.verdict()).as("15 / 17 = 0.88").isEqualTo(Verdict.FAIL);
    }
}
