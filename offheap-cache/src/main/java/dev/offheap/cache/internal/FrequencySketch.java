package dev.offheap.cache.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A 4-bit count-min sketch of how often keys were used, with a doorkeeper, inside a shard's region:
 * TinyLFU's frequency estimate, laid out as Caffeine's {@code FrequencySketch} does it (the four counters
 * of a key lie in one 64-byte group, so an update touches one cache line).
 *
 * <p>A key's first occurrence since the last reset only sets its two doorkeeper bits; later ones increment
 * its counters, so keys seen once do not pollute the counters. After {@code 10 x} as many increments as the
 * sketch is sized for entries, every counter is halved and the doorkeeper cleared: old popularity fades.
 *
 * <p>Memory: {@code counterLongs} longs of counters plus an eighth as many of doorkeeper bits, in one block
 * of the region (see {@link RegionLayout}). Not thread-safe: only the shard's lock holder uses it.
 */
final class FrequencySketch {
    private static final long RESET_MASK = 0x7777777777777777L;
    private static final long ONE_MASK = 0x1111111111111111L;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    /**
     * Entries the shard holds per long of counters (16 counters): the sketch grows to the next power of two
     * of entries / 2 longs, 4 to 8 bytes per entry, half of Caffeine's sizing. The sketch is charged to the
     * capacity, so its bytes are entries the cache cannot hold. In the hit-ratio benchmark's streams (100-byte
     * values, capacity a sixth of the key space's bytes) halving it kept 3.9% more entries and raised the hit
     * ratio from 67.03% to 67.34% (Zipf) and from 29.07% to 29.17% (scan-heavy); a quarter and an eighth
     * raised it by 0.15 and 0.08 points more: the doorkeeper keeps one-time keys out of the counters, so
     * fewer counters collide less than the sizing suggests. Half is the conservative step, for workloads
     * whose frequencies need the resolution.
     */
    static final int ENTRIES_PER_LONG = 2;

    private final MemorySegment region;
    private long base;
    private int counterLongs;
    private int blockMask;
    private int doorkeeperMask;
    private int sampleSize;
    private int additions;

    FrequencySketch(MemorySegment region) {
        this.region = region;
    }

    /** @param longs counters' longs: a power of two, at least 8 @return bytes a sketch of that size needs */
    static long bytesFor(int longs) {
        return (long) longs * Long.BYTES + (long) doorkeeperLongs(longs) * Long.BYTES;
    }

    /** One doorkeeper long per 64-byte block of counters: a small array, mostly in cache. */
    private static int doorkeeperLongs(int counterLongs) {
        return Math.max(1, counterLongs / 8);
    }

    /** Points the sketch at fresh, zeroed memory. @param byteOffset where it lies @param longs counters' longs */
    void attach(long byteOffset, int longs) {
        this.base = byteOffset;
        this.counterLongs = longs;
        this.blockMask = (longs >>> 3) - 1;
        this.doorkeeperMask = doorkeeperLongs(longs) - 1;
        this.sampleSize = (int) Math.min(10L * ENTRIES_PER_LONG * longs, Integer.MAX_VALUE);
        this.additions = 0;
        region.asSlice(byteOffset, bytesFor(longs)).fill((byte) 0);
    }

    int counterLongs() {
        return counterLongs;
    }

    /** @param hash the key's hash @return its estimated frequency, 0..16 */
    int frequency(int hash) {
        int blockHash = spread(hash);
        int counterHash = rehash(blockHash);
        long block = (long) (blockHash & blockMask) << 3;
        int min = 15;
        for (int i = 0; i < 4; i++) {
            int h = counterHash >>> (i << 3);
            int index = (h >>> 1) & 15;
            int offset = h & 1;
            long word = region.get(LONG, base + ((block + offset + (i << 1)) << 3));
            min = Math.min(min, (int) ((word >>> (index << 2)) & 0xF));
        }
        return min + (inDoorkeeper(blockHash) ? 1 : 0);
    }

