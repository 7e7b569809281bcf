package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The markdown report, from the committed sample JMH JSON in the test resources. */
class BenchReportTest {
    @TempDir
    Path dir;

    Path json;

    @BeforeEach
    void copySample() throws Exception {
        json = dir.resolve("sample.json");
        for (String name : List.of("sample.json", "sample.run.properties")) {
            try (InputStream in = BenchReportTest.class.getResourceAsStream("/" + name)) {
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private BenchReport report() throws Exception {
        return new BenchReport("sample", JmhResult.read(json), RunInfo.readFor(json), Baselines.fromClassPath());
    }

    @Test
    void ratiosAreToTheBaselineAtTheSameParameters() throws Exception {
        List<ResultTable> tables = report().tables();
        assertThat(tables).extracting(ResultTable::simpleName)
                .containsExactly("TinyBench", "ThroughputSample", "NotOnClassPath");
        ResultTable tiny = tables.getFirst();
        assertThat(tiny.baseline()).contains("sumArray");
        // grouped by parameters, the baseline first in each group
        assertThat(tiny.rows()).extracting(r -> r.result().method() + "@" + r.result().paramsLabel())
                .containsExactly("sumArray@size=16", "sumSegment@size=16", "sumArray@size=4096", "sumSegment@size=4096");
        assertThat(tiny.rows()).extracting(r -> r.ratio().getAsDouble())
                .containsExactly(1.0, 2.5, 1.0, 0.5);
        assertThat(tiny.rows()).extracting(ResultTable.Row::baseline).containsExactly(true, false, true, false);

        ResultTable thrpt = tables.get(1);
        assertThat(thrpt.baseline()).contains("pooled");
        assertThat(thrpt.ratioMeaning()).isEqualTo("throughput ratio, higher is better");
        assertThat(thrpt.rows()).extracting(r -> r.result().method()).containsExactly("pooled", "arena");
        assertThat(thrpt.rows().get(1).ratio().getAsDouble()).isEqualTo(0.02);

        ResultTable unknown = tables.get(2);
        assertThat(unknown.baseline()).isEmpty();
        assertThat(unknown.rows()).extracting(ResultTable.Row::ratio).containsExactly(OptionalDouble.empty());
    }

    @Test
    void markdownHasRunDescriptionTablesAndSecondaryMetrics() throws Exception {
        String md = report().markdown();
        assertThat(md)
                .startsWith("# Benchmarks: sample\n")
                .contains("Produced by `bin/offheap bench sample --full` on 2025-11-21T12:00:00Z.")
                .contains("| Machine | Test CPU 9000, 2 cores, 7.8 GiB memory |")
                .contains("| OS | Debian GNU/Linux 12 (bookworm), Linux 6.1.0, amd64 |")
                .contains("| JDK | 25, OpenJDK 64-Bit Server VM 25+36-LTS, /usr/lib/jvm/temurin-25-jdk-amd64/bin/java |")
                .contains("| JMH | 1.37; mode full: 2 forks, 3 warmup × 1 s, 5 measurement × 1 s |")
                .contains("ratio to `sumArray`, time ratio, lower is better.")
                .contains("| sumArray (baseline) | size=16 | 10.0 | 0.5 | ns/op | 1.00 |")
                .contains("| sumSegment | size=16 | 25.0 | 1.0 | ns/op | 2.50 |")
                .contains("| sumArray (baseline) | size=4096 | 400 | 4 | ns/op | 1.00 |")
                .contains("| sumSegment | size=4096 | 200 | 2 | ns/op | 0.50 |")
                // secondary metrics: GC first, then @AuxCounters
                .contains("| variant | params | gc.alloc.rate.norm (B/op) | bytesRead (#) |")
                .contains("| sumSegment | size=16 | 24.0 ± 0.5 | 16.0 |")
                // throughput class: threads column, no params column
                .contains("ratio to `pooled`, throughput ratio, higher is better.")
                .contains("| variant | threads | score | ± error | unit | ratio |")
                .contains("| pooled (baseline) | 2 | 1,000 | 30 | ops/ms | 1.00 |")
                .contains("| arena | 2 | 20.0 | 1.5 | ops/ms | 0.02 |")
                // a class that cannot be loaded: no ratios, NaN error left empty
                .contains("no `@Baseline` method, so no ratios.")
                .contains("| run | 5.00 |  | us/op |  |");
    }

    @Test
    void goalsComeBeforeTheTablesWithAVerdictPerParameterSet() throws Exception {
        List<Goal> goals = List.of(
                Goal.faster("segment 2x faster than array", 2, Goal.Variant.of("TinyBench", "sumSegment"),
                        Goal.Variant.of("TinyBench", "sumArray")),
                Goal.atMostSlower("pooled at most 60x slower than arena", 60, Goal.Variant.of("ThroughputSample", "pooled"),
                        Goal.Variant.of("ThroughputSample", "arena")),
                Goal.valueAtMost("segment allocates at most 30 B/op", 30,
                        Goal.Variant.of("TinyBench", "sumSegment").metric("gc.alloc.rate.norm")),
                Goal.slowdown("array against segment", Goal.Variant.of("TinyBench", "sumArray"),
                        Goal.Variant.of("TinyBench", "sumSegment")),
                Goal.faster("missing 2x faster", 2, Goal.Variant.of("TinyBench", "sumNothing"),
                        Goal.Variant.of("TinyBench", "sumArray")));
        BenchReport report = new BenchReport("sample", JmhResult.read(json), RunInfo.readFor(json),
                Baselines.fromClassPath(), goals, null);
        assertThat(report.checks()).extracting(Goal.Check::verdict).containsExactly(
                Goal.Verdict.FAIL, Goal.Verdict.PASS, Goal.Verdict.PASS, Goal.Verdict.PASS, Goal.Verdict.PASS,
                Goal.Verdict.REPORTED,
                Goal.Verdict.REPORTED, Goal.Verdict.NOT_MEASURED);
        String md = report.markdown();
        assertThat(md.indexOf("## Goals")).isPositive().isLessThan(md.indexOf("## TinyBench"));
        assertThat(md)
                .contains("4 pass, 1 fail, 2 reported only, 1 not measured.")
                .contains("| goal | params | measured | target | result | from |")
                // 16 bytes: segment 25 ns against array 10 ns is a speedup of 0.40
                .contains("| segment 2x faster than array | size=16 | 0.40x | ≥ 2.00x | **FAIL** | "
                        + "sumSegment 25.0 ns/op vs sumArray 10.0 ns/op |")
                .contains("| segment 2x faster than array | size=4096 | 2.00x | ≥ 2.00x | pass | "
                        + "sumSegment 200 ns/op vs sumArray 400 ns/op |")
                // throughput: pooled does 1000 ops/ms, arena 20, so pooled takes 0.02 of arena's time
                .contains("| pooled at most 60x slower than arena |  | 0.02x | ≤ 60.0x | pass |")
                .contains("| segment allocates at most 30 B/op | size=16 | 24.0 | ≤ 30.0 | pass | "
                        + "sumSegment gc.alloc.rate.norm 24.0 |")
                .contains("| array against segment | size=4096 | 2.00x |  | reported |")
                .contains("| missing 2x faster |  | — | ≥ 2.00x | not measured | no result of TinyBench.sumNothing |");
        assertThat(new BenchReport("sample", JmhResult.read(json), RunInfo.readFor(json),
                Baselines.fromClassPath()).markdown()).doesNotContain("## Goals");
    }

    @Test
    void aBaselineLeftOutByTheFilterIsNamed() throws Exception {
        List<JmhResult> onlySegment = JmhResult.read(json).stream().filter(r -> r.method().equals("sumSegment")).toList();
        String md = new BenchReport("sample", onlySegment, RunInfo.readFor(json), Baselines.fromClassPath()).markdown();
        assertThat(md).contains("its baseline `sumArray` did not run (left out by --include?), so no ratios.");
    }

    @Test
    void withoutRunDescriptionTheReportSaysSo() throws Exception {
        Files.delete(dir.resolve("sample.run.properties"));
        String md = report().markdown();
        assertThat(md).contains("Produced by `(not recorded)`").contains("| Machine | (not recorded), (not recorded) memory |");
    }

    @Test
    void chartsOnePerClassWithMoreThanOneRow() throws Exception {
        List<Path> files = BenchCharts.write("sample", report().tables(), dir);
        assertThat(files).extracting(p -> p.getFileName().toString())
                .containsExactly("sample-TinyBench.png", "sample-ThroughputSample.png");
        for (Path f : files) {
            assertThat(Files.readAllBytes(f)).startsWith(0x89, 'P', 'N', 'G');
        }
    }

    @Test
    void ratiosSpanningMoreThanFiftyTimesAreDrawnOnALogAxis() throws Exception {
        List<JmhResult> results = JmhResult.read(json).stream()
                .map(r -> r.method().equals("arena") ? new JmhResult(r.benchmark(), r.mode(), r.threads(), r.forks(),
                        r.params(), 3.0, r.error(), r.unit(), r.secondary(), r.settings()) : r)
                .toList();
        ResultTable thrpt = ResultTable.of(results, Baselines.fromClassPath()).get(1);
        assertThat(thrpt.rows().get(1).ratio().getAsDouble()).isEqualTo(0.003);
        assertThat(BenchCharts.chart(thrpt).getStyler().isYAxisLogarithmic()).isTrue();
        assertThat(BenchCharts.write("log", List.of(thrpt), dir)).singleElement()
                .satisfies(p -> assertThat(p).isNotEmptyFile());
    }

    @Test
    void numbersKeepAboutThreeSignificantDigits() {
        assertThat(BenchReport.number(123456.7)).isEqualTo("123,457");
        assertThat(BenchReport.number(12.345)).isEqualTo("12.3");
        assertThat(BenchReport.number(1.2345)).isEqualTo("1.23");
        assertThat(BenchReport.number(0.012345)).isEqualTo("0.0123");
        assertThat(BenchReport.number(0)).isEqualTo("0");
        assertThat(BenchReport.number(Double.NaN)).isEmpty();
        assertThat(BenchReport.error(10.0, 0.5)).isEqualTo("0.5");
        assertThat(BenchReport.error(1234.0, 56.7)).isEqualTo("57");
        assertThat(BenchReport.error(5.0, 0.0001)).isEqualTo("0.000100");
        assertThat(BenchReport.error(5.0, Double.NaN)).isEmpty();
        assertThat(BenchReport.ratio(1)).isEqualTo("1.00");
        assertThat(BenchReport.ratio(31.42)).isEqualTo("31.4");
        assertThat(BenchReport.ratio(120.4)).isEqualTo("120");
        assertThat(BenchReport.ratio(0.0042)).isEqualTo("0.0042");
    }

    @Test
    void notJmhJsonIsAClearError() throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"benchmark\": 1}");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JmhResult.read(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.json").hasMessageContaining("not a JMH JSON result file");
    }
}
