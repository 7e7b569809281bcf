package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.RunInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where one side of a ratio is zero the ratio line gives the other side's number. It wrote it in its own
 * way: the table's GC time of 0.484 s as "484 ms", and its GC CPU of 1.27 s as "1.3 s" (0.04 s as "0.0 s",
 * which read as none against none). The line now writes each number as the table does.
 */
class ARatioAgainstNoneShowsTheNumberAsTheTableDoesTest {
    @Test
    void gcTimeAndGcCpuAgainstNoneAreWrittenAsInTheTable() throws Exception {
        VariantResult onHeap = result("on-heap", 484, 1.27);
        VariantResult offHeap = result("off-heap", 0, 0);
        CompareReport report = report(List.of(onHeap, offHeap));
        assertThat(report.table()).contains("0.484 s").contains("1.27 s");
        assertThat(report.ratioLines()).singleElement().asString()
                .contains("GC time none (on-heap 0.484 s)").contains("GC CPU none (on-heap 1.27 s)");
        assertThat(report.markdown()).contains("GC time none (on-heap 0.484 s), GC CPU none (on-heap 1.27 s)");
    }

    @Test
    void aSmallGcCpuIsNotWrittenAsZero() throws Exception {
        CompareReport report = report(List.of(result("on-heap", 0, 0.04), result("off-heap", 3, 0)));
        assertThat(report.ratioLines()).singleElement().asString()
                .contains("GC time 0.003 s (on-heap none)").contains("GC CPU none (on-heap 0.04 s)");
        CompareReport reverse = report(List.of(result("on-heap", 0, 0), result("off-heap", 0, 0.03)));
        assertThat(reverse.ratioLines()).singleElement().asString().contains("GC CPU 0.03 s (on-heap none)");
    }

    private static CompareReport report(List<VariantResult> results) throws Exception {
        RunInfo machine = new RunInfo("offheap compare", "today", "cpu", 2, "8 GiB", "Linux", "JDK 25", "compare");
        return new CompareReport(CompareOptions.parse(List.of("--loader", "memory")), machine, "memory", results,
                List.of());
    }

    private static VariantResult result(String variant, double gcMillis, double gcCpuSeconds) {
        return new VariantResult(variant, 100, 5, null, 10, 10.0, 40_000, 3, gcMillis, 4, 2.25, 1.0, 100, 90, 80,
                1000, 0, -1, 5000, 1.5, 500, 3.5, 4.5, 0.5, 5, 0.75, gcCpuSeconds, 0.0, "G1 Young Generation", "cache",
                "memory", 2.0);
    }
}
