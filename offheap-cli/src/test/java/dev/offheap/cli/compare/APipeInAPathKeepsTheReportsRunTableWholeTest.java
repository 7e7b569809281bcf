package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.RunInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * report.md's "Run" table put the command line and the store (with the database's path) into its cells
 * as they were: a folder with a {@code |} in its name ({@code --db "runs|2024"}) split the row into more
 * cells than the table has, and the markdown showed the path cut in two across columns. Failure reasons
 * were already escaped; these cells are now too.
 */
class APipeInAPathKeepsTheReportsRunTableWholeTest {
    /** @return the cells of a markdown table row, split at its unescaped pipes */
    private static List<String> cells(String row) {
        return List.of(row.substring(1, row.length() - 1).split("(?<!\\\\)\\|", -1));
    }

    private static String row(String md, String start) {
        return md.lines().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + start + "' in\n" + md));
    }

    @Test
    void theCommandAndStoreCellsEscapeTheirPipes() throws Exception {
        CompareOptions o = CompareOptions.parse(List.of("--db", "/tmp/runs|2024", "--out", "/tmp/out|1"));
        RunInfo run = RunInfo.current("offheap compare --db '/tmp/runs|2024' --out '/tmp/out|1'", "compare");
        String md = new CompareReport(o, run, "H2 database /tmp/runs|2024/offers.mv.db", List.of(), List.of()).markdown();
        assertThat(cells(row(md, "| command |"))).hasSize(2);
        assertThat(cells(row(md, "| store |"))).hasSize(2);
        assertThat(row(md, "| store |")).contains("/tmp/runs\\|2024/offers.mv.db");
        assertThat(row(md, "| command |")).contains("'/tmp/runs\\|2024'");
    }
}
