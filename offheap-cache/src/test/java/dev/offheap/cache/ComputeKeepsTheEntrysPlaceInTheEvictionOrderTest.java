package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A compute that gives a live entry a value (the one it was given, or a new one) keeps the entry where it
 * is in the eviction order, counted as an access, as a put over it does and as Caffeine's compute does
 * (its remap counts the update as a read for the policy). Before the fix compute removed the entry and
 * stored it anew, in the window of new entries: a read (protected) entry lost its protection and was
 * evicted by the next entries read more often than it, as the entry that was never computed was not.
 */
class ComputeKeepsTheEntrysPlaceInTheEvictionOrderTest {

    private static final String VALUE = "v".repeat(100);

    /**
     * "hot" is read once in probation, which moves it to the protected queue; then {@code touch} runs on it;
     * then a stream of new keys, each read five times while new (more often than "hot"), goes through the
     * cache. A protected entry is evicted only when probation is empty, which it never is here; an entry
     * back in the window meets those keys at the head of probation and loses.
     */
    private static boolean survives(Consumer<OffHeapCache<String, String>> touch) {
        List<RemovalCause> heard = new ArrayList<>();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 16).concurrencyLevel(1).evictionPolicy(EvictionPolicy.W_TINY_LFU)
                .removalListener((k, v, cause) -> {
                    if (k.equals("hot")) {
                        heard.add(cause);
                    }
                }).build()) {
            cache.put("hot", VALUE);
            for (int i = 0; i < 40; i++) {
                cache.put("filler-" + i, VALUE); // pushes "hot" out of the window, into probation
            }
            assertThat(cache.getIfPresent("hot")).isNotNull();
            cache.put("filler-40", VALUE); // the write replays the read: "hot" is protected now
            touch.accept(cache);
            streamOfKeysReadOftenWhileNew(cache);
            ((OffHeapCacheImpl<?, ?>) cache).verify();
            boolean present = cache.getIfPresent("hot") != null;
            assertThat(heard.contains(RemovalCause.SIZE)).isEqualTo(!present);
            return present;
        }
    }

    @Test
    void aProtectedEntryThatNoComputeTouchedSurvives() {
        assertThat(survives(cache -> { })).isTrue();
    }

    @Test
    void computeKeepingTheValueKeepsTheEntryProtected() {
        assertThat(survives(cache -> cache.compute("hot", (k, v) -> v))).isTrue();
    }

    @Test
    void computeWithANewValueOfTheSameSizeKeepsTheEntryProtected() {
        assertThat(survives(cache -> cache.compute("hot", (k, v) -> "w".repeat(100)))).isTrue();
    }

    @Test
    void theViewsComputeIfPresentAndMergeKeepTheEntryProtected() {
        assertThat(survives(cache -> {
            ConcurrentMap<String, String> map = cache.asMap();
            map.computeIfPresent("hot", (k, v) -> v);
            map.merge("hot", VALUE, (old, given) -> old);
        })).isTrue();
    }

    @Test
    void replaceKeepsTheEntryProtected() {
        assertThat(survives(cache -> {
            cache.replace("hot", "x".repeat(100));
            cache.replace("hot", "x".repeat(100), VALUE);
        })).isTrue();
    }

    /** As a put over the entry does: the write is an access for the policy, the entry stays where it is. */
    @Test
    void aPutOverTheEntryKeepsItProtected() {
        assertThat(survives(cache -> cache.put("hot", VALUE))).isTrue();
    }

    /**
     * 1,000 new keys, each read five times while new: more often than an entry read once. Not so many that
     * the keys promoted meanwhile (read after their turn in the window) overflow the protected queue, which
     * would demote a protected entry too (about 1,500 here).
     */
    static void streamOfKeysReadOftenWhileNew(OffHeapCache<String, String> cache) {
        for (int i = 0; i < 1_000; i++) {
            String key = "new-" + i;
            cache.put(key, VALUE);
            for (int read = 0; read < 5; read++) {
                cache.getIfPresent(key);
            }
        }
    }
}
