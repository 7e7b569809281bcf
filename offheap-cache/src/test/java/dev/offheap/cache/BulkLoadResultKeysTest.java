package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys of {@link CacheLoader#loadAll}'s result are matched to the asked ones as the cache compares keys,
 * by their serialized bytes, and keys nobody asked for are cached but not returned, as in Caffeine.
 */
class BulkLoadResultKeysTest {

    @Test
    void byteArrayKeysMadeAnewByLoadAllAreMatchedByTheirContents() {
        CacheLoader<byte[], byte[]> loader = new CacheLoader<>() {
            @Override
            public byte[] load(byte[] key) {
                return new byte[]{(byte) (key[0] * 10)};
            }

            @Override
            public Map<byte[], byte[]> loadAll(Set<? extends byte[]> keys) {
                Map<byte[], byte[]> values = new HashMap<>();
                for (byte[] key : keys) {
                    values.put(key.clone(), new byte[]{(byte) (key[0] * 10)}); // as one made from a query's rows
                }
                return values;
            }
        };
        try (OffHeapCache<byte[], byte[]> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(1 << 20).loader(loader).build()) {
            byte[] one = {1};
            byte[] two = {2};
            Map<byte[], byte[]> all = cache.getAll(List.of(one, two));
            assertThat(all).hasSize(2);
            assertThat(all.get(one)).containsExactly(10);
            assertThat(all.get(two)).containsExactly(20);
            assertThat(cache.getIfPresent(new byte[]{1})).as("cached").containsExactly(10);
            assertThat(cache.getIfPresent(new byte[]{2})).as("cached").containsExactly(20);
            assertThat(cache.stats().loadSuccessCount()).isEqualTo(1);
        }
    }

    @Test
    void extraKeysOfLoadAllAreCachedButNotReturned() {
        CacheLoader<String, String> loader = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "v" + key;
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                Map<String, String> values = new HashMap<>();
                for (String key : keys) {
                    values.put(key, "v" + key);
                }
                values.put("neighbour", "vneighbour"); // fetched along with them
                return values;
            }
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(loader).build()) {
            assertThat(cache.getAll(List.of("a", "b"))).containsExactlyInAnyOrderEntriesOf(Map.of("a", "va", "b", "vb"));
            assertThat(cache.getIfPresent("neighbour")).isEqualTo("vneighbour");
            assertThat(cache.size()).isEqualTo(3);
        }
    }
}
