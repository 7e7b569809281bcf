package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiny compare runs end to end: real variant JVMs, a few hundred requests each, a few seconds in all.
 */
class CompareEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void everyVariantRunsAndTheReportHasNumbersForEach() throws Exception {
        Path out = dir.resolve("out");
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--value-size", "4000", "--max-entries", "50",
                "--threads", "2", "--requests", "400", "--warmup", "100", "--heap", "64m", "--db",
                dir.resolve("db").toString(), "--out", out.toString());
        assertThat(r.code()).as("stdout: %s%nstderr: %s", r.out(), r.err()).isZero();
        assertThat(r.out()).contains("created the offer database").contains("[1/4] 4,000 B, 50 entries, on-heap:")
                .contains("[2/4] 4,000 B, 50 entries, off-heap:").contains("[3/4] 4,000 B, 50 entries, off-heap-copy:")
                .contains("[4/4] 4,000 B, 50 entries, ohc:")
                .containsPattern("item size +entries +variant +GC cycles +GC time +GC CPU +p50 +p99 +throughput +heap peak "
                        + "+native")
                .doesNotContain("FAILED");

        Object json = Json.parse(Files.readString(out.resolve("results.json")));
        List<?> results = (List<?>) ((Map<?, ?>) json).get("results");
        assertThat(results).hasSize(4);
        assertThat(results.stream().map(o -> (Object) ((Map<?, ?>) o).get("variant")).toList()).containsExactly("on-heap",
                "off-heap", "off-heap-copy", "ohc");
        assertThat(results).allSatisfy(o -> assertThat(((Map<?, ?>) o).get("heapBytes")).isEqualTo((double) (64L << 20)));
        for (Object o : results) {
            VariantResult v = VariantResult.fromMap((Map<?, ?>) o);
            assertThat(v.ok()).as(v.variant() + ": " + v.failure()).isTrue();
            assertThat(v.requests()).isEqualTo(400);
            assertThat(v.throughput()).isPositive();
            assertThat(v.p50Micros()).isPositive().isLessThanOrEqualTo(v.p99Micros());
            assertThat(v.p99Micros()).isLessThanOrEqualTo(v.p999Micros());
            assertThat(v.p999Micros()).isLessThanOrEqualTo(v.maxMicros());
            assertThat(v.gcCycles()).isNotNegative();
            assertThat(v.gcTimeMillis()).isNotNegative();
            assertThat(v.hitRatio()).isBetween(0.0, 1.0);
            assertThat(v.entries()).isBetween(1L, 100L);
            assertThat(v.heapPeakBytes()).isPositive();
            assertThat(v.heapLiveBytes()).isPositive();
            assertThat(v.heapMaxBytes()).isEqualTo(64L << 20);
            assertThat(v.cpuSeconds()).isPositive();
            assertThat(v.gcCpuSeconds()).isNotNegative().isLessThanOrEqualTo(v.cpuSeconds() + 0.02);
            assertThat(v.othersCpuShare()).isBetween(0.0, 1.0);
            assertThat(v.pauseCount()).isNotNegative();
            assertThat(v.store()).contains("H2 database");
            if (v.variant().equals("on-heap")) {
                assertThat(v.cacheNativeBytes()).isZero();
            } else {
                assertThat(v.cacheNativeBytes()).as(v.variant()).isGreaterThan(4000L * v.entries());
            }
        }
        String md = Files.readString(out.resolve("report.md"));
        for (String variant : List.of("on-heap", "off-heap", "off-heap-copy", "ohc")) {
            assertThat(md).containsPattern("\\| 4,000 B \\| 50 \\| " + variant + " \\| \\d+ \\| \\d+\\.\\d{3} s \\| "
                    + "(\\d+\\.\\d{2} s|n/a) \\| [\\d.]+ (us|ms) "
                    + "\\| [\\d.]+ (us|ms) \\| [\\d,]+ rps \\|");
        }
        assertThat(md).contains("off-heap vs on-heap: GC cycles").contains("off-heap-copy vs on-heap: GC cycles").contains("## The seed's numbers")
                .containsPattern("\\| other processes \\| used up to \\d+% of the machine's \\d+ cores");
        for (String png : List.of("compare-throughput.png", "compare-p99.png", "compare-gc-time.png")) {
            assertThat(Files.readAllBytes(out.resolve(png))).hasSizeGreaterThan(1000).startsWith(0x89, 'P', 'N', 'G');
        }
        assertThat(out.resolve("logs").resolve("4000-50-ohc.log")).exists();
    }

    @Test
    void aVariantThatRunsOutOfMemoryIsShownAsFailedAndTheOthersStillFinish() throws Exception {
        Path out = dir.resolve("out");
        // on-heap with 24 MiB of heap cannot hold 100 values of 1 MiB: its JVM runs out of memory and exits
        CompareCommand command = new CompareCommand(v -> v == Variant.ON_HEAP ? List.of("-Xmx24m", "-Xms24m") : List.of());
        CliRun r = CliRun.of(command, "compare", "--variants", "on-heap,ohc", "--value-size", "1048576",
                "--max-entries", "100", "--threads", "2", "--requests", "300", "--warmup", "0", "--heap", "256m",
                "--loader", "memory", "--latency", "0us", "--out", out.toString());
        assertThat(r.code()).as("stdout: %s%nstderr: %s", r.out(), r.err()).isEqualTo(1);
        assertThat(r.err()).contains("1 of 2 variant runs failed");
        assertThat(r.out()).containsPattern("on-heap: .*FAILED after [\\d.]+ s: out of memory: java.lang.OutOfMemoryError")
                .containsPattern("ohc: .*done in");
        String md = Files.readString(out.resolve("report.md"));
        assertThat(md).contains("| on-heap | **failed**: out of memory: java.lang.OutOfMemoryError: Java heap space")
                .containsPattern("\\| 1,048,576 B \\| 100 \\| ohc \\| \\d+ \\|");
        Map<?, ?> json = (Map<?, ?>) Json.parse(Files.readString(out.resolve("results.json")));
        List<?> results = (List<?>) json.get("results");
        assertThat(VariantResult.fromMap((Map<?, ?>) results.get(0)).failure()).startsWith("out of memory");
        assertThat(VariantResult.fromMap((Map<?, ?>) results.get(1)).ok()).isTrue();
    }

    @Test
    void collectorsNativeMemoryTrackingAndPausesAreMeasured() throws Exception {
        for (String gc : List.of("g1", "parallel", "zgc")) {
            Path out = dir.resolve(gc);
            // 1 MiB values through a 128 MiB heap: the measured phase allocates hundreds of MiB, so collections run
            CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "on-heap", "--gc", gc, "--nmt",
                    "--value-size", "1m", "--max-entries", "20", "--threads", "2", "--requests", "400", "--warmup", "50",
                    "--heap", "128m", "--loader", "memory", "--latency", "0us", "--out", out.toString());
            assertThat(r.code()).as("%s: %s%n%s", gc, r.out(), r.err()).isZero();
            Map<?, ?> json = (Map<?, ?>) Json.parse(Files.readString(out.resolve("results.json")));
            assertThat(((Map<?, ?>) json.get("settings")).get("collector")).isEqualTo(gc);
            VariantResult v = VariantResult.fromMap((Map<?, ?>) ((List<?>) json.get("results")).getFirst());
            assertThat(v.collectors()).as(gc).contains(switch (gc) {
                case "g1" -> "G1 Young Generation";
                case "parallel" -> "PS Scavenge";
                default -> "ZGC";
            });
            assertThat(v.gcCycles()).as(gc).isPositive();
            assertThat(v.pauseCount()).as(gc + ": JFR saw the pauses").isPositive();
            assertThat(v.pauseMaxMillis()).as(gc).isPositive().isLessThanOrEqualTo(v.pauseTotalMillis());
            assertThat(v.heapAfterGcBytes()).as(gc).isNotNegative().isLessThanOrEqualTo(v.heapPeakBytes());
            assertThat(v.nmtCommittedBytes()).as(gc + ": NMT total").isGreaterThan(v.heapLiveBytes());
            assertThat(v.rssPeakBytes()).as(gc).isPositive();
            assertThat(v.store()).startsWith("in-memory loader");
        }
    }

    @Test
    void aVariantPastItsTimeoutIsKilledAndShownAsTimedOut() throws Exception {
        Path out = dir.resolve("out");
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "on-heap", "--timeout", "200ms",
                "--value-size", "100", "--max-entries", "10", "--threads", "1", "--duration", "30s", "--loader", "memory",
                "--heap", "64m", "--out", out.toString());
        assertThat(r.code()).as(r.out()).isEqualTo(1);
        assertThat(r.out()).containsPattern("on-heap: .*FAILED after [\\d.]+ s: timed out after 200ms and was killed");
        assertThat(Files.readString(out.resolve("report.md"))).contains("| on-heap | **failed**: timed out after 200ms");
    }

    @Test
    void failureReasonsSayWhatHappened() {
        assertThat(VariantLauncher.failureReason(3, List.of("x", "Terminating due to java.lang.OutOfMemoryError: Java heap space"),
                null)).isEqualTo("out of memory: java.lang.OutOfMemoryError: Java heap space (exit code 3)");
        assertThat(VariantLauncher.failureReason(134, List.of("#  SIGSEGV (0xb)"), Path.of("/tmp/hs_err.log")))
                .isEqualTo("crashed: the JVM died (killed by signal 6); crash report /tmp/hs_err.log");
        assertThat(VariantLauncher.failureReason(137, List.of(), null)).isEqualTo("crashed: the JVM died (killed by signal 9)");
        assertThat(VariantLauncher.failureReason(1, List.of("offheap compare worker failed: java.lang.IllegalStateException: x",
                "\tat a.b"), null)).isEqualTo("the run threw java.lang.IllegalStateException: x");
        assertThat(VariantLauncher.failureReason(1, List.of("Error: Could not find or load main class x"), null))
                .startsWith("its JVM did not start: Error: Could not find");
        assertThat(VariantLauncher.failureReason(5, List.of("something", "last words", ""), null))
                .isEqualTo("failed with exit code 5: last words");
    }

    @Test
    void aMeasuredPhaseEndsByElapsedTimeEvenWhenNanoTimePlusTheDurationOverflows() {
        long start = Long.MAX_VALUE - 100; // nanoTime() has an arbitrary origin: it may be this close to wrapping
        long nanos = java.time.Duration.ofDays(365).toNanos();
        assertThat(CompareWorker.phaseOver(start, start + 50, nanos)).as("start + nanos wraps; 50ns have passed").isFalse();
        assertThat(CompareWorker.phaseOver(start, start + 500, nanos)).as("now itself has wrapped").isFalse();
        assertThat(CompareWorker.phaseOver(start, start + nanos, nanos)).isTrue();
        assertThat(CompareWorker.phaseOver(start, start + nanos - 1, nanos)).isFalse();
        assertThat(CompareWorker.phaseOver(start, start + 1000, 0)).as("0: a phase counted in requests").isFalse();
    }

    @Test
    void theReportSaysWhenTheMachineWasBusy() throws Exception {
        dev.offheap.cli.bench.RunInfo machine = new dev.offheap.cli.bench.RunInfo("offheap compare", "today", "cpu", 2,
                "8 GiB", "Linux", "JDK 25", "compare");
        for (double others : new double[] {0.02, 0.6}) {
            VariantResult r = new VariantResult("on-heap", 100, 5, null, 10, 1.5, 6.6, 3, 12.5, 4, 2.25, 1.0, 100, 90, 80,
                    1000, 0, -1, 5000, 1.5, 2.5, 3.5, 4.5, 0.5, 5, 0.75, 0.25, others, "G1 Young Generation", "Caffeine",
                    "memory", 2.0);
            VariantResult offHeap = new VariantResult("off-heap", 100, 5, null, 10, 1.5, 6.6, 3, 12.5, 4, 2.25, 1.0, 100,
                    90, 80, 1000, 0, -1, 5000, 1.5, 2.5, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 0.02, "G1 Young Generation",
                    "offheap-cache", "memory", 2.0);
            CompareReport report = new CompareReport(CompareOptions.parse(List.of()), machine, "memory",
                    List.of(r, offHeap), List.of());
            assertThat(report.busy()).isEqualTo(others > 0.1);
            assertThat(report.markdown()).contains(String.format(java.util.Locale.ROOT,
                    "| other processes | used up to %.0f%% of the machine's 2 cores", 100 * others));
            assertThat(report.markdown()).contains("| JVM per variant | `-Xmx1024m -Xms1024m -XX:+UseG1GC");
            assertThat(report.ratioLines()).hasSize(1);
            if (others > 0.1) {
                assertThat(report.markdown()).contains("**The machine was busy**");
                assertThat(report.ratioLines().getFirst()).contains("; NOISY: other processes used 60% (on-heap) and 2% "
                        + "(off-heap) of the CPU");
            } else {
                assertThat(report.markdown()).doesNotContain("busy");
                assertThat(report.ratioLines().getFirst()).doesNotContain("NOISY").endsWith("throughput 1.00x");
            }
        }
    }

    /** A result with the numbers the verdict reads: GC time (ms), throughput (rps) and p99 (us). */
    private static VariantResult result(String variant, double gcMillis, double throughput, double p99) {
        return result(variant, gcMillis, throughput, p99, 3.5);
    }

    /** The same with a p99.9 (us) of its own. */
    private static VariantResult result(String variant, double gcMillis, double throughput, double p99, double p999) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, throughput, 3, gcMillis, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, p99, p999, 4.5, 0.5, 5, 0.75, 0.25, 0.0, "G1 Young Generation", "cache", "memory",
                2.0);
    }

    @Test
    void aCycleRatioOverASmallCountSaysHowFarOneCycleMovesIt() {
        assertThat(CompareReport.fewerCycles(1143, 2)).isEqualTo("571.50x fewer (2 against 1143: a count this small "
                + "sets the ratio's precision; one cycle more or fewer gives 381.00x fewer or 1143.00x fewer)");
        assertThat(CompareReport.fewerCycles(900, 1)).endsWith("one cycle more or fewer gives 450.00x fewer or none)");
        // from ten cycles on, one more or fewer moves the ratio by 10% or less: the plain ratio
        assertThat(CompareReport.fewerCycles(1000, 10)).isEqualTo("100.00x fewer");
        assertThat(CompareReport.fewerCycles(1000, 0)).isEqualTo("none (on-heap 1000)");
        // a variant with more cycles than on-heap, and ratios near 1: the bounds as the ratio is written
        // (they were rounded to whole numbers and always computed as "fewer": "1x or 1x", "1x or 2x")
        assertThat(CompareReport.fewerCycles(5, 8)).isEqualTo("1.60x more (8 against 5: a count this small sets the"
                + " ratio's precision; one cycle more or fewer gives 1.80x more or 1.40x more)");
        assertThat(CompareReport.fewerCycles(5, 4)).endsWith("gives 1.00x fewer or 1.67x fewer)");
    }

    @Test
    void latenciesBelowAMillisecondKeepThreeSignificantDigits() {
        // the worker's histograms began at 1,000 ns, which HdrHistogram rounds down to 512: every value below
        // about 1 ms fell in a 512 ns bucket, and a 3.6 us median read as 4.095 us
        org.HdrHistogram.Histogram h = CompareWorker.latencyHistogram();
        for (int i = 0; i < 1000; i++) {
            h.recordValue(3_600);
        }
        assertThat(h.getValueAtPercentile(50) / 1e3).isCloseTo(3.6, org.assertj.core.data.Offset.offset(0.0036));
        h.recordValue(700_000);
        assertThat(h.getMaxValue() / 1e3).isCloseTo(700, org.assertj.core.data.Offset.offset(0.7));
    }

    @Test
    void theVerdictSaysWhetherOffHeapPaysAndWhatItCosts() throws Exception {
        VariantResult onHeap = result("on-heap", 1000, 40_000, 500);
        assertThat(CompareReport.verdict(onHeap, result("off-heap", 10, 50_000, 300)))
                .isEqualTo("pays (100x less GC time, 1.25x the throughput, p99 0.60x on-heap's)");
        assertThat(CompareReport.verdict(onHeap, result("off-heap", 0, 40_000, 520)))
                .isEqualTo("pays (no GC time at all, against on-heap's 1.000 s)");
        assertThat(CompareReport.verdict(onHeap, result("off-heap", 100, 30_000, 2000)))
                .isEqualTo("pays for the collector (10x less GC time) but costs throughput (0.75x on-heap's) and "
                        + "latency (p99 4.00x on-heap's)");
        // a worse p99 with a better p99.9 says so; a p99.9 that is not better by the same margin says nothing
        VariantResult pausingOnHeap = result("on-heap", 1000, 40_000, 300, 40_000);
        assertThat(CompareReport.verdict(pausingOnHeap, result("off-heap", 5, 80_000, 2000, 8000)))
                .isEqualTo("pays for the collector (200x less GC time, 2.00x the throughput) but costs latency (p99 "
                        + "6.67x on-heap's; its p99.9 is 0.20x on-heap's, where on-heap's GC pauses land)");
        assertThat(CompareReport.verdict(pausingOnHeap, result("off-heap", 5, 80_000, 2000, 37_000)))
                .endsWith("but costs latency (p99 6.67x on-heap's)");
        assertThat(CompareReport.verdict(onHeap, result("off-heap", 350, 40_000, 500)))
                .isEqualTo("pays (2.86x less GC time)");
        assertThat(CompareReport.verdict(onHeap, result("ohc", 600, 40_800, 500)))
                .isEqualTo("does not pay: GC time only 1.67x lower than on-heap's (on-heap spent 10% of the run in GC "
                        + "pauses), throughput 1.02x, p99 1.00x");
        assertThat(CompareReport.verdict(onHeap, result("ohc", 1500, 41_000, 500))).startsWith("does not pay: GC time 1.50x higher");
        assertThat(CompareReport.verdict(result("on-heap", 0, 40_000, 500), result("off-heap", 0, 40_000, 500)))
                .startsWith("does not pay: GC time no lower than on-heap's (on-heap spent 0% of the run");
        dev.offheap.cli.bench.RunInfo machine = new dev.offheap.cli.bench.RunInfo("offheap compare", "today", "cpu", 2,
                "8 GiB", "Linux", "JDK 25", "compare");
        CompareReport report = new CompareReport(CompareOptions.parse(List.of()), machine, "memory",
                List.of(onHeap, result("off-heap", 10, 50_000, 300), VariantResult.failed("ohc", 100, 5, "crashed", 1.0)),
                List.of());
        assertThat(report.verdictLines()).containsExactly(
                "100 B x 5 entries, off-heap: pays (100x less GC time, 1.25x the throughput, p99 0.60x on-heap's)",
                "100 B x 5 entries, ohc: no verdict: it failed (crashed)");
        assertThat(report.markdown()).contains("**Does off-heap pay?**")
                .contains("- 100 B x 5 entries, off-heap: pays (100x less GC time");
    }

    @Test
    void anOpenLoopKeepsToItsScheduleAndTimesRequestsFromIt() throws Exception {
        // 600 requests at 1,500 a second take 0.4 s whatever the service's speed; a closed loop runs them
        // as fast as it can, far above that rate with a 20-microsecond loader
        Path out = dir.resolve("open");
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "off-heap", "--value-size", "1000",
                "--max-entries", "20", "--threads", "3", "--requests", "600", "--rate", "1500", "--warmup", "50",
                "--heap", "64m", "--loader", "memory", "--latency", "20us", "--out", out.toString());
        assertThat(r.code()).as("stdout: %s%nstderr: %s", r.out(), r.err()).isZero();
        assertThat(r.out()).contains("600 measured requests at 1,500 requests/s (open loop)");
        VariantResult v = VariantResult.fromMap((Map<?, ?>) ((List<?>) ((Map<?, ?>) Json.parse(
                Files.readString(out.resolve("results.json")))).get("results")).getFirst());
        assertThat(v.ok()).as(v.failure()).isTrue();
        assertThat(v.requests()).isEqualTo(600);
        assertThat(v.seconds()).as("the schedule's length, 600 / 1,500 s").isGreaterThanOrEqualTo(0.39);
        assertThat(v.throughput()).isLessThanOrEqualTo(1500 * 1.03);
        assertThat(v.p50Micros()).isPositive().isLessThanOrEqualTo(v.p99Micros());
        assertThat(Files.readString(out.resolve("report.md")))
                .contains("open loop: 1,500 requests/s scheduled, each timed from its scheduled start");
    }

    @Test
    void theReportNamesTheVariantsThatFellBehindAnOpenLoopsRate() throws Exception {
        dev.offheap.cli.bench.RunInfo machine = new dev.offheap.cli.bench.RunInfo("offheap compare", "today", "cpu", 2,
                "8 GiB", "Linux", "JDK 25", "compare");
        List<VariantResult> results = List.of(result("on-heap", 1000, 30_000, 900), result("off-heap", 10, 39_500, 300));
        CompareReport open = new CompareReport(CompareOptions.parse(List.of("--rate", "40000")), machine, "memory",
                results, List.of());
        assertThat(open.fellBehindLines()).containsExactly("100 B x 5 entries, on-heap: 30,000 rps of the 40,000 rps scheduled");
        assertThat(open.markdown()).contains("Below the scheduled rate").contains("open loop: 40,000 requests/s scheduled");
        CompareReport closed = new CompareReport(CompareOptions.parse(List.of()), machine, "memory", results, List.of());
        assertThat(closed.fellBehindLines()).isEmpty();
        assertThat(closed.markdown()).doesNotContain("Below the scheduled rate").contains("closed loop: each thread sends");
    }

    @Test
    void resultsSurviveJson() {
        VariantResult r = new VariantResult("ohc", 100, 5, null, 10, 1.5, 6.6, 3, 12.5, 4, 2.25, 1.0, 100, 90, 80, 1000,
                50, -1, 5000, 1.5, 2.5, 3.5, 4.5, 0.5, 5, 0.75, 0.25, 1.5, "G1 Young Generation", "OHC", "memory", 2.0);
        Map<?, ?> parsed = (Map<?, ?>) Json.parse(JsonWriter.write(r.toMap()));
        assertThat(VariantResult.fromMap(parsed)).isEqualTo(r);
        VariantResult failed = VariantResult.failed("on-heap", 100, 5, "crashed", 1.0);
        assertThat(VariantResult.fromMap((Map<?, ?>) Json.parse(JsonWriter.write(failed.toMap())))).isEqualTo(failed);
    }
}
