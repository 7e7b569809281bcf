package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import org.junit.jupiter.api.Test;

/**
 * {@code offheap bench --report /} took the suite's name from the path's file name, which the root does
 * not have: the command ended with an uncaught NullPointerException and its stack trace.
 */
class AReportPathWithoutAFileNameIsAUsageErrorTest {
    @Test
    void theRootIsRefusedWithAUsageMessage() {
        BenchReportEdgeTest.Result r;
        try {
            r = BenchReportEdgeTest.run("bench", "--report", "/");
        } catch (RuntimeException e) {
            throw new AssertionError("escaped Main.run: " + e, e);
        }
        assertThat(r.code()).as(r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap bench: --report: expected a JMH JSON file, got '/'");
    }
}
