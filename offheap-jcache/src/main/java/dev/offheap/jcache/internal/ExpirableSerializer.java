package dev.offheap.jcache.internal;

import dev.offheap.cache.Serializer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Stores an {@link Expirable}: the expiry time, then the value as its own serializer writes it.
 *
 * <pre>
 *  0        8                                    8 + n
 *  +--------+------------------------------------+
 *  | expiry | value bytes (n, the value's serializer) |
 *  +--------+------------------------------------+
 *  expiry: long, native order, System.currentTimeMillis() at which the entry expires (MAX_VALUE: never)
 * </pre>
 *
 * <p>The expiry comes first so that {@link #expiresAt(MemorySegment)} reads it in place, without
 * deserializing the value. {@link #read(MemorySegment)} keeps the value's bytes and leaves decoding to
 * {@link Expirable#value()}.
 */
final class ExpirableSerializer<V> implements Serializer<Expirable<V>> {
    static final long HEADER_BYTES = Long.BYTES;

    private final Serializer<V> values;
    /** Told of every expiry time written; null when nobody sweeps. */
    private final EarliestExpiry earliestExpiry;

    ExpirableSerializer(Serializer<V> values) {
        this(values, null);
    }

    /** @param earliestExpiry told of every expiry time this serializer writes */
    ExpirableSerializer(Serializer<V> values, EarliestExpiry earliestExpiry) {
        this.values = values;
        this.earliestExpiry = earliestExpiry;
    }

    static long expiresAt(MemorySegment stored) {
        return stored.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    @Override
    public int serializedSize(Expirable<V> stored) {
        int valueBytes = stored.valueSize(values);
        if (valueBytes < 0 || valueBytes > Integer.MAX_VALUE - HEADER_BYTES) {
            throw new IllegalArgumentException("the value serializer declared " + valueBytes + " bytes");
        }
        return (int) HEADER_BYTES + valueBytes;
    }

    @Override
    public void write(Expirable<V> stored, MemorySegment target) {
        long expiresAt = stored.expiresAtMillis();
        if (earliestExpiry != null) {
            // every stored entry passes here: a put, a load, an access that moves the expiry time
            earliestExpiry.written(expiresAt);
        }
        target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, expiresAt);
        stored.writeValue(values, target.asSlice(HEADER_BYTES));
    }

    @Override
    public Expirable<V> read(MemorySegment source) {
        // The source is valid only during this call: keep a copy of the value bytes, decode on demand.
        return Expirable.stored(source.asSlice(HEADER_BYTES).toArray(ValueLayout.JAVA_BYTE), expiresAt(source),
                values);
    }

    @Override
    public String toString() {
        return "expiry time + " + values;
    }
}
