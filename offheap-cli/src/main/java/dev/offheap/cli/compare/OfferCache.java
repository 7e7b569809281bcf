package dev.offheap.cli.compare;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The cache in front of the offer store, one implementation per {@link Variant}. Keys are offer ids,
 * values descriptions.
 *
 * <p>Threading: {@link #get(long, OfferLoader)} may be called from any number of threads at once.
 */
public interface OfferCache extends AutoCloseable {
    /**
     * Gets a description, loading it on a miss and caching it.
     *
     * @param id the offer id
     * @param loader loads the description of an absent id
     * @return the description
     * @throws RuntimeException whatever the loader throws
     */
    String get(long id, OfferLoader loader);

    /**
     * What a request does with the description: gets it, as {@link #get(long, OfferLoader)}, and reads it
     * as a response would ({@link #touch(String)}). Caches that can read a value in place override this to
     * skip the copy.
     *
     * @param id the offer id
     * @param loader loads the description of an absent id
     * @return a checksum of the bytes read, so the reads cannot be optimized away
     */
    default long fetch(long id, OfferLoader loader) {
        return touch(get(id, loader));
    }

    /**
     * Reads a description the way a response does, cheaply: its length and one character per
     * {@value #TOUCH_STRIDE} bytes, which touches all of its memory without a copy that would blur the
     * difference between variants. Every variant's {@link #fetch(long, OfferLoader)} ends in this or in
     * {@link #touch(MemorySegment)}, which reads the same bytes and gives the same checksum, so all do the
     * same work on the value.
     *
     * @param description the description (Latin-1: one byte per character)
     * @return the checksum
     */
    static long touch(String description) {
        long sum = description.length();
        for (int i = 0; i < description.length(); i += TOUCH_STRIDE) {
            sum += description.charAt(i) & 0xFF;
        }
        return sum;
    }

    /**
     * {@link #touch(String)} on a value's bytes in place, for caches that can hand them out without a copy.
     *
     * @param value the value's bytes (Latin-1), read only
     * @return the same checksum as {@link #touch(String)} of the string those bytes encode
     */
    static long touch(MemorySegment value) {
        long size = value.byteSize();
        long sum = size;
        for (long i = 0; i < size; i += TOUCH_STRIDE) {
            sum += value.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
        }
        return sum;
    }

    /** Bytes between two bytes a request reads: one per 4 KiB page. */
    int TOUCH_STRIDE = 4096;

    /** @return entries cached now */
    long entries();

    /** @return native memory the cache uses now by its own accounting, in bytes (0 for an on-heap cache) */
    long nativeBytes();

    /** @return what it is, as {@link #fetch(long, OfferLoader)} uses it, e.g. {@code Caffeine 3.x, maximumSize 5000} */
    String describe();

    /**
     * What it is as {@link #get(long, OfferLoader)} alone uses it, every request taking its value as a string, as
     * {@code offheap serve} does (its HTTP server needs each response as bytes on the heap): {@link #describe()},
     * unless the cache's {@link #fetch(long, OfferLoader)} reads values in place, which {@code get} does not.
     *
     * @return what it is, so used
     */
    default String describeForGet() {
        return describe();
    }

    /** Frees the cache's memory; idempotent. */
    @Override
    void close();

    /**
     * The native capacity in bytes an off-heap variant gets for {@code maxEntries} values of
     * {@code valueSize} bytes: the values, their keys and a per-entry header allowance, and room for
     * tables. Off-heap caches bound bytes, not entries, so the entry count they reach is near, not at,
     * {@code maxEntries}; the report shows the entries each variant held.
     *
     * @param maxEntries entries to hold, 1 or more
     * @param valueSize value bytes, 1 or more
     * @return the capacity in bytes
     */
    static long offHeapCapacity(int maxEntries, int valueSize) {
        return (long) maxEntries * (valueSize + Long.BYTES + ENTRY_OVERHEAD) + Math.max(1L << 20, maxEntries * 64L);
    }

    /** Per-entry allowance for an off-heap cache's header and hash-table slot, in bytes. */
    int ENTRY_OVERHEAD = 64;
}
