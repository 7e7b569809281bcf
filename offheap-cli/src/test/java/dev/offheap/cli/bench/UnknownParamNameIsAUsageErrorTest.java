package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.BenchCommand;
import dev.offheap.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --param NAME=...} with a name that no benchmark about to run declares is a usage error (exit
 * code 2), found before anything runs: JMH ignores such a parameter, so a misspelt name ran every value
 * of the real one instead.
 */
class UnknownParamNameIsAUsageErrorTest {
    private record Result(int code, String out, String err) {
    }

    /** The CLI over the test-only TinyBench package, whose one parameter is {@code size}. */
    private static Result run(String... args) {
        Suites suites = new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench", "a test-only benchmark",
                Map.of("size", List.of("16")))));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(List.of(new BenchCommand(suites, BenchPlan::available)));
        int code = main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aMisspeltParameterIsRefusedWithTheDeclaredOnes() {
        Result r = run("bench", "tiny", "--full", "--param", "sise=64", "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).contains("--param: no benchmark that would run has a @Param 'sise' (theirs: size)");
        assertThat(r.out()).doesNotContain("Benchmarks:");
    }

    @Test
    void aDeclaredParameterIsAccepted() {
        Result r = run("bench", "tiny", "--full", "--param", "size=64", "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("Parameter size = 64");
    }
}
