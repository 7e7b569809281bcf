package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A variant JVM that runs out of native memory (the machine cannot back the heap it was given, or the
 * off-heap caches' memory) ends with HotSpot's "There is insufficient memory for the Java Runtime
 * Environment to continue" and an hs_err file. The table said "crashed: the JVM died (exit code 1)",
 * as for a segfault; out of memory is what happened, and how much it asked for is on the next line.
 */
class AVariantOutOfNativeMemoryShowsAsOutOfMemoryTest {
    /** What a variant JVM given -Xms4t printed on a machine with less (stdout and stderr merged). */
    private static final List<String> OUTPUT = List.of(
            "OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00007baae8000000, 4398046511104, 0) failed; "
                    + "error='Not enough space' (errno=12)",
            "#",
            "# There is insufficient memory for the Java Runtime Environment to continue.",
            "# Native memory allocation (mmap) failed to map 4398046511104 bytes. Error detail: committing reserved memory.",
            "# An error report file with more information is saved as:",
            "# /tmp/out/logs/1000-50-off-heap-hs_err.log");

    @Test
    void theReasonIsOutOfMemoryWithWhatWasAskedFor() {
        Path crash = Path.of("/tmp/out/logs/1000-50-off-heap-hs_err.log");
        assertThat(VariantLauncher.failureReason(1, OUTPUT, crash)).isEqualTo("out of memory: the JVM could not get "
                + "native memory: Native memory allocation (mmap) failed to map 4398046511104 bytes. Error detail: "
                + "committing reserved memory. (exit code 1); crash report " + crash);
    }

    @Test
    void withoutTheDetailLineTheReasonIsStillOutOfMemory() {
        assertThat(VariantLauncher.failureReason(1, List.of("#", "# There is insufficient memory for the Java Runtime "
                + "Environment to continue.", "# Native memory allocation (malloc) failed"), null))
                .startsWith("out of memory: the JVM could not get native memory: Native memory allocation (malloc) failed");
        assertThat(VariantLauncher.failureReason(1, List.of("# There is insufficient memory for the Java Runtime "
                + "Environment to continue."), null)).isEqualTo("out of memory: the JVM could not get native memory: "
                + "There is insufficient memory for the Java Runtime Environment to continue. (exit code 1)");
    }
}
