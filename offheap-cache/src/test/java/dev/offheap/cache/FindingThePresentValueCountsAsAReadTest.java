package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code putIfAbsent} or {@code computeIfAbsent} (the cache's {@code get(key, loader)} and the map view's)
 * that finds the key live returns its value: a read of the entry, which the eviction policy hears of as it
 * hears of a get, as in Caffeine 3.3.1 (whose putIfAbsent and computeIfAbsent on a present key make it its
 * hottest entry, as a get does). They moved its access deadline but told the policy nothing, so an entry
 * used only through them was evicted as one never read.
 */
class FindingThePresentValueCountsAsAReadTest {

    private static final String VALUE = "v".repeat(100);

    /**
     * "hot" is pushed out of the window into probation, unread; then {@code touch} runs on it; then a
     * stream of new keys, each read five times while new, goes through the cache. An entry read in
     * probation is promoted to the protected queue, evicted only when probation is empty, which it never is
     * here; an unread one meets those keys at the head of probation and loses.
     */
    private static boolean survives(Consumer<OffHeapCache<String, String>> touch) {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 16).concurrencyLevel(1).evictionPolicy(EvictionPolicy.W_TINY_LFU).build()) {
            cache.put("hot", VALUE);
            for (int i = 0; i < 40; i++) {
                cache.put("filler-" + i, VALUE); // pushes "hot" out of the window, into probation
            }
            touch.accept(cache);
            cache.put("filler-40", VALUE); // the write replays recorded reads
            ComputeKeepsTheEntrysPlaceInTheEvictionOrderTest.streamOfKeysReadOftenWhileNew(cache);
            ((OffHeapCacheImpl<?, ?>) cache).verify();
            return cache.containsKey("hot");
        }
    }

    @Test
    void anEntryNeverReadIsEvicted() {
        assertThat(survives(cache -> { })).isFalse();
    }

    @Test
    void anEntryReadOnceSurvives() {
        assertThat(survives(cache -> cache.getIfPresent("hot"))).isTrue();
    }

    @Test
    void putIfAbsentFindingTheEntryCountsAsARead() {
        assertThat(survives(cache -> assertThat(cache.putIfAbsent("hot", "w")).isEqualTo(VALUE))).isTrue();
    }

    @Test
    void theViewsPutIfAbsentFindingTheEntryCountsAsARead() {
        assertThat(survives(cache -> assertThat(cache.asMap().putIfAbsent("hot", "w")).isEqualTo(VALUE))).isTrue();
    }

    @Test
    void theViewsComputeIfAbsentFindingTheEntryCountsAsARead() {
        assertThat(survives(cache -> assertThat(cache.asMap().computeIfAbsent("hot", k -> "w")).isEqualTo(VALUE)))
                .isTrue();
    }

    @Test
    void getWithALoaderFindingTheEntryCountsAsARead() {
        assertThat(survives(cache -> assertThat(cache.get("hot", k -> "w")).isEqualTo(VALUE))).isTrue();
    }
}