    /** @param hash the key's hash; counts one more use of it */
    void increment(int hash) {
        int blockHash = spread(hash);
        if (!inDoorkeeper(blockHash)) {
            addToDoorkeeper(blockHash);
        } else {
            int counterHash = rehash(blockHash);
            long block = (long) (blockHash & blockMask) << 3;
            boolean added = false;
            for (int i = 0; i < 4; i++) {
                int h = counterHash >>> (i << 3);
                int index = (h >>> 1) & 15;
                int offset = h & 1;
                added |= incrementAt(block + offset + (i << 1), index);
            }
            if (!added) {
                return;
            }
        }
        if (++additions >= sampleSize) {
            reset();
        }
    }

    /**
     * Loads the memory that {@link #increment} of this hash will touch (its doorkeeper long and both ends of
     * its counter block, which may straddle two cache lines) without changing anything, so that its cache
     * misses overlap with others instead of queueing up: for a batch of hashes before incrementing them,
     * and by a writer before it takes its lock. Without the lock the sketch's fields may change meanwhile
     * (a writer moving it to a larger block), so the addresses are checked against the region: a stale mix
     * of fields only loads the wrong line.
     *
     * @param hash the key's hash
     * @return the loaded words mixed together, for the caller to keep (so the loads are not optimized
     *         away), or 0 if an address fell outside the region
     */
    long touch(int hash) {
        int blockHash = spread(hash);
        long at = base + ((long) (blockHash & blockMask) << 6);
        long doorkeeper = doorkeeperAddress(blockHash);
        long last = region.byteSize() - Long.BYTES;
        if (at < 0 || at > last - 56 || doorkeeper < 0 || doorkeeper > last) {
            return 0;
        }
        return region.get(LONG, doorkeeper) ^ region.get(LONG, at) ^ region.get(LONG, at + 56);
    }

    private boolean incrementAt(long longIndex, int counter) {
        long at = base + (longIndex << 3);
        long word = region.get(LONG, at);
        int shift = counter << 2;
        long mask = 0xFL << shift;
        if ((word & mask) != mask) {
            region.set(LONG, at, word + (1L << shift));
            return true;
        }
        return false;
    }

    /** The doorkeeper long of a key's block, and two bits in it chosen by other bits of its hash. */
    private long doorkeeperAddress(int blockHash) {
        return base + ((long) counterLongs << 3) + ((long) (blockHash & doorkeeperMask) << 3);
    }

    private static long doorkeeperBits(int blockHash) {
        int h = blockHash * 0x9E3779B9;
        return (1L << (h >>> 26)) | (1L << ((h >>> 20) & 63));
    }

    private boolean inDoorkeeper(int blockHash) {
        long bits = doorkeeperBits(blockHash);
        return (region.get(LONG, doorkeeperAddress(blockHash)) & bits) == bits;
    }

    private void addToDoorkeeper(int blockHash) {
        long at = doorkeeperAddress(blockHash);
        region.set(LONG, at, region.get(LONG, at) | doorkeeperBits(blockHash));
    }

    /** Halves every counter and clears the doorkeeper. */
    void reset() {
        long odd = 0;
        for (int i = 0; i < counterLongs; i++) {
            long at = base + ((long) i << 3);
            long word = region.get(LONG, at);
            odd += Long.bitCount(word & ONE_MASK);
            region.set(LONG, at, (word >>> 1) & RESET_MASK);
        }
        region.asSlice(base + ((long) counterLongs << 3), (long) doorkeeperLongs(counterLongs) * Long.BYTES).fill((byte) 0);
        additions = (int) Math.max(0, (additions - (odd >>> 2)) >>> 1);
    }

    private static int spread(int x) {
        x ^= x >>> 17;
        x *= 0xed5ad4bb;
        x ^= x >>> 11;
        x *= 0xac4c1b51;
        x ^= x >>> 15;
        return x;
    }

    private static int rehash(int x) {
        x *= 0x31848bab;
        x ^= x >>> 14;
        return x;
    }
}
