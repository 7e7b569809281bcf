package dev.offheap.bench.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * Builds the three caches the same way for every benchmark: {@code Long} keys, {@code byte[]} values.
 *
 * <ul>
 * <li>offheap: {@code OffHeapCache} with the built-in {@code longs()} and {@code byteArrays()}
 *     serializers, statistics off (Caffeine's and OHC's are off too, or cannot be turned off).
 * <li>Caffeine: {@code maximumWeight} in value bytes, weigher {@code value.length}.
 * <li>OHC 0.7.4: the linked implementation (OHC's default), its capacity in bytes, LRU or W-TinyLFU,
 *     default segment count and allocator (JNA's malloc when JNA is present, as here).
 * </ul>
 */
final class Caches {
    /** OHC's per-entry header in the linked implementation, for the capacities that must hold everything. */
    static final int OHC_ENTRY_HEADER = 64;

    private Caches() {
    }

    static OffHeapCache<Long, byte[]> offheap(long capacityBytes, EvictionPolicy policy) {
        return OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(capacityBytes)
                .evictionPolicy(policy)
                .recordStats(false)
                .name("bench-" + policy.name().toLowerCase(java.util.Locale.ROOT))
                .build();
    }

    static Cache<Long, byte[]> caffeine(long maximumValueBytes, Executor maintenance) {
        return Caffeine.newBuilder()
                .maximumWeight(maximumValueBytes)
                .weigher((Long key, byte[] value) -> value.length)
                .executor(maintenance)
                .build();
    }

    /** A Caffeine bounded by its entry count, maintenance on the calling thread (deterministic evictions). */
    static Cache<Long, byte[]> caffeineOfEntries(long maximumSize) {
        return Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .executor(Runnable::run)
                .build();
    }

    static OHCache<Long, byte[]> ohc(long capacityBytes, Eviction eviction, int maxEntryBytes) {
        return OHCacheBuilder.<Long, byte[]>newBuilder()
                .keySerializer(LongSerializer.INSTANCE)
                .valueSerializer(BytesSerializer.INSTANCE)
                .capacity(capacityBytes)
                .maxEntrySize(maxEntryBytes)
                .eviction(eviction)
                .build();
    }

    /**
     * A capacity for {@code offheap} and OHC that holds all of a workload's entries with room to spare:
     * the benchmarks of hits and overwrites must not evict.
     */
    static long roomForAll(Workload w) {
        long perEntry = (long) w.valueBytes + Long.BYTES + OHC_ENTRY_HEADER + 32;
        return perEntry * w.keyCount * 3 / 2 + (32L << 20);
    }

    /** OHC's serializer of the keys: 8 bytes. */
    enum LongSerializer implements CacheSerializer<Long> {
        INSTANCE;

        @Override
        public void serialize(Long value, ByteBuffer buffer) {
            buffer.putLong(value);
        }

        @Override
        public Long deserialize(ByteBuffer buffer) {
            return buffer.getLong();
        }

        @Override
        public int serializedSize(Long value) {
            return Long.BYTES;
        }
    }

    /** OHC's serializer of the values: the bytes as they are; a get copies them into a new array. */
    enum BytesSerializer implements CacheSerializer<byte[]> {
        INSTANCE;

        @Override
        public void serialize(byte[] value, ByteBuffer buffer) {
            buffer.put(value);
        }

        @Override
        public byte[] deserialize(ByteBuffer buffer) {
            byte[] value = new byte[buffer.remaining()];
            buffer.get(value);
            return value;
        }

        @Override
        public int serializedSize(byte[] value) {
            return value.length;
        }
    }
}
