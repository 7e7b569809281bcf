package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.UsageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parsing of {@code offheap compare}'s options, and every bad input's exit code 2. */
class CompareOptionsTest {
    @Test
    void defaultsAreTheSeedsScenario() throws UsageException {
        CompareOptions o = CompareOptions.parse(List.of());
        assertThat(o.valueSizes()).containsExactly(100_000);
        assertThat(o.maxEntries()).containsExactly(5_000);
        assertThat(o.variants()).containsExactly(Variant.ON_HEAP, Variant.OFF_HEAP, Variant.OFF_HEAP_COPY,
                Variant.OHC);
        assertThat(o.threads()).isEqualTo(10);
        assertThat(o.requests()).isEqualTo(CompareOptions.DEFAULT_REQUESTS);
        assertThat(o.duration()).isNull();
        assertThat(o.rate()).as("a closed loop, as the seed's load generator").isZero();
        assertThat(o.collector()).isEqualTo(CompareOptions.Collector.G1);
        assertThat(o.loader()).isEqualTo(Workload.Loader.DATABASE);
        assertThat(o.db()).isEqualTo(CompareOptions.defaultDb());
        // 1.5 x 500,000,000 bytes + 256 MiB, rounded up to 256 MiB
        assertThat(o.heapFor(100_000, 5_000)).isEqualTo(1024L << 20);
        assertThat(o.warmupRequests()).isEqualTo(CompareOptions.AUTO);
        Workload w = o.workload(Variant.OHC, 100_000, 5_000);
        assertThat(w.offers()).as("key space larger than the cache").isEqualTo(10_000);
        assertThat(w.warmupRequests()).as("4 x max entries").isEqualTo(20_000);
        assertThat(o.workload(Variant.OHC, 100_000, 15_000).warmupRequests()).isEqualTo(60_000);
    }

    @Test
    void listsSweepAndEveryOptionIsRead() throws UsageException {
        CompareOptions o = CompareOptions.parse(List.of("--value-size", "100000,200000,300000", "--max-entries=5000,10000",
                "--variants", "ohc,on-heap", "--threads", "4", "--duration", "30s", "--rate", "20000", "--warmup", "0", "--keys", "50000",
                "--heap", "2g", "--gc", "zgc", "--loader", "memory", "--latency", "1ms", "--out", "x", "--seed", "7",
                "--nmt", "--timeout", "2m", "--dry-run"));
        assertThat(o.valueSizes()).containsExactly(100_000, 200_000, 300_000);
        assertThat(o.maxEntries()).containsExactly(5_000, 10_000);
        assertThat(o.variants()).containsExactly(Variant.OHC, Variant.ON_HEAP);
        assertThat(o.threads()).isEqualTo(4);
        assertThat(o.requests()).isZero();
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.rate()).isEqualTo(20_000);
        assertThat(o.workload(Variant.OHC, 100_000, 5_000).rate()).isEqualTo(20_000);
        assertThat(o.warmupRequests()).isZero();
        assertThat(o.keys()).isEqualTo(50_000);
        assertThat(o.heapFor(100_000, 5_000)).isEqualTo(2L << 30);
        assertThat(o.heapFor(300_000, 10_000)).as("--heap holds for every setting").isEqualTo(2L << 30);
        assertThat(o.workload(Variant.ON_HEAP, 300_000, 10_000).warmupRequests()).isZero();
        assertThat(o.collector()).isEqualTo(CompareOptions.Collector.ZGC);
        assertThat(o.loader()).isEqualTo(Workload.Loader.MEMORY);
        assertThat(o.latency()).isEqualTo(Duration.ofMillis(1));
        assertThat(o.out()).isEqualTo(Path.of("x"));
        assertThat(o.seed()).isEqualTo(7);
        assertThat(o.nmt()).isTrue();
        assertThat(o.timeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(o.dryRun()).isTrue();
        assertThat(o.workload(Variant.OHC, 200_000, 10_000).offers()).isEqualTo(50_000);
    }

