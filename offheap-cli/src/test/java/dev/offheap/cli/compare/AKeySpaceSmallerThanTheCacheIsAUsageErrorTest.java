package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.Main;
import dev.offheap.cli.UsageException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --keys} below a setting's {@code --max-entries} was accepted: with fewer distinct offers than the
 * cache holds, the cache never filled, nothing was evicted, every request after the first per key was a hit,
 * and the report's verdict compared caches that were never full, under "5,000 entries". Now such a run is a
 * usage error that names both values and what to change; a key space as large as the cache (a cache that
 * holds every key) is still a run.
 */
class AKeySpaceSmallerThanTheCacheIsAUsageErrorTest {
    @Test
    void fewerKeysThanMaxEntriesIsRefusedNamingBothAndWhatToChange() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--keys", "100", "--max-entries", "5000");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap compare: --keys 100 is fewer than --max-entries 5000:")
                .contains("the cache would never fill")
                .contains("--keys of at least 5000")
                .contains("--max-entries of at most 100")
                .contains("Usage: offheap compare");
        assertThat(r.out()).as("nothing planned").isEmpty();
    }

    @Test
    void aSweepIsRefusedForItsLargestMaxEntries() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--keys", "8000", "--max-entries", "5000,10000",
                "--loader", "memory")))
                .isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--keys 8000 is fewer than --max-entries 10000:");
    }

    @Test
    void aKeySpaceAsLargeAsTheCacheOrLargerIsARun() throws UsageException {
        assertThat(CompareOptions.parse(List.of("--keys", "5000", "--max-entries", "5000", "--loader", "memory"))
                .workload(Variant.ON_HEAP, 100_000, 5_000).offers()).isEqualTo(5_000);
        assertThat(CompareOptions.parse(List.of("--keys", "10001", "--max-entries", "5000,10000", "--loader", "memory"))
                .workload(Variant.ON_HEAP, 100_000, 10_000).offers()).isEqualTo(10_001);
    }

    @Test
    void theHelpSaysTheKeySpaceMustHoldTheCache() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--help");
        assertThat(r.out()).contains("at least the largest max entries");
    }
}
