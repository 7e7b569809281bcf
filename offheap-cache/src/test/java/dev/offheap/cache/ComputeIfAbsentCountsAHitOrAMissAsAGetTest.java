package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The map view's {@code computeIfAbsent} looks its key up as a get does, and counts a hit or a miss, as
 * Caffeine's does; {@code putIfAbsent} counts neither, as Caffeine's. docs/cache.md said that neither counted a
 * hit. The function of {@code computeIfAbsent} is no loader: it counts no load.
 */
class ComputeIfAbsentCountsAHitOrAMissAsAGetTest {

    @Test
    void computeIfAbsentCountsAHitOrAMissAndPutIfAbsentNeither() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).build()) {
            cache.put("present", "1");

            cache.putIfAbsent("present", "2");
            cache.putIfAbsent("absent", "2");
            assertThat(cache.stats().requestCount()).isZero();

            assertThat(cache.asMap().computeIfAbsent("present", key -> "3")).isEqualTo("1");
            assertThat(cache.asMap().computeIfAbsent("new", key -> "3")).isEqualTo("3");

            CacheStats stats = cache.stats();
            assertThat(stats.hitCount()).isEqualTo(1);
            assertThat(stats.missCount()).isEqualTo(1);
            assertThat(stats.loadSuccessCount() + stats.loadFailureCount()).isZero();
        }
    }
}
