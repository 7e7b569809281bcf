package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.Main;
import dev.offheap.cli.UsageException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A setting whose heap (given, or {@code --heap auto}'s 1.5 x its values) is more than the machine's memory
 * made every variant JVM fail to start, after the database was built, and the report showed each variant
 * failed. Now the run is refused before anything runs, naming the setting and what to change.
 */
class AHeapLargerThanTheMachineIsAUsageErrorTest {
    @TempDir
    Path dir;

    @Test
    void anAutoHeapPastTheMachinesMemoryNamesTheSettingAndIsRefused() throws Exception {
        CompareOptions o = CompareOptions.parse(List.of("--value-size", "100,10000", "--max-entries", "1000,200000"));
        long machine = 2L << 30; // 10,000 B x 200,000 entries needs -Xmx3328m
        assertThatThrownBy(() -> CompareCommand.checkHeapsFit(o, machine))
                .isInstanceOf(UsageException.class)
                .hasMessage("--heap auto gives the setting 10,000 B x 200,000 entries -Xmx3328m (1.5 x its values"
                        + " + 256 MiB), more than this machine's 2.0 GiB of memory: choose smaller --value-size or"
                        + " --max-entries, or a --heap that fits");
        // the off-heap variants need their caches' 1.9 GiB of native memory on top of the heap
        assertThatCode(() -> CompareCommand.checkHeapsFit(o, 6L << 30)).doesNotThrowAnyException();
        assertThatCode(() -> CompareCommand.checkHeapsFit(o, -1)).as("unknown memory: nothing checked")
                .doesNotThrowAnyException();
    }

    @Test
    void aGivenHeapPastTheMachinesMemoryIsAUsageErrorBeforeAnythingRuns() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "on-heap", "--loader", "memory",
                "--latency", "0us", "--value-size", "100", "--max-entries", "10", "--requests", "100",
                "--heap", "4096g", "--out", dir.resolve("out").toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains("--heap 4194304m is more than this machine's").contains("GiB of memory");
        assertThat(r.out()).doesNotContain("[1/1]");
        assertThat(dir.resolve("out")).doesNotExist();
    }

    @Test
    void aDryRunStillPrintsThePlanForALargerMachine() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "on-heap", "--loader", "memory",
                "--latency", "0us", "--value-size", "100", "--max-entries", "10", "--requests", "100",
                "--heap", "4096g", "--dry-run", "--out", dir.resolve("out").toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("-Xmx4194304m");
    }
}
