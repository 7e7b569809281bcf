package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.BenchPlan;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Command-line parsing, help, and exit codes. */
class MainTest {
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(List.of(new BenchCommand(TestSuites.suites(), BenchPlan::available)));
        int code = main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--help", "-h", "help"})
    void overviewListsTheCommands(String arg) {
        Result r = arg.isEmpty() ? run() : run(arg);
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("Usage: offheap <command>").containsPattern("(?m)^  bench  run a JMH")
                .containsPattern("(?m)^  help   ").doesNotContain("Coming later");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void standardCommandSetHasBenchAndHelp() {
        assertThat(Main.standard().overview()).contains("  compare ").contains("  serve ").contains("  bench ")
                .contains("  inspect ").contains("  help ");
        assertThat(Main.standard().run(List.of("bench", "--help"), new PrintStream(OutputStreamSink.INSTANCE),
                new PrintStream(OutputStreamSink.INSTANCE))).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench --help", "bench -h", "help bench", "bench segments --full --help"})
    void benchHelp(String line) {
        Result r = run(line.split(" "));
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("Usage: offheap bench <suite>").contains("--smoke").contains("--include REGEX")
                .contains("--report FILE").contains("  tiny ");
    }

    /** Every option a command's help describes is in its usage lines too (bench's lacked --forks). */
    @ParameterizedTest
    @ValueSource(strings = {"bench", "compare", "serve", "inspect"})
    void theUsageLinesNameEveryOptionTheHelpDescribes(String command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(Main.standard().run(List.of(command, "--help"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(OutputStreamSink.INSTANCE))).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        String usage = help.substring(0, help.indexOf("\n\n"));
        String options = help.substring(help.indexOf("\nOptions"));
        java.util.regex.Matcher described = java.util.regex.Pattern.compile("(?m)^  (?:-\\w, )?(--[a-z-]+)").matcher(options);
        List<String> missing = new java.util.ArrayList<>();
        while (described.find()) {
            String option = described.group(1);
            if (!option.equals("--help") && !java.util.regex.Pattern.compile(option + "(?![a-z-])").matcher(usage).find()) {
                missing.add(option);
            }
        }
        assertThat(missing).as("options of 'offheap %s --help' missing from its usage lines:%n%s", command, usage).isEmpty();
    }

    @Test
    void helpOfHelp() {
        Result r = run("help", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("Usage: offheap help");
    }

    @Test
    void unknownCommandIsAUsageError() {
        Result r = run("frobnicate");
        assertThat(r.code()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("unknown command 'frobnicate'").contains("Usage: offheap <command>");
        assertThat(r.out()).isEmpty();
        assertThat(run("--frobnicate").err()).contains("unknown option '--frobnicate'");
        assertThat(run("help", "frobnicate").code()).isEqualTo(Main.USAGE);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "bench tiny --frobnicate",
        "bench",
        "bench nosuch",
        "bench tiny empty",
        "bench tiny --threads 0",
        "bench tiny --threads many",
        "bench tiny --threads",
        "bench tiny --include [unclosed",
        "bench tiny --full --smoke",
        "bench tiny --prof stack",
        "bench tiny --out",
        "bench tiny --param size",
        "bench tiny --list",
        "bench tiny --report x.json",
        "bench --list=yes",
    })
    void nonsenseIsAUsageErrorWithTheUsageOnStderr(String line) {
        Result r = run(line.split(" "));
        assertThat(r.code()).as(line).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap bench: ").contains("Usage: offheap bench <suite>")
                .contains("Run 'offheap bench --help'");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void usageErrorsSayWhatIsWrong() {
        assertThat(run("bench", "tiny", "--frobnicate").err()).contains("unknown option '--frobnicate'");
        assertThat(run("bench", "nosuch").err()).contains("unknown suite 'nosuch' (suites: tiny, needs, empty)");
        assertThat(run("bench", "tiny", "--threads", "0").err()).contains("--threads: expected a number");
        assertThat(run("bench", "tiny", "--forks", "0").err()).contains("--forks: expected a number of forks");
        assertThat(run("bench", "tiny", "--forks", "many").err()).contains("--forks: expected a number of forks");
        assertThat(run("bench", "tiny", "--prof", "stack").err()).contains("unknown profiler 'stack' (supported: gc)");
    }

    @Test
    void optionsParseInBothSpellings() throws Exception {
        BenchCommand bench = new BenchCommand(TestSuites.suites(), BenchPlan::available);
        BenchCommand.Args a = bench.parse(List.of("--smoke", "tiny", "--out=/tmp/x", "--threads", "2",
                "--include", "sum.*", "--param", "size=1,2", "--prof", "gc"));
        assertThat(a.suite().name()).isEqualTo("tiny");
        assertThat(a.mode()).isEqualTo(dev.offheap.cli.bench.BenchMode.SMOKE);
        assertThat(a.out()).isEqualTo(Path.of("/tmp/x"));
        assertThat(a.threads()).isEqualTo(2);
        assertThat(a.include().pattern()).isEqualTo("sum.*");
        assertThat(a.params()).containsEntry("size", List.of("1", "2"));
        assertThat(a.gcProfiler()).isTrue();
        assertThat(bench.parse(List.of("tiny")).mode()).isEqualTo(dev.offheap.cli.bench.BenchMode.QUICK);
        assertThat(bench.parse(List.of("tiny", "--full")).mode()).isEqualTo(dev.offheap.cli.bench.BenchMode.FULL);
        assertThat(bench.parse(List.of("tiny", "--full", "--forks", "1")).forks()).isEqualTo(1);
        assertThat(bench.parse(List.of("tiny", "--forks=3")).forks()).isEqualTo(3);
        assertThat(bench.parse(List.of("tiny")).forks()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = ';', value = {
        "bench tiny --dry-run --out a --out b;--out given twice",
        "bench tiny --dry-run -o a --out=b;--out given twice (-o is --out)",
        "bench tiny --dry-run --threads 1 -t 2;--threads given twice (-t is --threads)",
        "bench tiny --dry-run --include a --include b;--include given twice",
        "bench tiny --dry-run --forks 1 --forks=2;--forks given twice",
        "bench tiny --dry-run --param size=1 --param size=2;--param: size given twice (give its values as one list: size=1,2)",
        "bench tiny --dry-run -p size=1 --param=size=2;--param: size given twice (give its values as one list: size=1,2)",
    })
    void aRepeatedOptionIsAUsageErrorNotLastWins(String line, String message) {
        Result r = run(line.split(" "));
        assertThat(r.code()).as(r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap bench: " + message + "\n").contains("Usage: offheap bench <suite>");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void paramStaysRepeatableForDifferentNames() throws Exception {
        BenchCommand bench = new BenchCommand(TestSuites.suites(), BenchPlan::available);
        BenchCommand.Args a = bench.parse(List.of("tiny", "--param", "size=1,2", "-p", "other=x"));
        assertThat(a.params()).containsOnly(java.util.Map.entry("size", List.of("1", "2")),
                java.util.Map.entry("other", List.of("x")));
        assertThat(run("bench", "--help").out()).contains("(repeatable for different names)");
    }

    /** An empty item used to pass the parser and fail only later, in JMH's forks. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"size=1,,2", "size=,1", "size=1,", "size=1, ,2"})
    void anEmptyParamValueIsAUsageError(String param) {
        Result r = run("bench", "tiny", "--dry-run", "--param", param);
        assertThat(r.code()).as(r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap bench: --param: empty item in the list '" + param.substring(5) + "'");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aReportNestedTooDeeplyIsAClearErrorNotAStackOverflow(@TempDir Path dir) throws Exception {
        Path deep = dir.resolve("deep.json");
        Files.writeString(deep, "[".repeat(100_000));
        Result r = run("bench", "--report", deep.toString());
        assertThat(r.code()).isEqualTo(Main.FAILED);
        assertThat(r.err()).contains("deep.json").contains("nested deeper than 512 levels")
                .doesNotContain("StackOverflowError");
    }

    @Test
    void listShowsSuitesAndCounts() {
        Result r = run("bench", "--list");
        assertThat(r.code()).isZero();
        assertThat(r.out()).containsPattern("tiny +2 benchmarks").containsPattern("empty +no benchmarks");
    }

    @Test
    void aSuiteWithoutBenchmarksFailsClearly() {
        Result r = run("bench", "empty", "--smoke");
        assertThat(r.code()).isEqualTo(Main.FAILED);
        assertThat(r.err()).contains("suite 'empty' has no benchmarks")
                .contains("no JMH benchmark of package dev.offheap.cli.nothing");
    }

    @Test
    void anIncludeThatMatchesNothingFailsClearly() {
        Result r = run("bench", "tiny", "--include", "nothingLikeThis");
        assertThat(r.code()).isEqualTo(Main.FAILED);
        assertThat(r.err()).contains("no benchmark of suite 'tiny' matches --include 'nothingLikeThis'")
                .contains("TinyBench.sumArray");
    }

    @Test
    void dryRunShowsThePlanAndRunsNothing(@TempDir Path dir) {
        Result r = run("bench", "tiny", "--smoke", "--out", dir.resolve("o").toString(), "--dry-run");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("tiny, 2 benchmarks, mode smoke")
                .contains("  dev.offheap.cli.testbench.TinyBench.sumArray")
                .contains("Parameter size = 16")
                .contains("forks 1, warmup 1 × 100 ms, measurement 1 × 100 ms, threads from @Threads")
                .contains("jvmArgsPrepend [--enable-native-access=ALL-UNNAMED]");
        assertThat(dir.resolve("o")).doesNotExist();
    }

    @Test
    void reportRegeneratesMarkdownAndChartsFromJson(@TempDir Path dir) throws Exception {
        for (String name : List.of("sample.json", "sample.run.properties")) {
            try (InputStream in = MainTest.class.getResourceAsStream("/" + name)) {
                Files.copy(in, dir.resolve(name));
            }
        }
        Path out = dir.resolve("out");
        Result r = run("bench", "--report", dir.resolve("sample.json").toString(), "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(Files.readString(out.resolve("sample.md"))).contains("| sumArray (baseline) | size=16 |")
                .contains("Test CPU 9000");
        assertThat(out.resolve("sample-TinyBench.png")).isNotEmptyFile();

        // without --out, next to the JSON
        assertThat(run("bench", "--report", dir.resolve("sample.json").toString()).code()).isZero();
        assertThat(dir.resolve("sample.md")).isNotEmptyFile();
    }

    @Test
    void reportOfAMissingOrBrokenFileFails(@TempDir Path dir) throws Exception {
        Result missing = run("bench", "--report", dir.resolve("nope.json").toString());
        assertThat(missing.code()).isEqualTo(Main.FAILED);
        assertThat(missing.err()).contains("no such file");
        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "[{");
        Result bad = run("bench", "--report", broken.toString());
        assertThat(bad.code()).isEqualTo(Main.FAILED);
        assertThat(bad.err()).contains("not valid JSON");
    }

    @Test
    void commandLineIsQuotedForTheReport() {
        assertThat(BenchCommand.quoted(List.of("segments", "--include", "a b", "--param", "size=1,2")))
                .isEqualTo("segments --include 'a b' --param size=1,2");
    }

    /** Discards output. */
    static final class OutputStreamSink extends java.io.OutputStream {
        static final OutputStreamSink INSTANCE = new OutputStreamSink();

        @Override
        public void write(int b) {
        }
    }
}
