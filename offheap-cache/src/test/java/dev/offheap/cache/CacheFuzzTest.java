package dev.offheap.cache;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.offheap.cache.internal.OffHeapCacheImpl;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of operations against a {@link HashMap} reference model. The removal listener tells the
 * model about evictions, so model and cache must hold exactly the same entries: every value the cache
 * returns is the last one written for its key, and its byte accounting matches its contents.
 *
 * <p>During {@code ./mvnw verify} this runs in regression mode over the committed inputs in
 * {@code src/test/resources/dev/offheap/cache/CacheFuzzTestInputs/operationsMatchAReferenceModel}; with
 * {@code JAZZER_FUZZ=1} Jazzer generates new inputs (crashes found become new files there).
 */
class CacheFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void operationsMatchAReferenceModel(FuzzedDataProvider data) {
        EvictionPolicy policy = data.consumeBoolean() ? EvictionPolicy.W_TINY_LFU : EvictionPolicy.LRU;
        int concurrency = data.consumeBoolean() ? 1 : 4;
        long capacity = data.consumeLong(8192, 1 << 16);
        Map<ByteBuffer, byte[]> model = new HashMap<>();
        try (OffHeapCache<byte[], byte[]> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(capacity).evictionPolicy(policy).concurrencyLevel(concurrency)
                .removalListener((k, v, cause) -> {
                    if (cause == RemovalCause.SIZE) {
                        byte[] modelValue = model.remove(ByteBuffer.wrap(k));
                        assertThat(modelValue).as("evicted value is the last written").isEqualTo(v);
                    }
                }).build()) {
            OffHeapCacheImpl<?, ?> impl = (OffHeapCacheImpl<?, ?>) cache;
            int operations = 0;
            while (data.remainingBytes() > 0 && operations++ < 2000) {
                byte[] key = new byte[data.consumeInt(0, 3)];
                Arrays.fill(key, (byte) data.consumeInt(0, 7));
                ByteBuffer id = ByteBuffer.wrap(key);
                int op = data.consumeInt(0, 11);
                byte[] value = op <= 6 ? value(data, impl.maxEntryBytes()) : null;
                switch (op) {
                    case 0, 1 -> {
                        if (tooLarge(impl, key, value)) {
                            try {
                                cache.put(key, value);
                                throw new AssertionError("an entry over the limit was accepted");
                            } catch (ValueTooLargeException expected) {
                                continue;
                            }
                        }
                        cache.put(key, value);
                        model.put(id, value);
                    }
                    case 2 -> {
                        if (tooLarge(impl, key, value)) {
                            continue;
                        }
                        byte[] present = cache.putIfAbsent(key, value);
                        assertThat(present).isEqualTo(model.get(id));
                        if (present == null) {
                            model.put(id, value);
                        }
                    }
                    case 3 -> {
                        if (tooLarge(impl, key, value)) {
                            continue;
                        }
                        assertThat(cache.replace(key, value)).isEqualTo(model.get(id));
                        model.computeIfPresent(id, (k, v) -> value);
                    }
                    case 4 -> {
                        if (tooLarge(impl, key, value)) {
                            continue;
                        }
                        byte[] expected = model.get(id) != null && data.consumeBoolean() ? model.get(id) : new byte[]{9};
                        boolean replaced = cache.replace(key, expected, value);
                        assertThat(replaced).isEqualTo(Arrays.equals(model.get(id), expected));
                        if (replaced) {
                            model.put(id, value);
                        }
                    }
                    case 5 -> {
                        if (tooLarge(impl, key, value)) {
                            continue;
                        }
                        boolean remove = data.consumeBoolean();
                        byte[] result = cache.compute(key, (k, v) -> {
                            assertThat(v).isEqualTo(model.get(id));
                            return remove ? null : value;
                        });
                        assertThat(result).isEqualTo(remove ? null : value);
                        if (remove) {
                            model.remove(id);
                        } else {
                            model.put(id, value);
                        }
                    }
                    case 6 -> {
                        Integer length = cache.read(key, segment -> (int) segment.byteSize());
                        assertThat(length).isEqualTo(model.containsKey(id) ? model.get(id).length : null);
                    }
                    case 7 -> assertThat(cache.remove(key)).isEqualTo(model.remove(id));
                    case 8 -> {
                        byte[] expected = model.get(id) != null ? model.get(id) : new byte[0];
                        boolean removed = cache.remove(key, expected);
                        assertThat(removed).isEqualTo(model.containsKey(id));
                        model.remove(id);
                    }
                    case 9 -> {
                        if (data.consumeInt(0, 20) == 0) {
                            cache.invalidateAll();
                            model.clear();
                        } else {
                            cache.invalidate(key);
                            model.remove(id);
                        }
                    }
                    case 10 -> assertThat(cache.containsKey(key)).isEqualTo(model.containsKey(id));
                    default -> assertThat(cache.getIfPresent(key)).isEqualTo(model.get(id));
                }
            }
            assertMatches(cache, impl, model, capacity);
        }
    }

    /** A value of 0 to 64 bytes or up to the entry limit, its last byte its length (shared with {@link CacheExpiryFuzzTest}). */
    static byte[] value(FuzzedDataProvider data, long maxEntryBytes) {
        int length = data.consumeBoolean() ? data.consumeInt(0, 64) : data.consumeInt(0, (int) maxEntryBytes);
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) data.consumeInt());
        if (length > 0) {
            value[length - 1] = (byte) length;
        }
        return value;
    }

    /** Whether an entry without a time to live of its own is over the cache's entry limit. */
    static boolean tooLarge(OffHeapCacheImpl<?, ?> impl, byte[] key, byte[] value) {
        return impl.headerBytes() + key.length + value.length > impl.maxEntryBytes();
    }

    private static void assertMatches(OffHeapCache<byte[], byte[]> cache, OffHeapCacheImpl<?, ?> impl,
                                      Map<ByteBuffer, byte[]> model, long capacity) {
        impl.verify();
        Map<ByteBuffer, byte[]> contents = new HashMap<>();
        long bytes = 0;
        for (Iterator<Map.Entry<byte[], byte[]>> it = cache.entries(); it.hasNext(); ) {
            Map.Entry<byte[], byte[]> entry = it.next();
            contents.put(ByteBuffer.wrap(entry.getKey()), entry.getValue());
            bytes += (impl.headerBytes() + entry.getKey().length + entry.getValue().length + 7) & ~7;
        }
        assertThat(contents.keySet()).isEqualTo(model.keySet());
        for (Map.Entry<ByteBuffer, byte[]> entry : model.entrySet()) {
            assertThat(contents.get(entry.getKey())).isEqualTo(entry.getValue());
        }
        assertThat(cache.size()).isEqualTo(model.size());
        assertThat(cache.weightedSize()).isEqualTo(bytes);
        assertThat(impl.usedBytes()).isLessThanOrEqualTo(capacity);
    }
}
