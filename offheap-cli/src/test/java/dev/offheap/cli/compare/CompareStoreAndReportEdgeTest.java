package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.offheap.cli.bench.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code offheap compare}: the store's checks, failure reasons, numbers in the output. */
class CompareStoreAndReportEdgeTest {
    @TempDir
    Path dir;

    /**
     * H2 opens a file whose data pages are damaged and answers the checks' COUNT(*), MAX(id) and three spot
     * rows; the damage showed only when a variant JVM primed the store ("offer 915 is missing", "Unable to
     * read the page"), so every variant failed, run after run, and the database was never rebuilt.
     */
    @Test
    void aDatabaseWithDamagedPagesIsRebuiltWhenOpenedNotLeftToFailEveryVariant() throws Exception {
        Path original = dir.resolve("original");
        H2OfferStore.open(original, 400, 100, 1, m -> { }).close();
        byte[] file = Files.readAllBytes(original.resolve("offers.mv.db"));
        SplittableRandom random = new SplittableRandom(11);
        int rebuilt = 0;
        for (int trial = 0; trial < 6; trial++) {
            Path db = dir.resolve("db" + trial);
            Files.createDirectories(db);
            byte[] damaged = file.clone();
            // 16 bytes inverted somewhere past the header, before the last 4 KiB (the latest chunk's footer)
            int at = 4096 + random.nextInt(damaged.length - 8192);
            for (int i = 0; i < 16; i++) {
                damaged[at + i] ^= (byte) 0xFF;
            }
            Files.write(db.resolve("offers.mv.db"), damaged);
            List<String> log = new ArrayList<>();
            try (H2OfferStore s = H2OfferStore.open(db, 400, 100, 1, log::add)) {
                s.prime(); // what every variant JVM does first
                assertThat(s.load(399)).isEqualTo(Offers.description(399, 100));
            } catch (IllegalStateException e) {
                throw new AssertionError("trial " + trial + " (16 bytes at " + at + "): the store opened, then failed: "
                        + e.getMessage() + "; log " + log, e);
            }
            if (!log.isEmpty()) {
                assertThat(log.getFirst()).contains("is corrupt (").endsWith("rebuilding it");
                rebuilt++;
            }
        }
        assertThat(rebuilt).as("some of the damage was found and the database rebuilt").isPositive();
    }

    /**
     * A variant whose run throws an exception with causes (H2's stack traces run to 60 lines) lost the
     * worker's "failed:" line out of the 40 lines kept, and the reason read "failed with exit code 1: Caused
     * by: [CIRCULAR REFERENCE: ...]". Here another process (this test's JVM) takes the database after the
     * parent prepared it, as a second offheap compare or serve would.
     */
    @Test
    void aVariantWhoseExceptionHasALongStackTraceIsShownWithWhatItThrew() throws Exception {
        Path db = dir.resolve("db");
        Path out = dir.resolve("out");
        AtomicReference<Connection> held = new AtomicReference<>();
        // called as each variant JVM's command line is built: after the parent prepared and closed the database
        CompareCommand command = new CompareCommand(v -> {
            if (held.get() == null) {
                try {
                    held.set(DriverManager.getConnection("jdbc:h2:file:" + db.toAbsolutePath().resolve("offers"), "sa",
                            ""));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
            return List.of();
        });
        try {
            CliRun r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.of(command, "compare", "--variants",
                    "on-heap", "--value-size", "1000", "--max-entries", "100", "--threads", "2", "--requests", "100",
                    "--warmup", "0", "--heap", "64m", "--db", db.toString(), "--out", out.toString()));
            assertThat(r.code()).as("stdout: %s%nstderr: %s", r.out(), r.err()).isEqualTo(1);
            assertThat(r.out()).containsPattern("on-heap: FAILED after [\\d.]+ s: the run threw java.lang."
                    + "IllegalStateException: the offer database .* is in use by another process");
            assertThat(Files.readString(out.resolve("report.md")))
                    .contains("| on-heap | **failed**: the run threw java.lang.IllegalStateException: the offer database");
        } finally {
            if (held.get() != null) {
                held.get().close();
            }
        }
    }

    /**
     * The worker's JSON, which the parent reads its numbers from, kept six significant digits: a throughput of
     * 1,234,567.8 requests/s reached report.md and results.json as 1,234,570.
     */
    @Test
    void numbersSurviveTheTripThroughJsonExactly() {
        VariantResult r = new VariantResult("on-heap", 100, 5, null, 10_000_000, 8.100_000_3, 1_234_567.8, 3, 12.5, 4,
                2.25, 1.0, 100, 90, 80, 1000, 0, -1, 5000, 1.5, 123_456.789, 3.5, 4.5, 0.123_456_789, 5, 0.75, 0.25, 0.0,
                "G1 Young Generation", "Caffeine", "memory", 2.0);
        VariantResult back = VariantResult.fromMap((Map<?, ?>) Json.parse(JsonWriter.write(r.toMap())));
        assertThat(back).isEqualTo(r);
        assertThat(CompareReport.rate(back.throughput())).isEqualTo("1,234,568 rps");
        // JSON has no NaN or infinities: they stay null, and the text stays valid
        assertThat(JsonWriter.write(Map.of("a", Double.NaN))).isEqualTo("{\n  \"a\": null\n}\n");
        assertThat(Json.parse(JsonWriter.write(List.of(1e-7, 1e20, -2.5, 0.1)))).isEqualTo(List.of(1e-7, 1e20, -2.5, 0.1));
    }

    /**
     * Durations of a second or more were printed to three significant digits in %g: {@code --duration 999.9s}
     * read "1.00e+03s measured" and a 59.99 s timeout "timed out after 60.0s".
     */
    @Test
    void durationsPrintExactlyAndWithoutAnExponent() {
        assertThat(Durations.format(Durations.parse("999.9s"))).isEqualTo("999.9s");
        assertThat(Durations.format(Durations.parse("1234.5s"))).isEqualTo("1234.5s");
        assertThat(Durations.format(Durations.parse("59.99s"))).isEqualTo("59.99s");
        assertThat(Durations.format(Durations.parse("1.5s"))).isEqualTo("1.5s");
        assertThat(Durations.format(Durations.parse("2m"))).isEqualTo("120s");
        for (String text : List.of("1.0005s", "100.25s", "12.000000001s", "3.75min")) {
            Duration d = Durations.parse(text);
            assertThat(Durations.parse(Durations.format(d))).as(text).isEqualTo(d);
        }
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--duration", "999.9s");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("999.9s measured").doesNotContain("e+03");
    }
}
