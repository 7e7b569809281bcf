package dev.offheap.cache.internal;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.RemovalCause;
import dev.offheap.cache.Serializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A write whose new value needs another block size than the entry's moves the entry to a new block, and
 * making room for it in a full segment evicts other entries, each copied to the heap for the removal
 * listener. When such a copy fails (an OutOfMemoryError; injected here), the write fails, and the key keeps
 * its old value, with no REPLACED told and the accounts exact. The old entry was removed (and its REPLACED
 * collected) before the new one was placed: the failure lost the old value, and the listener was told of a
 * replacement that never happened.
 */
class AWriteThatMovesAnEntryAndFailsKeepsTheOldValueTest {

    private static final String OLD = "o".repeat(100);
    private static final String BIGGER = "b".repeat(2_000);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"put", "replace", "conditional replace", "compute"})
    void theKeyKeepsItsOldValueAndNoReplacementIsTold(String write) {
        List<String> heard = new CopyOnWriteArrayList<>();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 16).concurrencyLevel(1)
                .removalListener((k, v, cause) -> heard.add(k + " " + cause)).build()) {
            OffHeapCacheImpl<String, String> impl = (OffHeapCacheImpl<String, String>) cache;
            for (int i = 0; i < 1_000; i++) {
                cache.put("filler-" + i, OLD); // full: the next write that grows must evict
            }
            cache.put("k", OLD);
            long size = cache.size();
            long weightedSize = cache.weightedSize();
            heard.clear();

            impl.failRemovalCopies(RemovalCause.SIZE);
            assertThatThrownBy(() -> {
                switch (write) {
                    case "put" -> cache.put("k", BIGGER);
                    case "replace" -> cache.replace("k", BIGGER);
                    case "conditional replace" -> cache.replace("k", OLD, BIGGER);
                    default -> cache.compute("k", (k, v) -> BIGGER);
                }
            }).as("the eviction's copy fails").isInstanceOf(OutOfMemoryError.class);
            impl.failRemovalCopies(null);

            assertThat(heard).as("told").isEmpty();
            assertThat(cache.getIfPresent("k")).isEqualTo(OLD);
            assertThat(cache.size()).isEqualTo(size);
            assertThat(cache.weightedSize()).isEqualTo(weightedSize);
            impl.verify();

            // and the entry moves as it should once the copies work again
            assertThat(cache.replace("k", BIGGER)).isEqualTo(OLD);
            assertThat(cache.getIfPresent("k")).isEqualTo(BIGGER);
            assertThat(heard).contains("k REPLACED").doesNotContain("k SIZE");
            impl.verify();
        }
    }
}
