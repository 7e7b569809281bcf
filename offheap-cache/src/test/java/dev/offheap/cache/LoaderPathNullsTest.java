package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * "A null key or value throws NullPointerException naming which" (OffHeapCache), on the loading paths too,
 * whether or not the cache has a loader.
 */
class LoaderPathNullsTest {

    private static void check(OffHeapCache<String, String> cache) {
        assertThatThrownBy(() -> cache.get(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> cache.get(null, k -> "v")).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> cache.get("k", null)).isInstanceOf(NullPointerException.class).hasMessage("loader");
        assertThatThrownBy(() -> cache.getAll(null)).isInstanceOf(NullPointerException.class).hasMessage("keys");
        assertThatThrownBy(() -> cache.getAll(Arrays.asList("a", null))).isInstanceOf(NullPointerException.class)
                .hasMessage("key");
        assertThatThrownBy(() -> cache.getAllPresent(Arrays.asList("a", null)))
                .isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> cache.readOrLoad(null, k -> "v", s -> 1)).isInstanceOf(NullPointerException.class)
                .hasMessage("key");
        assertThatThrownBy(() -> cache.readOrLoad("k", null, s -> 1)).isInstanceOf(NullPointerException.class)
                .hasMessage("loader");
        assertThatThrownBy(() -> cache.readOrLoad("k", k -> "v", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("reader");
        assertThatThrownBy(() -> cache.readQuietly(null, s -> 1)).isInstanceOf(NullPointerException.class)
                .hasMessage("key");
    }

    @Test
    void withALoader() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(k -> "v").build()) {
            check(cache);
            cache.getAll(List.of("a"));
        }
    }

    @Test
    void withoutALoader() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            check(cache);
        }
    }
}
