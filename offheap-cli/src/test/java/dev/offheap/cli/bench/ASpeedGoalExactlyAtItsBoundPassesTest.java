package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Goal.Check;
import dev.offheap.cli.bench.Goal.Variant;
import dev.offheap.cli.bench.Goal.Verdict;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A speed goal is judged on the scores as JMH wrote them: a speedup or slowdown of exactly the
 * bound meets it, even where the quotient of the two doubles rounds past it (1.65 / 1.1 is
 * 1.4999999999999998, 1.61 / 1.4 is 1.1500000000000001).
 */
class ASpeedGoalExactlyAtItsBoundPassesTest {
    private static JmhResult row(String method, String mode, double score, String unit) {
        return new JmhResult("dev.example.alloc.Alloc." + method, mode, 1, 1, Map.of("bytes", "16"), score, 0.1, unit,
                Map.of(), Map.of());
    }

    @ParameterizedTest
    @CsvSource({"avgt, ns/op, 1.65, 1.1", "avgt, us/op, 3.3, 2.2", "thrpt, ops/ms, 1.6, 2.4"})
    void aSpeedupOfExactlyTheTargetPassesAndReadsAsTheTarget(String mode, String unit, double malloc, double pooled) {
        List<JmhResult> results = List.of(row("malloc", mode, malloc, unit), row("pooled", mode, pooled, unit));
        Goal goal = Goal.faster("pooled at least 1.5x faster than malloc", 1.5, Variant.of("Alloc", "pooled"),
                Variant.of("Alloc", "malloc"));
        Check check = goal.check(results).getFirst();
        assertThat(check.verdict()).isEqualTo(Verdict.PASS);
        assertThat(goal.measuredText(check)).isEqualTo("1.50x");
    }

    @ParameterizedTest
    @CsvSource({"avgt, ns/op, 1.6499, 1.1", "thrpt, ops/ms, 1.6, 2.3999"})
    void aSpeedupJustShortOfTheTargetStillFails(String mode, String unit, double malloc, double pooled) {
        List<JmhResult> results = List.of(row("malloc", mode, malloc, unit), row("pooled", mode, pooled, unit));
        Goal goal = Goal.faster("pooled at least 1.5x faster than malloc", 1.5, Variant.of("Alloc", "pooled"),
                Variant.of("Alloc", "malloc"));
        Check check = goal.check(results).getFirst();
        assertThat(check.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(goal.measuredText(check)).isEqualTo("1.49x");
    }
}
