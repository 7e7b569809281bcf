package dev.offheap.cache.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The layout of one shard's memory region: the only place that knows where a field lies.
 *
 * <p>A region is one contiguous block of native memory, cut into 8-byte <em>units</em>. Everything in it
 * refers to everything else by unit offsets from the region's start (ints; 0 means "none"), never by
 * absolute addresses, so the same bytes could live in a mapped file and be reopened at another address.
 *
 * <pre>
 * region (unit offsets)
 * +------+---------------------------------------------------------------------+------+
 * | 0    | 1 ...                                                               | last |
 * | head | blocks: hash table | sketch | entry | free | entry | entry | ...    | tail |
 * +------+---------------------------------------------------------------------+------+
 *   sentinels: allocated one-unit blocks, so coalescing never runs off either end
 *
 * every block starts with a block word (int, little end of its first unit)
 *   bits 0..29  size in units (header included)
 *   bit  30     FREE       this block is free
 *   bit  31     PREV_FREE  the block just before is free (its size is in its footer)
 *
 * entry block: a 20-byte header, then the deadlines if the entry has any, then key, value and padding
 *  byte 0          4          8          12         16         20         24         28
 *   +----------+----------+----------+----------+----------+----------+----------+------------------+
 *   | block    | chainNext| meta     | queuePrev| queueNext| deadline | written  | key | value | pad |
 *   | word     | (unit)   |          | (unit)   | (unit)   | (encoded)| deadline |     |       | 0..7|
 *   +----------+----------+----------+----------+----------+----------+----------+------------------+
 *                                                 ^ only if DEADLINED;    ^ only if DEADLINED in a cache
 *                                                   the key starts here     that expires after both write
 *                                                   otherwise               and access
 *   meta: bits 0..15 key length (bytes) | 16..23 hash tag | 24..26 pad bytes | 27..28 queue
 *         | bit 29 FIXED_TTL (deadline set by put(key, value, ttl); access does not extend it)
 *         | bit 30 REFERENCED (read since it was last linked into its queue: a second chance at the head)
 *         | bit 31 DEADLINED (the entry has deadline fields; an entry that never expires has none)
 *   header = 20, or 20 + 4 (one deadline) or 20 + 8 (two) if DEADLINED
 *   value length = size * 8 - header - key length - pad
 *
 * free block (size >= 2 units; a free block of 1 unit is an orphan, in no list, until it coalesces)
 *   +----------+----------+----------+------ ... ------+----------+
 *   | block    | nextFree | prevFree |                 | footer:  |
 *   | word     | (unit)   | (unit)   |                 | size     |
 *   +----------+----------+----------+------ ... ------+----------+
 *
 * hash table block: block word, 4 bytes unused, then buckets: int unit offset of a chain's first entry
 * sketch block:     block word, 4 bytes unused, then longs of 16 four-bit counters (64-byte groups)
 * </pre>
 */
final class RegionLayout {
    /** Bytes per unit; all offsets and block sizes are in units. */
    static final int UNIT = 8;
    static final int UNIT_SHIFT = 3;

    static final int SIZE_MASK = (1 << 30) - 1;
    static final int FREE = 1 << 30;
    static final int PREV_FREE = 1 << 31;

    // entry fields, byte offsets from the entry's start
    static final long BLOCK_WORD = 0;
    static final long CHAIN_NEXT = 4;
    static final long META = 8;
    static final long QUEUE_PREV = 12;
    static final long QUEUE_NEXT = 16;
    static final long DEADLINE = 20;
    static final long WRITE_DEADLINE = 24;
    /**
     * Header of an entry without deadlines. An entry that never expires (no expiry configured, no time to
     * live of its own) carries no deadline field: 4 bytes less per entry, and for 8-byte keys with values
     * a multiple of 8 bytes long, one unit less.
     */
    static final int BASE_HEADER_BYTES = 20;

    // free block fields
    static final long NEXT_FREE = 4;
    static final long PREV_FREE_LINK = 8;

