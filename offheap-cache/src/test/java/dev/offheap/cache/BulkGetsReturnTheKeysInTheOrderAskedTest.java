package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code getAllPresent} and {@code getAll} return their keys in the order the iterable gave them, each key
 * once (at its first place), as Caffeine's do: the loading getAll returned the keys found present first
 * and the loaded ones after them.
 */
class BulkGetsReturnTheKeysInTheOrderAskedTest {

    /** Leaves "skip-" keys out and adds a key nobody asked for, which is cached but not returned. */
    private static Map<String, String> loadAll(Set<? extends String> keys) {
        Map<String, String> values = new HashMap<>();
        for (String key : keys) {
            if (!key.startsWith("skip-")) {
                values.put(key, "loaded " + key);
            }
        }
        values.put("extra", "not asked for");
        return values;
    }

    private static final CacheLoader<String, String> LOADER = new CacheLoader<>() {
        @Override
        public String load(String key) {
            return "loaded " + key;
        }

        @Override
        public Map<String, String> loadAll(Set<? extends String> keys) {
            return BulkGetsReturnTheKeysInTheOrderAskedTest.loadAll(keys);
        }
    };

    /** Present, absent, left-out and repeated keys, mixed, over several of the lookups' batches of 32. */
    private static List<String> keys() {
        List<String> keys = new ArrayList<>();
        for (int i = 99; i >= 0; i--) {
            keys.add(switch (i % 4) {
                case 0 -> "present-" + i;
                case 1 -> "absent-" + i;
                case 2 -> "skip-" + i;
                default -> "present-" + (i + 1); // a repeat of the key before
            });
        }
        keys.add("absent-1");
        keys.add("present-0");
        return keys;
    }

    private static OffHeapCache<String, String> cache() {
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(LOADER).build();
        for (int i = 0; i < 100; i += 4) {
            cache.put("present-" + i, "stored " + i);
        }
        return cache;
    }

    /**
     * What Caffeine 3.3.1 returns for {@link #keys()}, with the same entries and loader: the keys that have
     * a value, in the order asked, each once.
     */
    private static List<String> expected(boolean loading) {
        List<String> expected = new ArrayList<>();
        for (String key : keys()) {
            boolean present = key.startsWith("present-") && Integer.parseInt(key.substring(8)) < 100;
            boolean loaded = loading && !key.startsWith("skip-");
            if ((present || loaded) && !expected.contains(key)) {
                expected.add(key);
            }
        }
        return expected;
    }

    @Test
    void getAllPresentFollowsTheKeys() {
        try (OffHeapCache<String, String> cache = cache()) {
            assertThat(cache.getAllPresent(keys()).keySet()).containsExactlyElementsOf(expected(false));
        }
    }

    @Test
    void getAllPutsTheLoadedKeysInTheirPlaces() {
        try (OffHeapCache<String, String> cache = cache()) {
            assertThat(expected(true)).first().isEqualTo("present-100"); // never stored: loaded, yet first
            Map<String, String> all = cache.getAll(keys());
            assertThat(all.keySet()).containsExactlyElementsOf(expected(true));
            assertThat(all).containsEntry("present-100", "loaded present-100").containsEntry("present-0", "stored 0");
            // again, every key present now
            assertThat(cache.getAll(keys()).keySet()).containsExactlyElementsOf(expected(true));
        }
    }

    @Test
    void aKeyWithTheBytesOfAnEarlierOneKeepsItsOwnPlace() {
        try (OffHeapCache<byte[], byte[]> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(1 << 20).loader(key -> new byte[]{(byte) (key[0] * 10)}).build()) {
            byte[] one = {1};
            byte[] two = {2};
            byte[] oneAgain = {1}; // the same cache key as one, another map key (byte[] equals is identity)
            byte[] three = {3};
            cache.put(three, new byte[]{30});
            List<byte[]> asked = List.of(one, two, oneAgain, three);
            assertThat(cache.getAll(asked).keySet()).containsExactlyElementsOf(asked);
            assertThat(cache.getAllPresent(asked).keySet()).containsExactlyElementsOf(asked);
        }
    }
}
