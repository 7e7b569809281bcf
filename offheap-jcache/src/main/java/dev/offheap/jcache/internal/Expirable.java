package dev.offheap.jcache.internal;

import dev.offheap.cache.Serializer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What the off-heap cache stores per JCache entry: the value and the wall-clock time at which it expires.
 *
 * <p>One read from the store keeps the value's bytes and deserializes them only when {@link #value()} is
 * asked for. So an operation that only needs the expiry time (a put over a live entry with no listener), or
 * that writes the entry back with a new expiry time, never deserializes the value, and writing such an
 * entry back copies its bytes instead of serializing again.
 *
 * <p>Not thread-safe: an instance lives within one operation.
 *
 * @param <V> value type
 */
final class Expirable<V> {
    static final long NEVER = Long.MAX_VALUE;
    /**
     * The expiry time of an entry a zero duration expired (an update's or an access's): before every
     * reading of the clock, so that a wall clock set back does not make the entry live again.
     */
    static final long EXPIRED = Long.MIN_VALUE;

    private final long expiresAtMillis;
    private V value;
    private final byte[] valueBytes;
    /** The length of the value's serialized bytes where known without them (see {@link #prepared}); else -1. */
    private final int valueSize;
    private final Serializer<V> serializer;

    private Expirable(long expiresAtMillis, V value, byte[] valueBytes, int valueSize, Serializer<V> serializer) {
        this.expiresAtMillis = expiresAtMillis;
        this.value = value;
        this.valueBytes = valueBytes;
        this.valueSize = valueSize;
        this.serializer = serializer;
    }

    /** A new entry of a value, to be serialized when stored. */
    static <V> Expirable<V> of(V value, long expiresAtMillis) {
        return new Expirable<>(expiresAtMillis, value, null, -1, null);
    }

    /**
     * A new entry of a value serialized already, before the store is asked to hold it (a write-through
     * checks first that the store will take it). Storing it copies {@code valueBytes}, or, where they are
     * null, lets {@code serializer} write the value into the store, with {@code valueSize} as its size: the
     * serializer is not asked for the size, nor the value serialized, a second time.
     *
     * @param value           the value
     * @param valueBytes      its serialized bytes, or null (a serializer that writes exactly its size and
     *                        cannot fail, which writes it when stored)
     * @param valueSize       the length of its serialized bytes
     * @param expiresAtMillis the expiry time; a placeholder until {@link #withExpiry}
     * @param serializer      the values' serializer
     */
    static <V> Expirable<V> prepared(V value, byte[] valueBytes, int valueSize, long expiresAtMillis,
                                     Serializer<V> serializer) {
        return new Expirable<>(expiresAtMillis, value, valueBytes, valueSize, serializer);
    }

    /** An entry read from the store: its value bytes, deserialized on demand. */
    static <V> Expirable<V> stored(byte[] valueBytes, long expiresAtMillis, Serializer<V> serializer) {
        return new Expirable<>(expiresAtMillis, null, valueBytes, valueBytes.length, serializer);
    }

    /** @return the wall-clock time at which the entry expires, {@link #NEVER} for never, {@link #EXPIRED} */
    long expiresAtMillis() {
        return expiresAtMillis;
    }

    boolean isExpiredAt(long nowMillis) {
        return expiresAtMillis <= nowMillis;
    }

    /** @return the value, deserialized at the first call */
    V value() {
        if (value == null) {
            value = serializer.read(MemorySegment.ofArray(valueBytes));
        }
        return value;
    }

    /**
     * @return a value of the caller's own: decoded anew from the stored bytes, not the instance
     *         {@link #value()} keeps (which events and compare operations use as the entry's old value), so
     *         that user code changing it in place cannot change what they see
     */
    V copyOfValue() {
        return valueBytes != null ? serializer.read(MemorySegment.ofArray(valueBytes)) : value;
    }

    /** @return the same value with another expiry time; shares the serialized bytes */
    Expirable<V> withExpiry(long newExpiresAtMillis) {
        return new Expirable<>(newExpiresAtMillis, value, valueBytes, valueSize, serializer);
    }

    int valueSize(Serializer<V> values) {
        return valueSize >= 0 ? valueSize : values.serializedSize(value);
    }

    void writeValue(Serializer<V> values, MemorySegment target) {
        if (valueBytes != null) {
            MemorySegment.copy(valueBytes, 0, target, ValueLayout.JAVA_BYTE, 0, valueBytes.length);
        } else {
            values.write(value, target);
        }
    }

    @Override
    public String toString() {
        return (value != null ? String.valueOf(value) : valueBytes.length + " bytes") + " until " + expiresAtMillis;
    }
}