    // meta
    static final int MAX_KEY_BYTES = 0xFFFF;
    static final int TAG_SHIFT = 16;
    static final int PAD_SHIFT = 24;
    static final int QUEUE_SHIFT = 27;
    static final int FIXED_TTL = 1 << 29;
    /** Read since last linked: the queue gives it a second chance at its head instead of moving it per read. */
    static final int REFERENCED = 1 << 30;
    /** The entry has deadline fields after its base header (the sign bit: {@code meta < 0}). */
    static final int DEADLINED = 1 << 31;

    /** Queues an entry can be in. */
    static final int WINDOW = 0;
    static final int PROBATION = 1;
    static final int PROTECTED = 2;

    /** Table and sketch data start one unit into their block. */
    static final long TABLE_DATA = UNIT;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    /** Atomic access to an aligned int of a region: coordinates (segment, byte offset). */
    private static final VarHandle ATOMIC_INT = ValueLayout.JAVA_INT.varHandle();

    private RegionLayout() {
    }

    static long address(int unit) {
        return (long) unit << UNIT_SHIFT;
    }

    static int units(long bytes) {
        return (int) ((bytes + UNIT - 1) >>> UNIT_SHIFT);
    }

    static int getInt(MemorySegment region, long byteOffset) {
        return region.get(INT, byteOffset);
    }

    static void setInt(MemorySegment region, long byteOffset, int value) {
        region.set(INT, byteOffset, value);
    }

    /**
     * Raises a 4-byte-aligned int field to {@code value} unless it already is at least that, atomically:
     * for fields that threads holding a segment's read lock update at once (access deadlines), which a
     * reader with an older clock reading must not move back.
     */
    static void raiseInt(MemorySegment region, long byteOffset, int value) {
        int current;
        do {
            current = (int) ATOMIC_INT.getVolatile(region, byteOffset);
            if (current >= value) {
                return;
            }
        } while (!ATOMIC_INT.compareAndSet(region, byteOffset, current, value));
    }

    static int meta(int keyLength, int tag, int pad, int queue, boolean fixedTtl, boolean deadlined) {
        return keyLength | (tag << TAG_SHIFT) | (pad << PAD_SHIFT) | (queue << QUEUE_SHIFT) | (fixedTtl ? FIXED_TTL : 0)
                | (deadlined ? DEADLINED : 0);
    }

    static boolean deadlined(int meta) {
        return meta < 0;
    }

    /**
     * @param deadlined    whether the entry has deadline fields
     * @param twoDeadlines whether the cache expires after both write and access (two fields, not one)
     * @return the bytes of the entry's header, where its key starts
     */
    static int headerBytes(boolean deadlined, boolean twoDeadlines) {
        return !deadlined ? BASE_HEADER_BYTES : BASE_HEADER_BYTES + (twoDeadlines ? 2 : 1) * Integer.BYTES;
    }

    static int keyLength(int meta) {
        return meta & MAX_KEY_BYTES;
    }

    static int tag(int meta) {
        return (meta >>> TAG_SHIFT) & 0xFF;
    }

    static int pad(int meta) {
        return (meta >>> PAD_SHIFT) & 7;
    }

    static int queue(int meta) {
        return (meta >>> QUEUE_SHIFT) & 3;
    }

    /** @return the meta of an entry just linked at the tail of {@code queue}: not referenced */
    static int withQueue(int meta, int queue) {
        return (meta & ~((3 << QUEUE_SHIFT) | REFERENCED)) | (queue << QUEUE_SHIFT);
    }

    static boolean referenced(int meta) {
        return (meta & REFERENCED) != 0;
    }

    static boolean fixedTtl(int meta) {
        return (meta & FIXED_TTL) != 0;
    }

    /** The 8-bit tag an entry keeps of its key's hash, to skip most key comparisons. */
    static int tagOf(long hash) {
        return (int) (hash >>> 40) & 0xFF;
    }
}
