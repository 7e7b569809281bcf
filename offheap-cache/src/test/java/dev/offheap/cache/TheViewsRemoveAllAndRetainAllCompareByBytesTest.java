package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The map view's keys, values and entries: {@code removeAll} and {@code retainAll} compare the argument's
 * elements by their serialized bytes, as the views' {@code remove} and {@code contains} do, whatever the
 * sizes of the view and of the argument; an element of a type the serializer does not take, or null, matches
 * nothing. With {@code byte[]} keys and values, Java's own methods compared the arrays by identity (a copy
 * the cache handed out never equals an argument's array), and {@code AbstractSet.removeAll} chose which
 * side to iterate by size, so the same call removed by content or not at all.
 */
class TheViewsRemoveAllAndRetainAllCompareByBytesTest {

    private static OffHeapCache<byte[], byte[]> arrays() {
        OffHeapCache<byte[], byte[]> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(1 << 20).build();
        for (byte b = 1; b <= 3; b++) {
            cache.put(new byte[]{b}, new byte[]{(byte) (b * 10)});
        }
        return cache;
    }

    private static List<Byte> keysOf(OffHeapCache<byte[], byte[]> cache) {
        List<Byte> keys = new ArrayList<>();
        cache.keys().forEachRemaining(k -> keys.add(k[0]));
        return keys;
    }

    private static List<byte[]> arraysOf(int... bytes) {
        List<byte[]> arrays = new ArrayList<>();
        for (int b : bytes) {
            arrays.add(new byte[]{(byte) b});
        }
        return arrays;
    }

    @Test
    void theKeysRemoveAllRemovesTheKeysWithTheArgumentsBytesWhetherTheArgumentIsSmallerOrLarger() {
        try (OffHeapCache<byte[], byte[]> cache = arrays()) {
            assertThat(cache.asMap().keySet().removeAll(arraysOf(1))).isTrue();
            assertThat(keysOf(cache)).containsExactlyInAnyOrder((byte) 2, (byte) 3);
        }
        try (OffHeapCache<byte[], byte[]> cache = arrays()) {
            assertThat(cache.asMap().keySet().removeAll(arraysOf(1, 2, 7, 8, 9))).isTrue();
            assertThat(keysOf(cache)).containsExactly((byte) 3);
        }
    }

    @Test
    void theKeysRetainAllKeepsTheKeysWithTheArgumentsBytes() {
        try (OffHeapCache<byte[], byte[]> cache = arrays()) {
            assertThat(cache.asMap().keySet().retainAll(arraysOf(1, 2))).isTrue();
            assertThat(keysOf(cache)).containsExactlyInAnyOrder((byte) 1, (byte) 2);
            assertThat(cache.asMap().keySet().retainAll(arraysOf(1, 2, 9))).as("nothing changed").isFalse();
        }
    }

    @Test
    void theValuesRemoveAllRemovesEveryEntryWithOneOfTheArgumentsValues() {
        try (OffHeapCache<byte[], byte[]> cache = arrays()) {
            cache.put(new byte[]{4}, new byte[]{10}); // a second entry of value 10
            assertThat(cache.asMap().values().removeAll(arraysOf(10, 99))).isTrue();
            assertThat(keysOf(cache)).containsExactlyInAnyOrder((byte) 2, (byte) 3);
            assertThat(cache.asMap().values().removeAll(arraysOf(99))).isFalse();
        }
    }

    @Test
    void theValuesRetainAllKeepsTheEntriesWithOneOfTheArgumentsValues() {
        try (OffHeapCache<byte[], byte[]> cache = arrays()) {
            assertThat(cache.asMap().values().retainAll(arraysOf(20, 30))).isTrue();
            assertThat(keysOf(cache)).containsExactlyInAnyOrder((byte) 2, (byte) 3);
        }
    }

    @Test
    void theEntriesRemoveAllAndRetainAllMatchKeyAndValueByTheirBytes() {
        try (OffHeapCache<byte[], byte[]> cache = arrays()) {
            List<Map.Entry<byte[], byte[]>> entries = List.of(Map.entry(new byte[]{1}, new byte[]{10}),
                    Map.entry(new byte[]{2}, new byte[]{99})); // key 2 with another value: not its entry
            assertThat(cache.asMap().entrySet().removeAll(entries)).isTrue();
            assertThat(keysOf(cache)).containsExactlyInAnyOrder((byte) 2, (byte) 3);

            assertThat(cache.asMap().entrySet().retainAll(List.of(Map.entry(new byte[]{3}, new byte[]{30}))))
                    .isTrue();
            assertThat(keysOf(cache)).containsExactly((byte) 3);
        }
    }

    @Test
    void anElementOfAnotherTypeOrNullMatchesNothing() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            Map<String, String> map = cache.asMap();
            for (String key : List.of("a", "b", "c", "d", "e")) { // more than the argument: it is the one iterated
                map.put(key, key.toUpperCase(java.util.Locale.ROOT));
            }

            assertThat(map.keySet().removeAll(Arrays.asList(42, null, "a"))).isTrue();
            assertThat(map.keySet().retainAll(Arrays.asList(42, null, "b"))).isTrue();
            assertThat(map).containsOnlyKeys("b");
            assertThat(map.values().removeAll(Arrays.asList(2L, null))).isFalse();
            assertThat(map.entrySet().removeAll(Arrays.asList(Map.entry(2, "B"), Map.entry("b", 2), "b"))).isFalse();
            assertThat(map).containsOnlyKeys("b");
        }
    }
}
