package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code --param NAME=...} with a name that no benchmark about to run declares is a usage error (exit
 * code 2), found before anything runs: JMH ignores such a parameter, so a misspelt name ran every value
 * of the real one instead.
 */
class UnknownParamNameIsAUsageErrorTest {
    @Test
    void aMisspeltParameterIsRefusedWithTheDeclaredOnes() {
        BenchReportEdgeTest.Result r = BenchReportEdgeTest.run("bench", "tiny", "--full", "--param", "sise=64", "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).contains("--param: no benchmark that would run has a @Param 'sise' (theirs: size)");
        assertThat(r.out()).doesNotContain("Benchmarks:");
    }

    @Test
    void aDeclaredParameterIsAccepted() {
        BenchReportEdgeTest.Result r = BenchReportEdgeTest.run("bench", "tiny", "--full", "--param", "size=64", "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("Parameter size = 64");
    }
}
