package dev.offheap.bench.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WorkloadTest {

    @Test
    void parsesKeysAndValueSizeAndMakesDistinctKeysAndTemplates() {
        Workload w = Workload.parse("1000x100");
        assertThat(w.keyCount).isEqualTo(1000);
        assertThat(w.valueBytes).isEqualTo(100);
        assertThat(w.valueBytesTotal()).isEqualTo(100_000);
        Set<Long> keys = new HashSet<>(java.util.Arrays.asList(w.keys));
        assertThat(keys).hasSize(1000);
        assertThat(w.templates).hasNumberOfRows(Workload.TEMPLATES);
        assertThat(w.templates[0]).hasSize(100).isNotEqualTo(w.templates[1]);
    }

    @Test
    void freshValuesAreNewArraysWithATemplatesBytes() {
        Workload w = Workload.parse("4x64");
        byte[] fresh = w.freshValue(9);
        assertThat(fresh).isNotSameAs(w.templates[1]).isEqualTo(w.templates[1]);
        assertThat(w.initialValue(9)).isSameAs(w.templates[1]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "100", "x100", "100x", "ax100", "100xb", "0x100", "100x0", "-1x5"})
    void badSpecsNameTheExpectedForm(String spec) {
        assertThatThrownBy(() -> Workload.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + spec + "'");
    }
}
