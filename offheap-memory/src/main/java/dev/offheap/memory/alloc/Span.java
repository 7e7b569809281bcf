package dev.offheap.memory.alloc;

import java.lang.foreign.Arena;

/**
 * A run of units of a {@link PooledAllocator}'s address range, in one of two roles.
 * <ul>
 *   <li>A <b>small span</b> holds blocks of one size class. {@link #free} has one bit per block, set
 *       while the block is in the class's central pool (free, never carved counts as free);
 *       blocks in thread caches or in use have their bit clear. All of a small span's fields are
 *       guarded by its {@link SizeClassPool}'s lock.</li>
 *   <li>A <b>large span</b> is one allocation of whole units; its fields are guarded by the
 *       {@link UnitRange}'s lock.</li>
 * </ul>
 * Every unit of a span points to it in the range's unit table, so a block's span is found from its
 * address with a shift and two array loads.
 */
final class Span {
    final int firstUnit;
    final int units;
    /** Start address of the span. */
    final long base;
    /** Size class index, or -1 for a large span. */
    final int sizeClass;
    /** Blocks of a tracked span go straight to users, each recorded by the allocator's tracker. */
    final boolean tracked;

    // ---- small spans
    final long blockSize;
    final int blocks;
    /** The block size's power-of-two factor and the inverse of its odd factor, for exact division. */
    final int shift;
    final long oddInverse;
    final long oddLimit;
    final long[] free;
    int freeCount;
    /** Word of {@link #free} where the search for a free block starts. */
    int hint;
    Span prev;
    Span next;
    boolean listed;
    /** Free blocks whose whole pages were given back to the system; null until the first is. */
    long[] purged;
    /** Bytes of this span not held from the system: the unused tail, and the pages of purged blocks. */
    long purgedBytes;

    // ---- large spans
    long blockAddress;
    long requested;
    boolean live;
    /** FULL debug mode: the allocation's own scope. */
    Arena ownScope;

    /** What freeing a large span gave back: the requested size and the allocation's own scope, if any. */
    record LargeRelease(long size, Arena ownScope) {
    }

    Span(int firstUnit, int units, long base, int sizeClass, boolean tracked) {
        this.firstUnit = firstUnit;
        this.units = units;
        this.base = base;
        this.sizeClass = sizeClass;
        this.tracked = tracked;
        if (sizeClass >= 0) {
            this.blockSize = SizeClasses.SIZE[sizeClass];
            this.blocks = (int) (((long) units << UnitRange.UNIT_SHIFT) / blockSize);
            this.shift = Long.numberOfTrailingZeros(blockSize);
            long odd = blockSize >>> shift;
            this.oddInverse = inverse(odd);
            this.oddLimit = Long.divideUnsigned(-1L, odd);
            this.free = new long[(blocks + 63) >>> 6];
            for (int i = 0; i < blocks; i++) {
                free[i >>> 6] |= 1L << i;
            }
            this.freeCount = blocks;
            this.purgedBytes = ((long) units << UnitRange.UNIT_SHIFT) - blocks * blockSize;
        } else {
            this.blockSize = 0;
            this.blocks = 0;
            this.shift = 0;
            this.oddInverse = 0;
            this.oddLimit = 0;
            this.free = null;
        }
    }

    /** The multiplicative inverse of an odd number modulo 2^64 (Newton's iteration). */
    private static long inverse(long odd) {
        long x = odd;
        for (int i = 0; i < 5; i++) {
            x *= 2 - odd * x;
        }
        return x;
    }

    /**
     * @param offset bytes from {@link #base}, at least 0
     * @return the index of the block that starts there, or -1 if no block starts there
     */
    int blockIndex(long offset) {
        if ((offset & ((1L << shift) - 1)) != 0) {
            return -1;
        }
        long q = (offset >>> shift) * oddInverse;
        if (Long.compareUnsigned(q, oddLimit) > 0 || q >= blocks) {
            return -1;
        }
        return (int) q;
    }

    long blockAddress(int index) {
        return base + index * blockSize;
    }

    /** Takes a free block out; the caller checked {@code freeCount > 0}. @return its index */
    int take() {
        long[] bits = free;
        int w = hint;
        while (bits[w] == 0) {
            w = w + 1 == bits.length ? 0 : w + 1;
        }
        hint = w;
        int bit = Long.numberOfTrailingZeros(bits[w]);
        bits[w] &= ~(1L << bit);
        freeCount--;
        return (w << 6) + bit;
    }

    /** @return false if the block was already free (a double free), else marks it free */
    boolean giveBack(int index) {
        long mask = 1L << index;
        int w = index >>> 6;
        if ((free[w] & mask) != 0) {
            return false;
        }
        free[w] |= mask;
        freeCount++;
        return true;
    }

    /** Start of the whole OS pages inside block {@code index}. */
    long interiorStart(int index) {
        return (blockAddress(index) + UnitRange.PAGE_BYTES - 1) & -UnitRange.PAGE_BYTES;
    }

    /** Bytes of whole OS pages inside a block (0 for blocks that contain none). */
    long interiorBytes(int index) {
        long end = (blockAddress(index) + blockSize) & -UnitRange.PAGE_BYTES;
        return Math.max(0, end - interiorStart(index));
    }

    boolean isPurged(int index) {
        return purged != null && (purged[index >>> 6] & (1L << index)) != 0;
    }

    void setPurged(int index, boolean value) {
        if (purged == null) {
            purged = new long[free.length];
        }
        if (value) {
            purged[index >>> 6] |= 1L << index;
        } else {
            purged[index >>> 6] &= ~(1L << index);
        }
    }

    boolean isBlockFree(int index) {
        return (free[index >>> 6] & (1L << index)) != 0;
    }
}
