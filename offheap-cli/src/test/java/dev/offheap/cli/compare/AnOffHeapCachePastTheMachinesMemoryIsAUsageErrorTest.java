package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.Main;
import dev.offheap.cli.UsageException;
import dev.offheap.cli.bench.RunInfo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check that refuses a run whose variant JVMs would not fit in the machine's memory counted only their
 * heap: an off-heap variant whose heap fitted but whose heap and native cache together did not was started,
 * and killed by the machine (or its container) once its cache had filled, mid-run. Now every variant counts
 * what it will use, its heap and the native memory its cache may hold (its capacity, and for {@code off-heap}
 * a value-sized load buffer per request thread), and the run is refused up front with each number.
 */
class AnOffHeapCachePastTheMachinesMemoryIsAUsageErrorTest {
    @TempDir
    Path dir;

    @Test
    void aVariantWhoseHeapFitsButNotWithItsCacheIsRefusedNamingEachNumber() throws Exception {
        // -Xmx1g, and the off-heap caches' capacity: 5,000 x (100,000 + 8 + 64) + 1 MiB = 501,408,576 B
        CompareOptions o = CompareOptions.parse(List.of("--value-size", "100000", "--max-entries", "5000", "--heap", "1g",
                "--loader", "memory", "--variants", "on-heap,off-heap"));
        long machine = 1280L << 20;
        assertThatThrownBy(() -> CompareCommand.checkHeapsFit(o, machine))
                .isInstanceOf(UsageException.class)
                .hasMessage("the off-heap variant at 100,000 B x 5,000 entries needs -Xmx1024m of heap and 479 MiB"
                        + " of native memory (its cache's capacity of 478 MiB and 10 request threads' load buffers"
                        + " of 977 KiB), 1.5 GiB in all, more than this machine's 1.3 GiB of memory: choose"
                        + " smaller --value-size or --max-entries, or a smaller --heap");
        assertThatCode(() -> CompareCommand.checkHeapsFit(o, 2L << 30)).doesNotThrowAnyException();
    }

    @Test
    void theVariantsWithoutALoadBufferCountTheirCachesCapacity() throws Exception {
        long machine = (1024L << 20) + 501_408_576 - 1;
        for (String variant : List.of("off-heap-copy", "ohc")) {
            CompareOptions o = CompareOptions.parse(List.of("--value-size", "100000", "--max-entries", "5000", "--heap",
                    "1g", "--loader", "memory", "--variants", variant));
            assertThatThrownBy(() -> CompareCommand.checkHeapsFit(o, machine)).as(variant)
                    .isInstanceOf(UsageException.class)
                    .hasMessageStartingWith("the " + variant + " variant at 100,000 B x 5,000 entries needs -Xmx1024m of"
                            + " heap and 478 MiB of native memory (its cache's capacity of 478 MiB), 1,575,150,400 bytes"
                            + " in all, more than this machine's 1,575,150,399 bytes of memory");
            assertThatCode(() -> CompareCommand.checkHeapsFit(o, machine + 1)).as(variant).doesNotThrowAnyException();
        }
        CompareOptions onHeap = CompareOptions.parse(List.of("--value-size", "100000", "--max-entries", "5000", "--heap",
                "1g", "--loader", "memory", "--variants", "on-heap"));
        assertThatCode(() -> CompareCommand.checkHeapsFit(onHeap, 1024L << 20)).as("on-heap needs its heap only")
                .doesNotThrowAnyException();
    }

    /** Max entries of 64 MiB values whose off-heap cache would not fit in this machine's memory. */
    private static String entriesPastThisMachine() {
        long machine = RunInfo.memoryLimitBytes();
        return Long.toString(Math.min(CompareOptions.MAX_ENTRIES, Math.max(1, machine / (64L << 20)) + 1));
    }

    @Test
    void theCommandRefusesItBeforeAnythingRuns() {
        String entries = entriesPastThisMachine();
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "off-heap", "--loader", "memory",
                "--latency", "0us", "--value-size", "64m", "--max-entries", entries, "--threads", "1", "--requests", "1",
                "--warmup", "0", "--heap", "256m", "--out", dir.resolve("out").toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap compare: the off-heap variant at 67,108,864 B x ")
                .contains("needs -Xmx256m of heap and").contains("of memory");
        assertThat(r.out()).doesNotContain("[1/1]");
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void aDryRunStillPrintsThePlanForALargerMachine() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "off-heap", "--loader", "memory",
                "--latency", "0us", "--value-size", "64m", "--max-entries", entriesPastThisMachine(), "--threads", "1",
                "--requests", "1", "--warmup", "0", "--heap", "256m", "--dry-run", "--out", dir.resolve("out").toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("-Xmx256m").contains("variant=off-heap");
    }
}