    @Test
    void autoHeapFollowsEachSettingsOnHeapCache() throws UsageException {
        assertThat(CompareOptions.autoHeap(1000, 10)).isEqualTo(512L << 20);
        // 300,000 x 15,000 = 4.5e9 bytes: x 1.5 + 256 MiB = 7,018,435,456, rounded up to 27 x 256 MiB
        assertThat(CompareOptions.autoHeap(300_000, 15_000)).isEqualTo(27L * (256L << 20));
        CompareOptions o = CompareOptions.parse(List.of("--value-size", "100000,300000", "--max-entries", "5000,15000",
                "--heap", "auto", "--warmup", "auto"));
        assertThat(o.heapFor(100_000, 5_000)).isEqualTo(1024L << 20);
        assertThat(o.heapFor(300_000, 15_000)).isEqualTo(27L * (256L << 20));
        // 100,000 x 15,000 = 1.5e9: x 1.5 + 256 MiB = 2,518,435,456, rounded up to 10 x 256 MiB
        assertThat(o.heapFor(100_000, 15_000)).isEqualTo(10L * (256L << 20));
        assertThat(o.warmupFor(15_000)).isEqualTo(60_000);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "--bogus;unknown option '--bogus'",
        "extra;unexpected argument 'extra'",
        "--value-size -5;--value-size: expected a size in bytes such as 100000, 64k or 2g, got '-5'",
        "--value-size=-5;--value-size: expected a size in bytes",
        "--value-size 0;--value-size: expected a size from 1 B",
        "--value-size 100000,,2;--value-size: empty item in the list",
        "--value-size 1000,1000;--value-size: the list [1000, 1000] names 1000 twice",
        "--value-size 1g;--value-size: expected a size from 1 B to 64.0 MiB",
        "--max-entries 0;--max-entries: expected a whole number from 1",
        "--max-entries abc;--max-entries: expected a whole number from 1 to 10000000, got 'abc'",
        "--threads 0;--threads: expected a whole number from 1 to 1024, got 0",
        "--threads=-3;--threads: expected a whole number from 1 to 1024, got -3",
        "--threads 5000;--threads: expected a whole number from 1 to 1024, got 5000",
        "--requests 0;--requests: expected a whole number from 1",
        "--requests 5;--requests 5 is fewer than --threads 10",
        "--requests 100 --duration 5s;--requests and --duration exclude each other",
        "--duration 0s;--duration: must be longer than 0",
        "--duration soon;--duration: expected a duration such as 200us",
        "--rate 0;--rate: expected a whole number from 1 to 100000000, got 0",
        "--rate 2.5k;--rate: expected a whole number from 1",
        "--rate 5;--rate 5 is below --threads 10: every thread needs at least one request per second",
        "--warmup=-1;--warmup: expected a whole number from 0",
        "--keys 0;--keys: expected a whole number from 1",
        "--heap 1m;--heap: expected a size from 16.0 MiB",
        "--heap lots;--heap: expected a size in bytes",
        // sizes too large for a long were called malformed ("expected a size in bytes such as 100000, 64k or 2g")
        "--value-size 99999999999999999999;--value-size: expected a size from 1 B to 64.0 MiB, got 99999999999999999999"
                + " (more bytes than a 64-bit count holds)",
        "--heap 99999999999g;--heap: expected a size from 16.0 MiB to 4.0 TiB, got 99999999999g (more bytes than a"
                + " 64-bit count holds)",
        "--value-size 1_000_000_000_000_000t;--value-size: expected a size from 1 B to 64.0 MiB, got 1_000_000_000_000_000t",
        "--gc cms;--gc: unknown collector 'cms' (collectors: g1, zgc, parallel)",
        "--variants on-heap,redis;--variants: unknown variant 'redis' (variants: on-heap, off-heap, off-heap-copy, ohc)",
        "--loader file;--loader: unknown loader 'file'",
        "--latency 200us;--latency applies to --loader memory only",
        "--loader memory --db /tmp/x;--db applies to --loader db only",
        "--nmt=yes;--nmt takes no value",
        "--out;--out needs a value",
        "--out=;--out needs a non-empty value",
        "--seed x;--seed: expected a whole number, got 'x'",
        "--timeout 0ms;--timeout: must be longer than 0",
        // accepted before: the parent then filled a database of that many 2 KiB rows until the disk was full
        "--keys 100000000000;the offer database would hold 100,000,000,000 offers",
        "--keys 5000001;the offer database would hold 5,000,001 offers",
    })
    void badInputIsAUsageErrorWithExitCode2(String line, String message) {
        assertUsageError(line, message, false);
    }

    /**
     * Lines that were accepted before: a repeated option or alias (the last one won), and durations past
     * the cap (2562047h is just below Long.MAX_VALUE ns: it overflowed the worker's nanoTime() + nanos
     * deadline). With --dry-run, so that a parser that accepts them runs nothing and the test fails fast.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "--threads 2 --threads 4;--threads given twice",
        "--out a --out=b;--out given twice",
        "--requests 100 -n 200;--requests given twice (-n is --requests)",
        "--variants on-heap --variant ohc;--variants given twice (--variant is --variants)",
        "-s 1000 --value-sizes 2000;--value-size given twice (-s and --value-sizes are --value-size)",
        "-n 100 --requests 200;--requests given twice (-n is --requests)",
        "--duration 5s -d 6s;--duration given twice (-d is --duration)",
        "--duration 2562047h;--duration: at most 365 days, got '2562047h'",
        "--duration 525601m;--duration: at most 365 days, got '525601m'",
        "--timeout 9000h;--timeout: at most 365 days, got '9000h'",
        "--loader memory --latency 9000h;--latency: at most 365 days, got '9000h'",
    })
    void repeatedOptionsAndDurationsPastTheCapAreUsageErrorsNotLastWinsOrOverflow(String line, String message) {
        assertUsageError(line, message, true);
    }

    /**
     * Runs {@code compare --dry-run LINE} (a line a parser accepts then runs nothing) and parses LINE.
     *
     * @param exact whether {@code message} is the whole message or a part of it
     */
    private static void assertUsageError(String line, String message, boolean exact) {
        CliRun r = CliRun.of(new CompareCommand(), ("compare --dry-run " + line).split(" "));
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("offheap compare: " + message).contains("Usage: offheap compare");
        assertThat(r.out()).isEmpty();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> CompareOptions.parse(List.of(line.split(" "))));
        assertThat(thrown).isInstanceOf(UsageException.class).hasMessageContaining(message);
        if (exact) {
            assertThat(thrown).hasMessage(message);
        }
    }

    @Test
    void aDurationOfExactlyTheCapIsAccepted() throws UsageException {
        assertThat(CompareOptions.parse(List.of("--duration", "8760h")).duration()).isEqualTo(Duration.ofDays(365));
    }

    @Test
    void helpListsEveryOption() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("Usage: offheap compare").contains("--value-size LIST", "--max-entries LIST",
                "--variants LIST", "--threads N", "--requests N", "--duration D", "--rate N", "--warmup N", "--keys N", "--heap SIZE",
                "--gc NAME", "--loader NAME", "--latency", "--db DIR", "--out DIR", "--seed N", "--nmt", "--timeout D",
                "--dry-run", "report.md", "results.json");
    }

    @Test
    void autoHeapIsPerSettingAndTheSameForEveryVariantOfIt() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--value-size", "100000,300000",
                "--max-entries", "5000,15000");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("-Xmx1024m to -Xmx6912m (per setting, the same for its variants)")
                .contains("after 4 x max entries warmup requests");
        List<String> commands = r.out().lines().filter(l -> l.startsWith("  ")).toList();
        assertThat(commands).hasSize(16);
        assertThat(commands).filteredOn(c -> c.contains("valueSize=100000 ") && c.contains("maxEntries=5000 "))
                .hasSize(4).allSatisfy(c -> assertThat(c).contains("-Xmx1024m -Xms1024m").contains("warmupRequests=20000"));
        assertThat(commands).filteredOn(c -> c.contains("valueSize=300000 ") && c.contains("maxEntries=15000 "))
                .hasSize(4).allSatisfy(c -> assertThat(c).contains("-Xmx6912m -Xms6912m").contains("warmupRequests=60000"));
    }

    @Test
    void dryRunPrintsEachVariantsJvmCommandLine() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--value-size", "1000,2000", "--heap", "256m",
                "--gc", "parallel");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("4 variants x 2 settings, -Xmx256m, parallel");
        List<String> commands = r.out().lines().filter(l -> l.startsWith("  ")).toList();
        assertThat(commands).hasSize(8).allSatisfy(c -> assertThat(c).contains("-Xmx256m -Xms256m -XX:+UseParallelGC")
                .contains("--enable-native-access=ALL-UNNAMED").contains(CompareWorker.class.getName()));
        assertThat(commands).filteredOn(c -> c.contains("variant=ohc")).allSatisfy(c -> assertThat(c)
                .contains("--sun-misc-unsafe-memory-access=allow"));
        assertThat(commands).filteredOn(c -> !c.contains("variant=ohc")).allSatisfy(c -> assertThat(c)
                .doesNotContain("sun-misc"));
    }

    @Test
    void workloadSurvivesTheTripToTheVariantJvm() {
        Workload w = new Workload(Variant.OFF_HEAP, 1234, 56, 789, 3, 10, 0, Duration.ofMillis(1500), 4321,
                Workload.Loader.MEMORY, Duration.ofNanos(200_000), Path.of("/tmp/db"), -9, true);
        assertThat(Workload.fromArgs(w.toArgs())).isEqualTo(w);
        assertThatThrownBy(() -> Workload.fromArgs(List.of("variant=ohc"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing");
    }

    @ParameterizedTest
    @CsvSource({"200us,200000", "5ms,5000000", "1.5s,1500000000", "2m,120000000000", "10ns,10"})
    void durationsParse(String text, long nanos) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofNanos(nanos));
        assertThat(Durations.parse(Durations.format(Duration.ofNanos(nanos)))).isEqualTo(Duration.ofNanos(nanos));
    }
}
