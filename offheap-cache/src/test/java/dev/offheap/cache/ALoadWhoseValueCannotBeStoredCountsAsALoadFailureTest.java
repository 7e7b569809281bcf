package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A loader that returns a value the cache cannot store (over the entry limit) fails the call, stores
 * nothing and gives its waiters a failure: the statistics count a load failure, what the callers saw. They
 * counted a load success, recorded as soon as the loader returned, before the store failed.
 */
class ALoadWhoseValueCannotBeStoredCountsAsALoadFailureTest {
    private static final String TOO_LARGE = "x".repeat(4096);

    @Test
    void getGetAllAndReadOrLoadCountALoadFailureWhenTheLoadedValueIsTooLarge() {
        CacheLoader<String, String> loader = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return key.startsWith("big") ? TOO_LARGE : "v";
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                return Map.of("a", "v", "big-b", TOO_LARGE);
            }
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).maxEntryBytes(1024).recordStats(true).loader(loader).build()) {
            assertThat(cache.get("small")).isEqualTo("v");
            assertThat(cache.stats().loadSuccessCount()).isEqualTo(1);

            assertThat(catchThrowable(() -> cache.get("big-1"))).isInstanceOf(ValueTooLargeException.class);
            assertThat(catchThrowable(() -> cache.get("big-2", key -> TOO_LARGE)))
                    .isInstanceOf(ValueTooLargeException.class);
            assertThat(catchThrowable(() -> cache.readOrLoad("big-3", key -> TOO_LARGE, segment -> segment.byteSize())))
                    .isInstanceOf(ValueTooLargeException.class);
            assertThat(catchThrowable(() -> cache.getAll(List.of("a", "big-b"))))
                    .isInstanceOf(ValueTooLargeException.class);

            CacheStats stats = cache.stats();
            assertThat(stats.loadSuccessCount()).isEqualTo(1);
            assertThat(stats.loadFailureCount()).isEqualTo(4);
            assertThat(cache.getIfPresent("big-1")).isNull();
        }
    }
}
