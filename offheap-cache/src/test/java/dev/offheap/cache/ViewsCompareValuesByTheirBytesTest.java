package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.ConcurrentMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The map view compares values by their serialized bytes wherever it compares them, as its
 * {@code remove(key, value)} and {@code replace(key, old, new)} do: {@code containsValue}, the values'
 * {@code contains} and {@code remove}, and the entry set's {@code contains}. They compared with
 * {@code equals}, which for {@code byte[]} values (the view hands out fresh copies) is never true: a
 * value just put was not contained, not even the very array put, and the entry set's {@code contains}
 * denied an entry that its {@code remove} then removed.
 */
class ViewsCompareValuesByTheirBytesTest {

    private static OffHeapCache<byte[], byte[]> cache() {
        return OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays()).capacity(1 << 20).build();
    }

    @Test
    void containsValueFindsTheValuePut() {
        try (OffHeapCache<byte[], byte[]> cache = cache()) {
            ConcurrentMap<byte[], byte[]> map = cache.asMap();
            byte[] value = {2, 3};
            map.put(new byte[]{1}, value);
            assertThat(map.containsValue(value)).isTrue();
            assertThat(map.containsValue(new byte[]{2, 3})).isTrue();
            assertThat(map.values().contains(new byte[]{2, 3})).isTrue();
            assertThat(map.containsValue(new byte[]{2})).isFalse();
            assertThat(map.values().contains(new byte[]{2, 3, 4})).isFalse();
        }
    }

    @Test
    void theEntrySetContainsWhatItsRemoveRemoves() {
        try (OffHeapCache<byte[], byte[]> cache = cache()) {
            ConcurrentMap<byte[], byte[]> map = cache.asMap();
            map.put(new byte[]{1}, new byte[]{2, 3});
            assertThat(map.entrySet().contains(Map.entry(new byte[]{1}, new byte[]{2}))).isFalse();
            assertThat(map.entrySet().contains(Map.entry(new byte[]{9}, new byte[]{2, 3}))).isFalse();
            Map.Entry<byte[], byte[]> entry = Map.entry(new byte[]{1}, new byte[]{2, 3});
            assertThat(map.entrySet().contains(entry)).isTrue();
            assertThat(map.entrySet().remove(entry)).isTrue();
            assertThat(map.entrySet().contains(entry)).isFalse();
        }
    }

    @Test
    void theValuesRemoveOneEntryOfTheValue() {
        try (OffHeapCache<byte[], byte[]> cache = cache()) {
            ConcurrentMap<byte[], byte[]> map = cache.asMap();
            map.put(new byte[]{1}, new byte[]{7});
            map.put(new byte[]{2}, new byte[]{7});
            map.put(new byte[]{3}, new byte[]{8});
            assertThat(map.values().remove(new byte[]{7})).isTrue();
            assertThat(map).hasSize(2);
            assertThat(map.values().remove(new byte[]{7})).isTrue();
            assertThat(map.values().remove(new byte[]{7})).isFalse();
            assertThat(map).hasSize(1);
            assertThat(map.containsKey(new byte[]{3})).isTrue();
        }
    }

    @Test
    void stringValuesAreComparedAsBefore() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            map.put("a", "x");
            assertThat(map.containsValue("x")).isTrue();
            assertThat(map.containsValue("y")).isFalse();
            assertThat(map.entrySet().contains(Map.entry("a", "x"))).isTrue();
            assertThat(map.values().remove("y")).isFalse();
            assertThat(map.values().remove("x")).isTrue();
            assertThat(map).isEmpty();
        }
    }
}
