package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.offheap.cli.BenchCommand;
import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code offheap bench}: reports from unusual JMH JSON (NaN and infinite scores), charts of
 * classes that share a simple name, an output folder the results cannot be written to, and options
 * that mean nothing with {@code --report} or {@code --list}.
 */
class BenchReportEdgeTest {
    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
    }

    /** The CLI over the test-only TinyBench package (whose one parameter is {@code size}), as the end-to-end tests use it. */
    static Result run(String... args) {
        Suites suites = new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                Map.of("size", List.of("16")))));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(List.of(new BenchCommand(suites, BenchPlan::available)));
        int code = main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** One row of a JMH JSON file; a score of NaN or Infinity is written as JMH writes it, a string. */
    private static String row(String benchmark, String mode, String params, double score, String unit) {
        String s = Double.isFinite(score) ? Double.toString(score) : "\"" + score + "\"";
        return "{\"benchmark\": \"" + benchmark + "\", \"mode\": \"" + mode + "\", \"threads\": 1, \"forks\": 1, "
                + "\"params\": {" + params + "}, \"primaryMetric\": {\"score\": " + s
                + ", \"scoreError\": \"NaN\", \"scoreUnit\": \"" + unit + "\"}, \"secondaryMetrics\": {}}";
    }

    private static String line(String md, String start) {
        return md.lines().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + start + "' in\n" + md));
    }

    /**
     * JMH writes a score it could not compute as "NaN", and JmhResult reads it as NaN; the cache suite's
     * goal section formatted the NaN ratio with BenchReport.ratio, whose BigDecimal threw "Infinite or
     * NaN", so re-generating cache.md failed as a whole with that message. A NaN OHC variant also
     * poisoned the better-of-two (Math.max), and a NaN bandwidth was judged a failure.
     */
    @Test
    void aNaNScoreInTheCacheSuiteIsNotMeasuredAndTheReportIsStillWritten() throws Exception {
        String p = "dev.offheap.bench.cache.";
        String small = "\"workload\": \"1000x100\"";
        String large = "\"workload\": \"10x100000\"";
        List<String> rows = List.of(
                row(p + "CacheGetBenchmark.ohcLru", "thrpt", small, Double.NaN, "ops/s"),
                row(p + "CacheGetBenchmark.ohcTinyLfu", "thrpt", small, 150, "ops/s"),
                row(p + "CacheGetBenchmark.offheapGet", "thrpt", small, Double.NaN, "ops/s"),
                row(p + "CacheGetBenchmark.offheapRead", "thrpt", small, 300, "ops/s"),
                row(p + "CacheBandwidthBenchmark.offheapGet", "thrpt", large, Double.NaN, "ops/s"),
                row(p + "CacheBandwidthBenchmark.segmentToArray", "thrpt", large, 1000, "ops/s"));
        Path json = dir.resolve("cache.json");
        Files.writeString(json, "[" + String.join(",\n", rows) + "]");

        List<Path> files = assertTimeoutPreemptively(Duration.ofMinutes(1),
                () -> BenchCommand.writeReport(json, dir, new PrintStream(new ByteArrayOutputStream())));

        assertThat(files).contains(dir.resolve("cache.md"));
        String md = Files.readString(dir.resolve("cache.md"));
        assertThat(line(md, "| throughput ≥ 2x OHC | get (`offheapGet`), 100 B values, 1000 keys, 1 thread"))
                .endsWith("| not measured |");
        // the OHC variant without a score does not poison the other's ratio, but it might be the
        // faster, so beating the measured one does not pass
        assertThat(line(md, "| throughput ≥ 2x OHC | get (`offheapRead`), 100 B values, 1000 keys, 1 thread"))
                .contains("2.00x (300 vs 150 ops/s; OHC LRU not measured)").endsWith("| not measured |");
        assertThat(line(md, "| copying gets bandwidth-bound | `offheapGet` vs `segmentToArray`"))
                .endsWith("| not measured |");
    }

    /**
     * "GC time ≥ 5x lower than Caffeine" when Caffeine collected nothing but the cache spent time in GC:
     * the goal cannot be met, yet the row said "not measured ... (no GC time to compare)", the verdict
     * meant for no collection on either side.
     */
    @Test
    void gcTimeWhereOnlyTheCacheCollectedIsAFailNotUnmeasured() {
        String p = "dev.offheap.bench.cache.CacheMixBenchmark.";
        List<JmhResult> results = new ArrayList<>();
        for (String method : List.of("caffeine", "offheapGet")) {
            double ms = method.equals("caffeine") ? 0 : 40;
            results.add(new JmhResult(p + method, "thrpt", 1, 1, Map.of("workload", "10x100000"), 100, Double.NaN,
                    "ops/s", Map.of("gc.count", new JmhResult.Metric(ms > 0 ? 3 : 0, Double.NaN, "counts"),
                            "gc.time", new JmhResult.Metric(ms, Double.NaN, "ms")), Map.of()));
        }

        String md = new CacheGoals().apply(results);

        assertThat(line(md, "| GC time ≥ 5x lower than Caffeine | 90/10 mix, `offheapGet`, 100 KB values, 10 keys"))
                .contains("40.0 ms in 3 collections vs Caffeine's 0 ms in 0 collections").endsWith("| **fail** |");
    }

    /** JmhResult reads "Infinity" scores; a ratio of two of them is NaN, and the table threw formatting it. */
    @Test
    void infiniteScoresRenderWithoutARatioInsteadOfThrowing() {
        List<JmhResult> results = List.of(
                new JmhResult("p.Bench.base", "avgt", 1, 1, Map.of(), Double.POSITIVE_INFINITY, Double.NaN, "ns/op",
                        Map.of(), Map.of()),
                new JmhResult("p.Bench.other", "avgt", 1, 1, Map.of(), Double.POSITIVE_INFINITY, Double.NaN, "ns/op",
                        Map.of(), Map.of()));
        BenchReport report = new BenchReport("s", results, RunInfo.unknown(), c -> Optional.of("base"));

        assertThat(report.tables().getFirst().rows()).allSatisfy(r -> assertThat(r.ratio()).isEmpty());
        assertThat(report.markdown()).contains("| other | ∞ |  | ns/op |  |");
        assertThat(BenchReport.ratio(Double.NaN)).isEmpty();
    }

    /**
     * Charts are named {@code <suite>-<simple name>}, with the mode added on a clash; a third table of
     * the same simple name (nested {@code TwoThreads} classes of three benchmarks) clashed again and
     * overwrote the second's chart, and the list of written files named one file twice.
     */
    @Test
    void chartsOfClassesSharingASimpleNameDoNotOverwriteEachOther() throws Exception {
        List<JmhResult> results = new ArrayList<>();
        for (String outer : List.of("ABenchmark", "BBenchmark", "CBenchmark")) {
            for (String method : List.of("one", "two")) {
                results.add(new JmhResult("p." + outer + ".TwoThreads." + method, "avgt", 2, 1, Map.of(),
                        method.equals("one") ? 10 : 20, Double.NaN, "ns/op", Map.of(), Map.of()));
            }
        }
        List<ResultTable> tables = ResultTable.of(results, c -> Optional.empty());
        assertThat(tables).hasSize(3);

        List<Path> files = BenchCharts.write("s", tables, dir);

        assertThat(files).hasSize(3).doesNotHaveDuplicates();
        assertThat(files).allSatisfy(f -> assertThat(f).isNotEmptyFile());
    }

    /**
     * With {@code <suite>.json} impossible to write (here a directory of that name is in the way; an
     * unwritable folder is the same for anyone but root), the run measured everything and then died
     * in JMH's writer with an IllegalStateException out of Main, losing the results. It should fail
     * before running anything, with exit code 1 and the path.
     */
    @Test
    void anOutputFileThatCannotBeWrittenFailsBeforeRunningWithExitCode1() throws Exception {
        Path out = dir.resolve("out");
        Files.createDirectories(out.resolve("tiny.json"));

        Result r = assertTimeoutPreemptively(Duration.ofMinutes(3),
                () -> run("bench", "tiny", "--smoke", "--out", out.toString()));

        assertThat(r.code()).as(r.err()).isEqualTo(Main.FAILED);
        assertThat(r.err()).contains("tiny.json");
        assertThat(out.resolve("tiny.md")).doesNotExist();
    }

    /**
     * {@code --report} re-generates a report and {@code --list} lists suites; options that only shape a
     * run (a filter, parameters, threads, a mode) were accepted and silently ignored, so
     * {@code --report x.json --include Foo} wrote the whole report with exit code 0.
     */
    @ParameterizedTest
    @ValueSource(strings = {"--include=sumArray", "--param=size=16", "--threads=2", "--forks=1", "--prof=gc",
        "--full", "--dry-run"})
    void runOptionsWithReportOrListAreUsageErrors(String option) throws Exception {
        Path json = dir.resolve("tiny.json");
        Files.writeString(json, "[" + row("dev.offheap.cli.testbench.TinyBench.sumArray", "avgt",
                "\"size\": \"16\"", 10, "ns/op") + "]");

        Result report = run("bench", "--report", json.toString(), option);
        assertThat(report.code()).as(report.err()).isEqualTo(Main.USAGE);
        assertThat(report.err()).contains(option.contains("=") ? option.substring(0, option.indexOf('=')) : option);
        assertThat(dir.resolve("tiny.md")).doesNotExist();

        Result list = run("bench", "--list", option);
        assertThat(list.code()).as(list.err()).isEqualTo(Main.USAGE);
    }
}
