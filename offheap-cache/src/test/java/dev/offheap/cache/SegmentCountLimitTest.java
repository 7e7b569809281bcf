package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CacheBuilder#concurrencyLevel}'s javadoc: the segment count follows the level, but every segment
 * must hold two of the largest entries with its tables, so the default max entry size (a sixteenth of the
 * capacity) allows 4 segments whatever the level, and a smaller one allows more. The docs said 16 segments for
 * the benchmarks' 128 MiB caches, which ran on 4.
 */
class SegmentCountLimitTest {

    private static int segments(long capacity, int level, long maxEntryBytes) {
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(capacity).concurrencyLevel(level);
        if (maxEntryBytes > 0) {
            builder.maxEntryBytes(maxEntryBytes);
        }
        try (OffHeapCache<String, String> cache = builder.build()) {
            return ((OffHeapCacheImpl<?, ?>) cache).shardCount();
        }
    }

    @Test
    void theDefaultMaxEntrySizeAllowsFourSegmentsWhateverTheLevel() {
        for (int level : new int[] {16, 64, 65_536}) {
            assertThat(segments(128L << 20, level, 0)).as("128 MiB, level " + level).isEqualTo(4);
            assertThat(segments(1L << 20, level, 0)).as("1 MiB, level " + level).isEqualTo(4);
        }
    }

    @Test
    void aSmallerMaxEntrySizeAllowsTheLevelsSegments() {
        assertThat(segments(128L << 20, 64, 128L << 10)).isEqualTo(64);
        assertThat(segments(128L << 20, 3, 128L << 10)).as("a level rounds up to a power of two").isEqualTo(4);
        assertThat(segments(128L << 20, 1, 0)).isEqualTo(1);
    }
}
