package dev.offheap.memory.internal;

/**
 * The mixing steps of {@code Segments.hash64}, kept in one place for the kernel's loop and the
 * short path ({@link SegmentFastPaths#hashShort}), which must give the same value.
 *
 * <p>The construction: the length and seed initialize the state; 32-byte blocks go through four
 * independent multiply-rotate lanes, the rest is mixed in as 8-byte words, the last 1..7 bytes as
 * one word; a murmur-style finalizer spreads every input bit over the whole result.
 */
public final class SegmentHash {

    // Multipliers: odd 64-bit constants with well spread bits (golden ratio and the constants of
    // well-studied 64-bit mixers).
    static final long M1 = 0x9E3779B97F4A7C15L;
    static final long M2 = 0xC2B2AE3D27D4EB4FL;
    static final long M4 = 0xFF51AFD7ED558CCDL;
    static final long M6 = 0x9FB21C651E98DF25L;

    private SegmentHash() {
    }

    /** The initial state. */
    public static long start(long length, long seed) {
        return seed + length * M1;
    }

    /** One lane step of a 32-byte block. */
    public static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * M2, 31) * M1;
    }

    /** Folds a lane into the state after the blocks. */
    public static long merge(long h, long lane) {
        return (h ^ round(0, lane)) * M1 + M4;
    }

    /** Mixes one 8-byte word (or the tail word) into the state. */
    public static long word(long h, long w) {
        return Long.rotateLeft(h ^ round(0, w), 27) * M1 + M4;
    }

    /**
     * The tail word of 1..3 bytes: first, middle and last byte and the count (the length is in
     * the state already, so the overlap of the three cannot collide).
     */
    public static long tailBytes(long first, long middle, long last, long count) {
        return first | middle << 8 | last << 16 | count << 24;
    }

    /** Pelle Evensen's rrmxmx finalizer: every input bit affects every output bit. */
    public static long finish(long h) {
        h ^= Long.rotateRight(h, 49) ^ Long.rotateRight(h, 24);
        h *= M6;
        h ^= h >>> 28;
        h *= M6;
        return h ^ (h >>> 28);
    }
}
