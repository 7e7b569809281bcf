package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void parsesWhatJmhWrites() {
        Object v = Json.parse("""
                [ {"a": 1.5e3, "b": "NaN", "c": [true, false, null], "d": {}, "e": [], "f": "x\\"y\\u00e9\\n"} ]
                """);
        assertThat(v).isInstanceOf(List.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> row = (Map<String, Object>) ((List<?>) v).getFirst();
        assertThat(row).containsKeys("a", "b", "c", "d", "e", "f");
        assertThat(row.get("a")).isEqualTo(1500.0);
        assertThat(row.get("b")).isEqualTo("NaN");
        assertThat(row.get("c")).isEqualTo(java.util.Arrays.asList(true, false, null));
        assertThat(row.get("f")).isEqualTo("x\"y\u00e9\n");
        assertThat(Json.parse("-0.25")).isEqualTo(-0.25);
    }

    @Test
    void rejectsBrokenInputWithTheOffset() {
        assertThatThrownBy(() -> Json.parse("[1, 2")).hasMessageContaining("offset 5");
        assertThatThrownBy(() -> Json.parse("{\"a\" 1}")).hasMessageContaining("expected ':'");
        assertThatThrownBy(() -> Json.parse("[1] x")).hasMessageContaining("trailing");
        assertThatThrownBy(() -> Json.parse("")).hasMessageContaining("end of input");
    }

    @Test
    void nestingIsLimitedTo512LevelsInsteadOfOverflowingTheStack() {
        assertThat(Json.parse("[".repeat(512) + "]".repeat(512))).isInstanceOf(List.class);
        assertThat(Json.parse("{\"a\":".repeat(511) + "[1]" + "}".repeat(511))).isInstanceOf(Map.class);
        assertThatThrownBy(() -> Json.parse("[".repeat(513) + "]".repeat(513)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nested deeper than 512 levels");
        assertThatThrownBy(() -> Json.parse("[".repeat(100_000))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nested deeper than 512 levels");
        assertThatThrownBy(() -> Json.parse("{\"a\":".repeat(100_000))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nested deeper than 512 levels");
    }
}
