package dev.offheap.cache.internal;

import java.lang.foreign.MemorySegment;

import static dev.offheap.cache.internal.RegionLayout.FREE;
import static dev.offheap.cache.internal.RegionLayout.NEXT_FREE;
import static dev.offheap.cache.internal.RegionLayout.PREV_FREE;
import static dev.offheap.cache.internal.RegionLayout.PREV_FREE_LINK;
import static dev.offheap.cache.internal.RegionLayout.SIZE_MASK;
import static dev.offheap.cache.internal.RegionLayout.address;
import static dev.offheap.cache.internal.RegionLayout.getInt;
import static dev.offheap.cache.internal.RegionLayout.setInt;

/**
 * Variable-size blocks inside one region, in 8-byte units: a two-level segregated fit allocator (TLSF).
 *
 * <p>Blocks are exact: a request of n units gets n units, never more, so the only waste is rounding an
 * entry up to 8 bytes. Free blocks coalesce with their neighbours at once (boundary tags: the block
 * word's PREV_FREE bit and a free block's footer), so no two free blocks are ever adjacent. Free blocks
 * of 2 units or more sit in one of 432 size bins: exact bins below 32 units (256 bytes), then 16 bins per
 * power of two. A request searches its own bin's first few blocks, then the first non-empty larger bin
 * (found with a bitmap), and splits the block it takes; every operation is O(1).
 *
 * <p>Not thread-safe: the shard's write lock guards it.
 */
final class BlockAllocator {
    static final int BINS = 32 + 25 * 16;
    /** How many blocks of the request's own bin are tried before a larger bin is split. */
    private static final int BIN_SCAN = 8;
    /** Heap bytes this allocator keeps (bins and bitmap), charged to the cache's capacity. */
    static final int HEAP_BYTES = BINS * Integer.BYTES + ((BINS + 63) / 64) * Long.BYTES + 64;

    private final MemorySegment region;
    private final int totalUnits;
    private final int[] binHeads = new int[BINS];
    private final long[] nonEmpty = new long[(BINS + 63) / 64];
    private long usedUnits;

    /**
     * @param region the region, 8-byte aligned, at least 4 units, at most 2^31 - 1 units
     */
    BlockAllocator(MemorySegment region) {
        long units = region.byteSize() >>> RegionLayout.UNIT_SHIFT;
        if (units < 4 || units > Integer.MAX_VALUE || units - 2 > SIZE_MASK) {
            throw new IllegalArgumentException("a region holds 4 to " + SIZE_MASK + " units, got " + units);
        }
        this.region = region;
        this.totalUnits = (int) units;
        reset();
    }

    /** Frees every block at once: the region holds one free block between the sentinels. */
    void reset() {
        java.util.Arrays.fill(binHeads, 0);
        java.util.Arrays.fill(nonEmpty, 0);
        setInt(region, address(0), 1);
        setInt(region, address(totalUnits - 1), 1);
        usedUnits = 2;
        insertFree(1, totalUnits - 2);
    }

    int totalUnits() {
        return totalUnits;
    }

    /** @return units in allocated blocks, the two sentinels included */
    long usedUnits() {
        return usedUnits;
    }

    /** @return the size in units of the block at {@code unit} */
    int sizeOf(int unit) {
        return getInt(region, address(unit)) & SIZE_MASK;
    }

    /**
     * @param units size of the block, header included, at least 1
     * @return the block's unit offset, or 0 if no free block is large enough
     */
    int allocate(int units) {
        if (units <= 0 || units > SIZE_MASK) {
            throw new IllegalArgumentException("block of " + units + " units");
        }
        int block = 0;
        int bin = binDown(units);
        int steps = 0;
        for (int b = binHeads[bin]; b != 0 && steps < BIN_SCAN; b = getInt(region, address(b) + NEXT_FREE), steps++) {
            if (sizeOf(b) >= units) {
                block = b;
                break;
            }
        }
        if (block == 0) {
            int larger = firstNonEmpty(bin + 1);
            if (larger < 0) {
                return 0;
            }
            block = binHeads[larger];
        }
        int size = sizeOf(block);
        unlinkFree(block, size);
        int remainder = size - units;
        setInt(region, address(block), units);
        if (remainder > 0) {
            insertFree(block + units, remainder);
        } else {
            clearPrevFree(block + units);
        }
        usedUnits += units;
        return block;
    }

