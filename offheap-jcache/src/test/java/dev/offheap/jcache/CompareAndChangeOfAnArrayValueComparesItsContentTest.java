package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import javax.cache.Cache;
import org.junit.jupiter.api.Test;

/**
 * {@code remove(key, oldValue)} and {@code replace(key, oldValue, newValue)} on a cache of array values
 * compare the stored array with the expected one by content.
 *
 * <p>They compared with {@code equals}, which for an array is identity; a cache that stores by value hands
 * out and compares a copy, never the caller's array, so neither could ever succeed: on a cache of
 * {@code byte[]} values (a built-in type) an optimistic update loop ({@code get}, change,
 * {@code replace(key, old, new)}) never ended. JCache's reference implementation compares the stored
 * form, under which equal arrays match.
 */
class CompareAndChangeOfAnArrayValueComparesItsContentTest extends JCacheTestBase {

    @Test
    void byteArrayValuesAreReplacedAndRemovedByContent() {
        Cache<String, byte[]> cache = manager.createCache("bytes", small(String.class, byte[].class));
        cache.put("k", new byte[] {1, 2, 3});

        assertThat(cache.replace("k", new byte[] {9}, new byte[] {4})).as("another content").isFalse();
        byte[] read = cache.get("k");
        assertThat(cache.replace("k", read, new byte[] {4, 5})).as("replace with the value just read").isTrue();
        assertThat(cache.get("k")).containsExactly(4, 5);

        assertThat(cache.remove("k", new byte[] {4})).as("another content").isFalse();
        assertThat(cache.remove("k", new byte[] {4, 5})).as("remove with an equal array").isTrue();
        assertThat(cache.containsKey("k")).isFalse();
    }

    @Test
    void javaSerializedArrayValuesAreComparedByContentToo() {
        Cache<String, int[][]> cache = manager.createCache("ints", small(String.class, int[][].class));
        cache.put("k", new int[][] {{1, 2}, {3}});

        assertThat(cache.replace("k", new int[][] {{1, 2}, {4}}, new int[][] {{0}})).isFalse();
        assertThat(cache.replace("k", new int[][] {{1, 2}, {3}}, new int[][] {{7}})).isTrue();
        assertThat(cache.remove("k", new int[][] {{7}})).isTrue();
        assertThat(cache.containsKey("k")).isFalse();
    }
}
