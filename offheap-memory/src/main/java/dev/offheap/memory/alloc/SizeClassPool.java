package dev.offheap.memory.alloc;

import dev.offheap.memory.BudgetExceededException;

/**
 * The central pool of one size class of a {@link PooledAllocator}: its spans with free blocks,
 * from which thread caches take blocks in batches and to which they return them in batches. One
 * lock per class; a thread touches it once per batch, not per allocation.
 *
 * <p>A span whose blocks are all back here is returned to the {@link UnitRange} at once, except
 * the last one of its class and kind (untracked or tracked), kept as a spare so that a thread
 * allocating and freeing around a batch boundary, or one sampled allocation after another, does not
 * map and unmap a span each time; {@link #releaseSpare()} gives the spare back.
 */
final class SizeClassPool {
    final int sizeClass;
    private final UnitRange range;
    private final int spanUnits;
    /** Spans with at least one free block, most recently used first; untracked and tracked apart. */
    private Span partial;
    private Span trackedPartial;
    /** Spans of this class, untracked and tracked: each kind keeps its last empty span as a spare. */
    private int spans;
    private int trackedSpans;
    /** Double frees found when blocks came back from thread caches (OFF mode's only later check). */
    private long doubleFrees;

    SizeClassPool(int sizeClass, UnitRange range) {
        this.sizeClass = sizeClass;
        this.range = range;
        long size = SizeClasses.SIZE[sizeClass];
        // at least 8 blocks per span, so the largest classes still amortize a span over several blocks
        this.spanUnits = (int) Math.max(1, (size * 8 + UnitRange.UNIT_BYTES - 1) >>> UnitRange.UNIT_SHIFT);
    }

    /**
     * Fills {@code into[0..want)} with addresses of free blocks.
     *
     * @return how many were filled: all of {@code want}, or fewer (at least 1) when the free blocks ran
     *         out and the range or the budget refused a new span
     * @throws BudgetExceededException if the budget refuses a new span and no block was free
     * @throws OutOfMemoryError        if the range refuses a new span and no block was free
     */
    synchronized int fetch(long[] into, int want) {
        int got = 0;
        try {
            while (got < want) {
                Span span = partial;
                if (span == null) {
                    span = newSpan(false);
                }
                while (got < want && span.freeCount > 0) {
                    into[got++] = span.blockAddress(takeFrom(span));
                }
                if (span.freeCount == 0) {
                    unlink(span, false);
                }
            }
        } catch (BudgetExceededException | OutOfMemoryError refused) {
            if (got > 0) {
                // a refill asks for half a bin, the request that needs it for one block: the blocks found
                // serve it (given back, a full range or budget refused the request while blocks were free)
                return got;
            }
            throw refused;
        } catch (RuntimeException | Error e) {
            if (got > 0) {
                giveBack(into, 0, got, null);
            }
            throw e;
        }
        return got;
    }

    /** Takes one block from a tracked span. @return its address */
    synchronized long fetchTracked() {
        Span span = trackedPartial;
        if (span == null) {
            span = newSpan(true);
        }
        long address = span.blockAddress(takeFrom(span));
        if (span.freeCount == 0) {
            unlink(span, true);
        }
        return address;
    }

    private int takeFrom(Span span) {
        int index = span.take();
        long bytes = span.unpurgeBlock(index);
        if (bytes > 0) {
            range.unpurgeInSpan(bytes);
        }
        return index;
    }

    /**
     * Gives back to the system every page of a partly used span that only free blocks overlap, so
     * that a span kept by a few live blocks does not keep the memory of its free ones.
     */
    synchronized void purgeFreePages() {
        for (Span s = partial; s != null; s = s.next) {
            purgeFreePages(s);
        }
        for (Span s = trackedPartial; s != null; s = s.next) {
            purgeFreePages(s);
        }
    }

    private void purgeFreePages(Span span) {
        int pages = span.pageCount();
        int page = 0;
        while (page < pages) {
            if (span.isPagePurged(page) || !span.isPageFree(page)) {
                page++;
                continue;
            }
            int first = page;
            while (page < pages && !span.isPagePurged(page) && span.isPageFree(page)) {
                page++;
            }
            if (range.purgeInSpan(span.base + first * UnitRange.PAGE_BYTES, (page - first) * UnitRange.PAGE_BYTES)) {
                span.markPurged(first, page - first);
            }
        }
    }

    /**
     * Returns blocks from a thread cache. A block that is already free here was freed twice; it is
     * skipped (so it is never handed out twice from here) and reported to {@code tracker}.
     */
    synchronized void giveBack(long[] addresses, int from, int count, AllocationTracker tracker) {
        for (int i = from; i < from + count; i++) {
            long address = addresses[i];
            Span span = range.spanAt(address - range.base);
            // a block freed twice may come back after its span was released and its units reused
            int index = span == null || span.sizeClass != sizeClass ? -1 : span.blockIndex(address - span.base);
            if (index < 0 || !span.giveBack(index)) {
                doubleFrees++;
                if (tracker != null) {
                    tracker.problem("double free of the block at 0x" + Long.toHexString(address) + " ("
                            + SizeClasses.SIZE[sizeClass] + "-byte class), found when a thread cache returned it; the second "
                            + "copy was dropped");
                }
                continue;
            }
            afterGiveBack(span);
        }
    }

    /**
     * Returns one tracked block.
     *
     * @return false if it was already free (a double free; nothing changes)
     */
    synchronized boolean giveBackTracked(Span span, int index) {
        if (!span.giveBack(index)) {
            return false;
        }
        afterGiveBack(span);
        return true;
    }

    private void afterGiveBack(Span span) {
        if (!span.listed) {
            link(span);
        }
        // the last span of its kind stays: a sampled allocation and its free would otherwise map and
        // release a span each time, which cost microseconds per sample
        if (span.freeCount == span.blocks && (span.tracked ? trackedSpans : spans) > 1) {
            unlink(span, span.tracked);
            countRemoved(span);
            range.free(span);
        }
    }

    /** Returns the spare span if all of its blocks are free. */
    synchronized void releaseSpare() {
        releaseEmpty(false);
        releaseEmpty(true);
    }

    private void releaseEmpty(boolean tracked) {
        Span s = tracked ? trackedPartial : partial;
        while (s != null) {
            Span next = s.next;
            if (s.freeCount == s.blocks) {
                unlink(s, tracked);
                countRemoved(s);
                range.free(s);
            }
            s = next;
        }
    }

    synchronized long doubleFrees() {
        return doubleFrees;
    }

    private Span newSpan(boolean tracked) {
        Span span = range.allocate(spanUnits, sizeClass, tracked).span();
        if (tracked) {
            trackedSpans++;
        } else {
            spans++;
        }
        link(span);
        return span;
    }

    private void countRemoved(Span span) {
        if (span.tracked) {
            trackedSpans--;
        } else {
            spans--;
        }
    }

    private void link(Span span) {
        if (span.tracked) {
            span.next = trackedPartial;
            if (trackedPartial != null) {
                trackedPartial.prev = span;
            }
            trackedPartial = span;
        } else {
            span.next = partial;
            if (partial != null) {
                partial.prev = span;
            }
            partial = span;
        }
        span.prev = null;
        span.listed = true;
    }

    private void unlink(Span span, boolean tracked) {
        if (!span.listed) {
            return;
        }
        if (span.prev != null) {
            span.prev.next = span.next;
        } else if (tracked) {
            trackedPartial = span.next;
        } else {
            partial = span.next;
        }
        if (span.next != null) {
            span.next.prev = span.prev;
        }
        span.prev = null;
        span.next = null;
        span.listed = false;
    }
}