    /** @param block a block returned by {@link #allocate(int)} and not freed since */
    void free(int block) {
        int word = getInt(region, address(block));
        if ((word & FREE) != 0 || block <= 0 || block >= totalUnits - 1) {
            throw new IllegalStateException("block at unit " + block + " is not allocated");
        }
        int size = word & SIZE_MASK;
        usedUnits -= size;
        int start = block;
        int total = size;
        if ((word & PREV_FREE) != 0) {
            int previousSize = getInt(region, address(block) - Integer.BYTES);
            start = block - previousSize;
            unlinkFree(start, previousSize);
            total += previousSize;
        }
        int next = block + size;
        int nextWord = getInt(region, address(next));
        if ((nextWord & FREE) != 0) {
            int nextSize = nextWord & SIZE_MASK;
            unlinkFree(next, nextSize);
            total += nextSize;
        }
        insertFree(start, total);
    }

    /** @return the largest block {@link #allocate(int)} could return now without freeing anything */
    int largestFreeUnits() {
        int bin = firstNonEmptyFromTop();
        if (bin < 0) {
            return 0;
        }
        int largest = 0;
        int steps = 0;
        for (int b = binHeads[bin]; b != 0 && steps < 64; b = getInt(region, address(b) + NEXT_FREE), steps++) {
            largest = Math.max(largest, sizeOf(b));
        }
        return largest;
    }

    private void insertFree(int block, int size) {
        // a previous block is never free here: blocks coalesce at once
        setInt(region, address(block), size | FREE);
        setInt(region, address(block + size) - Integer.BYTES, size);
        int next = block + size;
        setInt(region, address(next), getInt(region, address(next)) | PREV_FREE);
        if (size < 2) {
            return; // an orphan: too small to link, found again only by coalescing
        }
        int bin = binDown(size);
        int head = binHeads[bin];
        setInt(region, address(block) + NEXT_FREE, head);
        setInt(region, address(block) + PREV_FREE_LINK, 0);
        if (head != 0) {
            setInt(region, address(head) + PREV_FREE_LINK, block);
        }
        binHeads[bin] = block;
        nonEmpty[bin >>> 6] |= 1L << bin;
    }

    private void unlinkFree(int block, int size) {
        clearPrevFree(block + size);
        if (size < 2) {
            return;
        }
        int next = getInt(region, address(block) + NEXT_FREE);
        int previous = getInt(region, address(block) + PREV_FREE_LINK);
        if (previous != 0) {
            setInt(region, address(previous) + NEXT_FREE, next);
        } else {
            int bin = binDown(size);
            binHeads[bin] = next;
            if (next == 0) {
                nonEmpty[bin >>> 6] &= ~(1L << bin);
            }
        }
        if (next != 0) {
            setInt(region, address(next) + PREV_FREE_LINK, previous);
        }
    }

    private void clearPrevFree(int block) {
        long at = address(block);
        setInt(region, at, getInt(region, at) & ~PREV_FREE);
    }

    private int firstNonEmpty(int from) {
        if (from >= BINS) {
            return -1;
        }
        int word = from >>> 6;
        long bits = nonEmpty[word] & (-1L << (from & 63));
        while (bits == 0) {
            if (++word == nonEmpty.length) {
                return -1;
            }
            bits = nonEmpty[word];
        }
        return (word << 6) + Long.numberOfTrailingZeros(bits);
    }

    private int firstNonEmptyFromTop() {
        for (int word = nonEmpty.length - 1; word >= 0; word--) {
            if (nonEmpty[word] != 0) {
                return (word << 6) + 63 - Long.numberOfLeadingZeros(nonEmpty[word]);
            }
        }
        return -1;
    }

    /** @return the bin of blocks of {@code size} units: every block in a higher bin is larger */
    static int binDown(int size) {
        if (size < 32) {
            return size;
        }
        int log = 31 - Integer.numberOfLeadingZeros(size);
        return 32 + (log - 5) * 16 + ((size >>> (log - 4)) & 15);
    }

    /** Checks the allocator's invariants by walking every block; for tests. @return free units */
    long verify() {
        long free = 0;
        long used = 0;
        int unit = 0;
        boolean previousFree = false;
        while (unit < totalUnits) {
            int word = getInt(region, address(unit));
            int size = word & SIZE_MASK;
            if (size == 0 || unit + (long) size > totalUnits) {
                throw new IllegalStateException("bad block size " + size + " at unit " + unit);
            }
            boolean isFree = (word & FREE) != 0;
            if (((word & PREV_FREE) != 0) != previousFree) {
                throw new IllegalStateException("PREV_FREE bit wrong at unit " + unit);
            }
            if (isFree && previousFree) {
                throw new IllegalStateException("adjacent free blocks at unit " + unit);
            }
            if (isFree) {
                free += size;
                if (getInt(region, address(unit + size) - Integer.BYTES) != size) {
                    throw new IllegalStateException("bad footer of free block at unit " + unit);
                }
            } else {
                used += size;
            }
            previousFree = isFree;
            unit += size;
        }
        if (used != usedUnits) {
            throw new IllegalStateException("used units " + usedUnits + " but blocks hold " + used);
        }
        return free;
    }
}
