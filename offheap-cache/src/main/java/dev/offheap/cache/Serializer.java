package dev.offheap.cache;

import java.lang.foreign.MemorySegment;

/**
 * Turns keys or values into bytes outside the heap and back.
 *
 * <p>The cache first asks for {@link #serializedSize(Object)}, reserves exactly that many bytes, and
 * calls {@link #write(Object, MemorySegment)} with a segment of exactly that size. A serializer that
 * writes past the segment gets an {@link IndexOutOfBoundsException} from the segment itself; one that
 * throws, whose {@code serializedSize} is negative, or that leaves the last declared byte unwritten (it
 * declared more than it writes) makes the cache reject that one entry with a {@link SerializationException}
 * and leave everything else as it was. To tell an unwritten last byte from one written with the value the
 * cache put there as a mark, the cache calls {@code write} a second time for the same value, over another
 * mark, when the first left the mark in place: about once in 256 writes, so {@code write} must depend on
 * the value alone. (Bytes left unwritten before the last one read as zeros.)
 *
 * <p>Threading: the cache calls a serializer from many threads at once; implementations must be
 * thread-safe (the built-ins are stateless).
 *
 * @param <T> the type serialized
 */
public interface Serializer<T> {

    /**
     * @param value the value to serialize, never null
     * @return how many bytes {@link #write(Object, MemorySegment)} will write for it; at least 0
     */
    int serializedSize(T value);

    /**
     * Writes the value.
     *
     * @param value  the value, never null
     * @param target a segment of exactly {@link #serializedSize(Object)} bytes, valid only during the call
     */
    void write(T value, MemorySegment target);

    /**
     * Reads a value back.
     *
     * @param source the bytes one {@link #write(Object, MemorySegment)} wrote (exactly that many), valid
     *               only during the call: the serializer must copy what it keeps
     * @return the value; never null
     */
    T read(MemorySegment source);

    /** @return byte arrays, stored as they are (the array is copied in and out) */
    static Serializer<byte[]> byteArrays() {
        return BuiltInSerializers.BYTE_ARRAYS;
    }

    /** @return strings as UTF-8 */
    static Serializer<String> strings() {
        return BuiltInSerializers.STRINGS;
    }

    /** @return longs as 8 bytes, native byte order */
    static Serializer<Long> longs() {
        return BuiltInSerializers.LONGS;
    }

    /** @return integers as 4 bytes, native byte order */
    static Serializer<Integer> integers() {
        return BuiltInSerializers.INTEGERS;
    }

    /**
     * @return memory segments, their bytes copied in; {@code read} returns a new heap segment holding a
     *         copy, so nothing the caller keeps refers to the cache's memory
     */
    static Serializer<MemorySegment> segments() {
        return BuiltInSerializers.SEGMENTS;
    }
}
