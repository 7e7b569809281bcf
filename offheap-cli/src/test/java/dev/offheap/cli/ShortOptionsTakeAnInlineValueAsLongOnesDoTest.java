package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import dev.offheap.cli.compare.CompareOptions;
import dev.offheap.cli.serve.ServeCommand;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --value-size=100} was read, but {@code -s=100} was "unknown option '-s=100'", as if {@code -s} did not
 * exist. A short option now takes its value after {@code =} as its long name does, in compare, serve and bench.
 */
class ShortOptionsTakeAnInlineValueAsLongOnesDoTest {
    @Test
    void compareReadsEveryShortOptionWithAnInlineValue() throws UsageException {
        CompareOptions o = CompareOptions.parse(List.of("-s=1000,2000", "-e=10", "-t=2", "-n=100", "-w=0", "-k=50",
                "-o=out", "--loader=memory"));
        assertThat(o.valueSizes()).containsExactly(1000, 2000);
        assertThat(o.maxEntries()).containsExactly(10);
        assertThat(o.threads()).isEqualTo(2);
        assertThat(o.requests()).isEqualTo(100);
        assertThat(o.warmupRequests()).isZero();
        assertThat(o.keys()).isEqualTo(50);
        assertThat(o.out()).isEqualTo(Path.of("out"));
        assertThat(CompareOptions.parse(List.of("-d=5s", "-r=10", "--loader=memory")).rate()).isEqualTo(10);
    }

    @Test
    void serveReadsEveryShortOptionWithAnInlineValue() throws UsageException {
        ServeCommand.Args a = ServeCommand.parse(List.of("-p=0", "-s=10", "-e=5", "-k=20", "-t=2", "--loader=memory"));
        assertThat(a.port()).isZero();
        assertThat(a.valueSize()).isEqualTo(10);
        assertThat(a.maxEntries()).isEqualTo(5);
        assertThat(a.keys()).isEqualTo(20);
        assertThat(a.threads()).isEqualTo(2);
    }

    @Test
    void benchReadsEveryShortOptionWithAnInlineValue() throws UsageException {
        BenchCommand bench = new BenchCommand(new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench",
                "a test-only benchmark", Map.of("size", List.of("16"))))), List::of);
        BenchCommand.Args a = bench.parse(List.of("tiny", "-t=2", "-i=Tiny", "-o=out", "-p=size=16,64"));
        assertThat(a.threads()).isEqualTo(2);
        assertThat(a.include().pattern()).isEqualTo("Tiny");
        assertThat(a.out()).isEqualTo(Path.of("out"));
        assertThat(a.params()).containsEntry("size", List.of("16", "64"));
    }

    @Test
    void aShortOptionWithAnInlineValueCountsAsGivenOnce() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("-t=2", "--threads", "4", "--loader=memory")))
                .isInstanceOf(UsageException.class).hasMessage("--threads given twice (-t is --threads)");
        assertThatThrownBy(() -> ServeCommand.parse(List.of("-p=1", "--port=2", "--loader=memory")))
                .isInstanceOf(UsageException.class).hasMessage("--port given twice (-p is --port)");
    }

    @Test
    void anEmptyInlineValueOfAShortOptionIsRefusedAsALongOnesIs() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("-o=", "--loader=memory")))
                .isInstanceOf(UsageException.class).hasMessage("-o needs a non-empty value");
        assertThatThrownBy(() -> ServeCommand.parse(List.of("-t=", "--loader=memory")))
                .isInstanceOf(UsageException.class).hasMessage("-t needs a non-empty value");
    }

    @Test
    void anUnknownShortOptionIsStillNamedAsGiven() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("-x=5")))
                .isInstanceOf(UsageException.class).hasMessage("unknown option '-x=5'");
    }
}
