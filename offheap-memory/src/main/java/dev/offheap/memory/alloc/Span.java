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
final class Span extends SpanPadding {
    /** Fields below change under locks; the free path of every thread reads only {@link SpanShape}'s. */
    final long[] free;
    int freeCount;
    /** Word of {@link #free} where the search for a free block starts. */
    int hint;
    Span prev;
    Span next;
    boolean listed;
    /**
     * Pages of the span (of {@link UnitRange#PAGE_BYTES}) given back to the system: pages that only
     * free blocks overlap, and the pages of the unused tail.
     */
    long[] purgedPages;
    /** Bytes of this span not held from the system: its purged pages. */
    long purgedBytes;

    // ---- large spans
    long blockAddress;
    long requested;
    boolean live;
    /** FULL debug mode: the allocation's own scope. */
    Arena ownScope;

    /**
     * What an attempt to free a large span found: the allocation's requested size, its own scope if
     * any, and whether it was freed ({@code false}: the segment freed had another size, so the
     * allocation stays live).
     */
    record LargeRelease(long size, Arena ownScope, boolean released) {
    }

    Span(int firstUnit, int units, long base, int sizeClass, boolean tracked) {
        super(firstUnit, units, base, sizeClass, tracked);
        if (sizeClass >= 0) {
            this.free = new long[(blocks + 63) >>> 6];
            for (int i = 0; i < blocks; i++) {
                free[i >>> 6] |= 1L << i;
            }
            this.freeCount = blocks;
            int pages = pageCount();
            this.purgedPages = new long[(pages + 63) >>> 6];
            // pages past the last block are never used: not held from the system
            for (int page = (int) ((blocks * blockSize + UnitRange.PAGE_BYTES - 1) / UnitRange.PAGE_BYTES); page < pages; page++) {
                purgedPages[page >>> 6] |= 1L << page;
                purgedBytes += UnitRange.PAGE_BYTES;
            }
        } else {
            this.free = null;
            this.purgedPages = null;
        }
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

    int pageCount() {
        return (int) (((long) units << UnitRange.UNIT_SHIFT) / UnitRange.PAGE_BYTES);
    }

    boolean isPagePurged(int page) {
        return (purgedPages[page >>> 6] & (1L << page)) != 0;
    }

    /**
     * Marks the pages block {@code index} overlaps as held again (it is being handed out, and its
     * pages come back from the system when touched).
     *
     * @return the bytes that were purged and are held again
     */
    long unpurgeBlock(int index) {
        if (purgedBytes == 0) {
            return 0;
        }
        long start = index * blockSize;
        int first = (int) (start / UnitRange.PAGE_BYTES);
        int last = (int) ((start + blockSize - 1) / UnitRange.PAGE_BYTES);
        long bytes = 0;
        for (int page = first; page <= last; page++) {
            if (isPagePurged(page)) {
                purgedPages[page >>> 6] &= ~(1L << page);
                bytes += UnitRange.PAGE_BYTES;
            }
        }
        purgedBytes -= bytes;
        return bytes;
    }

    /** @return whether every block that overlaps {@code page} is free (and at least one does) */
    boolean isPageFree(int page) {
        long start = page * UnitRange.PAGE_BYTES;
        if (start >= blocks * blockSize) {
            return false;
        }
        int first = (int) (start / blockSize);
        int last = (int) Math.min(blocks - 1, (start + UnitRange.PAGE_BYTES - 1) / blockSize);
        for (int b = first; b <= last; b++) {
            if (!isBlockFree(b)) {
                return false;
            }
        }
        return true;
    }

    void markPurged(int firstPage, int pageCount) {
        for (int page = firstPage; page < firstPage + pageCount; page++) {
            purgedPages[page >>> 6] |= 1L << page;
        }
        purgedBytes += pageCount * UnitRange.PAGE_BYTES;
    }

    boolean isBlockFree(int index) {
        return (free[index >>> 6] & (1L << index)) != 0;
    }
}

/** What never changes in a span: where it is and how its blocks are laid out. */
abstract class SpanShape {

    final int firstUnit;
    final int units;
    /** Start address of the span. */
    final long base;
    /** Size class index, or -1 for a large span. */
    final int sizeClass;
    /** Blocks of a tracked span go straight to users, each recorded by the allocator's tracker. */
    final boolean tracked;
    /** Small spans: the block size and count. */
    final long blockSize;
    final int blocks;
    /** The block size's power-of-two factor and the inverse of its odd factor, for exact division. */
    final int shift;
    final long oddInverse;
    final long oddLimit;

    SpanShape(int firstUnit, int units, long base, int sizeClass, boolean tracked) {
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
        } else {
            this.blockSize = 0;
            this.blocks = 0;
            this.shift = 0;
            this.oddInverse = 0;
            this.oddLimit = 0;
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
}

/**
 * A cache line between a span's shape, read by every freeing thread, and its state, written under
 * the pool's lock: sharing one line would cost every free a cache miss after each batch.
 */
abstract class SpanPadding extends SpanShape {
    long p0, p1, p2, p3, p4, p5, p6, p7;

    SpanPadding(int firstUnit, int units, long base, int sizeClass, boolean tracked) {
        super(firstUnit, units, base, sizeClass, tracked);
    }
}
