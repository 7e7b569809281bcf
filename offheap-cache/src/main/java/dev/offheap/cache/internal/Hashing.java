package dev.offheap.cache.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 64-bit hash of serialized keys. One function over a {@link MemorySegment}, so a key hashes the same
 * whether it is read from the caller's heap copy or from the cache's region (rehashing on table growth and
 * the sketch of an evicted entry read the region).
 */
final class Hashing {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Longs of a key's array, read as {@link #LONG} reads them from a segment. */
    private static final VarHandle ARRAY_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long P1 = 0x9E3779B97F4A7C15L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;

    private Hashing() {
    }

    /**
     * @param segment where the key lies
     * @param offset  its first byte
     * @param length  its length in bytes
     * @return a well-mixed 64-bit hash
     */
    static long hash(MemorySegment segment, long offset, int length) {
        long h = P1 ^ (length * P2);
        long i = 0;
        for (; i + 8 <= length; i += 8) {
            h = mix(h, segment.get(LONG, offset + i));
        }
        if (i < length) {
            long tail = 0;
            for (int shift = 0; i < length; i++, shift += 8) {
                tail |= (segment.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFFL) << shift;
            }
            h = mix(h, tail);
        }
        return finish(h);
    }

    /**
     * The same hash of a whole key array, read through a byte-array view rather than a heap segment: a
     * lookup hashes its serialized key on every call, and the segment's checks cost about a tenth of a
     * get of an 8-byte key that is in the cache.
     *
     * @param key the serialized key
     * @return {@code hash(MemorySegment.ofArray(key), 0, key.length)}
     */
    static long hash(byte[] key) {
        int length = key.length;
        long h = P1 ^ (length * P2);
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = mix(h, (long) ARRAY_LONGS.get(key, i));
        }
        if (i < length) {
            long tail = 0;
            for (int shift = 0; i < length; i++, shift += 8) {
                tail |= (key[i] & 0xFFL) << shift;
            }
            h = mix(h, tail);
        }
        return finish(h);
    }

    private static long mix(long h, long word) {
        return Long.rotateLeft(h ^ (word * P2), 31) * P1;
    }

    private static long finish(long h) {
        // murmur3's finalizer: every input bit affects every output bit
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return h;
    }
}
