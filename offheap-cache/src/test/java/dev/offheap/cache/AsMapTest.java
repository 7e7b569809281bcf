package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link OffHeapCache#asMap()} does beyond the {@link ConcurrentMap} contract that
 * {@link MapViewGuavaSuiteTest} checks: copies, byte equality, wrong types, atomic compute, close.
 */
class AsMapTest {

    private static OffHeapCache<String, byte[]> cache() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.byteArrays()).capacity(4L << 20).build();
    }

    @Test
    void isOneViewWhoseValuesAreCopies() {
        try (OffHeapCache<String, byte[]> cache = cache()) {
            ConcurrentMap<String, byte[]> map = cache.asMap();
            assertThat(cache.asMap()).isSameAs(map);
            byte[] value = {1, 2, 3};
            assertThat(map.put("k", value)).isNull();
            value[0] = 9;
            byte[] read = map.get("k");
            assertThat(read).containsExactly(1, 2, 3).isNotSameAs(map.get("k"));
            assertThat(map.put("k", new byte[] {4})).containsExactly(1, 2, 3);
            assertThat(cache.getIfPresent("k")).containsExactly(4);
        }
    }

    @Test
    void conditionalOperationsCompareSerializedBytes() {
        try (OffHeapCache<String, byte[]> cache = cache()) {
            ConcurrentMap<String, byte[]> map = cache.asMap();
            map.put("k", new byte[] {1, 2});
            // a different array with the same bytes: equal here, unlike in a HashMap of arrays
            assertThat(map.replace("k", new byte[] {1, 2}, new byte[] {3})).isTrue();
            assertThat(map.remove("k", new byte[] {1, 2})).isFalse();
            assertThat(map.remove("k", new byte[] {3})).isTrue();
            assertThat(map).isEmpty();
        }
    }

    @Test
    void argumentsOfAnotherTypeGetClassCastException() {
        try (OffHeapCache<String, byte[]> cache = cache()) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Map<Object, Object> raw = (Map) cache.asMap();
            assertThatThrownBy(() -> raw.get(42L)).isInstanceOf(ClassCastException.class)
                    .hasCauseInstanceOf(SerializationException.class);
            assertThatThrownBy(() -> raw.containsKey(42L)).isInstanceOf(ClassCastException.class);
            assertThatThrownBy(() -> raw.put("k", "not an array")).isInstanceOf(ClassCastException.class);
            assertThat(cache.size()).as("nothing stored").isZero();
        }
    }

    @Test
    void computeRunsItsFunctionOnceAtomicallyPerCall() throws Exception {
        try (OffHeapCache<String, byte[]> cache = cache()) {
            ConcurrentMap<String, byte[]> map = cache.asMap();
            map.put("counter", new byte[] {0, 0, 0, 0});
            AtomicInteger calls = new AtomicInteger();
            ExecutorService threads = Executors.newFixedThreadPool(4);
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                work.add(threads.submit(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        map.compute("counter", (k, old) -> {
                            calls.incrementAndGet();
                            return toBytes(fromBytes(old) + 1);
                        });
                        map.merge("merged", toBytes(1), (old, one) -> toBytes(fromBytes(old) + fromBytes(one)));
                        map.computeIfAbsent("absent-once", k -> toBytes(calls.get()));
                    }
                }));
            }
            for (Future<?> f : work) {
                f.get(60, TimeUnit.SECONDS);
            }
            threads.shutdown();
            assertThat(fromBytes(map.get("counter"))).isEqualTo(8_000);
            assertThat(calls.get()).as("one call per compute").isEqualTo(8_000);
            assertThat(fromBytes(map.get("merged"))).isEqualTo(8_000);
            assertThat(map.computeIfPresent("missing", (k, v) -> v)).isNull();
            assertThat(map.containsKey("missing")).isFalse();
            assertThat(map.computeIfPresent("merged", (k, v) -> null)).isNull();
            assertThat(map.containsKey("merged")).as("a null result removes").isFalse();
        }
    }

    @Test
    void aClosedCachesMapThrows() {
        OffHeapCache<String, byte[]> cache = cache();
        ConcurrentMap<String, byte[]> map = cache.asMap();
        map.put("k", new byte[1]);
        cache.close();
        assertThatThrownBy(() -> map.get("k")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> map.put("k", new byte[1])).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(map::size).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> map.entrySet().iterator()).isInstanceOf(IllegalStateException.class);
    }

    private static byte[] toBytes(int value) {
        return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static int fromBytes(byte[] bytes) {
        return (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | (bytes[3] & 0xFF);
    }
}
