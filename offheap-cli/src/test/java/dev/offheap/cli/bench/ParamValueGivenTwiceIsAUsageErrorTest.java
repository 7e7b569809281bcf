package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --param size=64,64} was accepted: JMH then measured every benchmark twice at the same value (in
 * {@code --full}, minutes each) and the report showed two rows for one setting. A list that names a value
 * twice is a usage error (exit code 2), as it is for compare's lists.
 */
class ParamValueGivenTwiceIsAUsageErrorTest {
    @ParameterizedTest
    @ValueSource(strings = {"size=64,64", "size=16,64,16", "size=64, 64"})
    void aRepeatedValueIsRefusedBeforeAnythingRuns(String param) {
        BenchReportEdgeTest.Result r = BenchReportEdgeTest.run("bench", "tiny", "--param", param, "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err()).startsWith("offheap bench: --param: size names the value ")
                .contains("twice in '" + param.substring("size=".length()) + "'");
        assertThat(r.out()).doesNotContain("Benchmarks:");
    }

    @ParameterizedTest
    @ValueSource(strings = {"size=16,64", "size=64"})
    void distinctValuesAreAccepted(String param) {
        BenchReportEdgeTest.Result r = BenchReportEdgeTest.run("bench", "tiny", "--param", param, "--dry-run");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("Parameter size = " + param.substring("size=".length()));
    }
}
