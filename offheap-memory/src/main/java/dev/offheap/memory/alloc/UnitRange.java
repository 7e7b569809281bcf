package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.internal.VirtualMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The address range of a {@link PooledAllocator}: reserved once (inaccessible, costing no memory),
 * cut into units of {@value #UNIT_BYTES} bytes, handed out as runs of units to spans.
 *
 * <pre>
 *  base                                                                       base + capacity
 *  |unit 0|unit 1|unit 2| ... |unit top-1|  unit top ...  (reserved, PROT_NONE)   |
 *  |&lt;-- read-write: USED / FREE_DIRTY / FREE_CLEAN --&gt;|
 * </pre>
 * A unit is {@code USED} by a span, {@code FREE_DIRTY} (free, its memory still held and charged to
 * the budget), or {@code FREE_CLEAN} (free and given back with {@code madvise(MADV_DONTNEED)}, or
 * never touched). {@link #footprintBytes()} and the budget charge count USED and FREE_DIRTY units:
 * the budget is charged per unit, never per allocation. Units are never unmapped or made
 * inaccessible again before the allocator closes, so a stale segment reads zeros or old data but
 * can never fault the JVM.
 *
 * <p>Thread-safety: every method holds this object's lock, and no system call touches the range
 * after {@link #close()}, so a racing allocation can never change memory that another mapping may
 * have taken over.
 */
final class UnitRange {
    static final int UNIT_SHIFT = 16;
    static final long UNIT_BYTES = 1L << UNIT_SHIFT;
    /** The system's page size as assumed for giving back the pages of free blocks (4 KiB on Linux x86-64). */
    static final long PAGE_BYTES = 4096;
    /** Units made read-write at a time, to keep mprotect calls and kernel mappings few. */
    private static final int COMMIT_STEP_UNITS = 32;
    private static final int LEAF_SHIFT = 10;
    private static final int LEAF_SIZE = 1 << LEAF_SHIFT;

    private static final byte FREE_CLEAN = 0;
    private static final byte FREE_DIRTY = 1;
    private static final byte USED = 2;

    final long base;
    final long capacityBytes;
    private final int totalUnits;
    private final Budget budget;
    private final String owner;
    /** Unit index to span: two levels, leaves made when the range first reaches them. Read without a lock. */
    private final Span[][] table;
    /**
     * Unit index to the {@link UnitStates} of the small span that holds the unit, or null. Flat, one
     * reference per unit (4 bytes per 64 KiB of capacity: 1 MiB for 16 GiB), because the free and
     * allocation fast paths read it: one load less than the two-level {@link #table}. Written under this
     * range's lock, read without one.
     */
    private final byte[][] unitStates;
    private final byte[] state;
    /** Free runs below {@link #top}: start unit to length, coalesced. */
    private final TreeMap<Integer, Integer> freeRuns = new TreeMap<>();
    /** Units below this are read-write. */
    private int top;
    private long footprintUnits;
    /** Bytes inside used spans that are not held from the system (tails and purged free blocks). */
    private long purgedInSpans;
    private long freeDirtyUnits;
    private boolean closed;

    UnitRange(long capacityBytes, Budget budget, String owner) {
        this.capacityBytes = capacityBytes;
        this.totalUnits = Math.toIntExact(capacityBytes >>> UNIT_SHIFT);
        this.budget = budget;
        this.owner = owner;
        this.table = new Span[(totalUnits + LEAF_SIZE - 1) >>> LEAF_SHIFT][];
        this.state = new byte[totalUnits];
        this.unitStates = new byte[totalUnits][];
        this.base = VirtualMemory.reserve(capacityBytes, UNIT_BYTES);
    }

    /** @return the span that owns the unit at {@code offset} bytes from base (0 to capacity), or null */
    Span spanAt(long offset) {
        int unit = (int) (offset >>> UNIT_SHIFT);
        Span[] leaf = table[unit >>> LEAF_SHIFT];
        return leaf == null ? null : leaf[unit & (LEAF_SIZE - 1)];
    }

    /**
     * @return the unit table of states itself (unit index to {@link UnitStates} or null), for callers that
     *         read it on their fast paths; they must not write it
     */
    byte[][] statesTable() {
        return unitStates;
    }

    /** Result of {@link #allocate}: the span and whether all of its memory reads as zero. */
    record Allocation(Span span, boolean zeroed) {
    }

    /**
     * Takes a run of {@code units} units for a new span, charging the budget for units that are not
     * already charged.
     *
     * @throws BudgetExceededException if the budget refuses (after giving dirty free units back)
     * @throws OutOfMemoryError        if the range has no run that long, or the system refuses memory
     * @throws IllegalStateException   if closed, or the budget is closed (the range stays as it was)
     */
    synchronized Allocation allocate(int units, int sizeClass, boolean tracked) {
        if (closed) {
            throw Checks.closed(owner);
        }
        int start = findRun(units);
        if (start < 0) {
            throw new OutOfMemoryError("pooled allocator '" + owner + "' has no free run of " + units + " units ("
                    + ((long) units << UNIT_SHIFT) + " bytes) left in its address range of " + capacityBytes
                    + " bytes; build it with a larger capacity");
        }
        int clean = 0;
        int dirty = 0;
        for (int u = start; u < start + units; u++) {
            if (state[u] == FREE_DIRTY) {
                dirty++;
            } else {
                clean++;
            }
        }
        long charge = (long) clean << UNIT_SHIFT;
        boolean charged;
        try {
            charged = budget == null || charge == 0 || budget.tryReserve(charge);
        } catch (RuntimeException e) {
            // a closed budget: the run goes back, or each refusal took it from the range for good, and a range
            // with nothing live in it soon refused every request as full
            releaseRun(start, units);
            throw e;
        }
        if (!charged) {
            // memory held for nothing counts against the same budget: give it back and ask again
            purgeFree();
            try {
                budget.reserve(charge); // throws, naming the budget and its biggest users
            } catch (RuntimeException e) {
                releaseRun(start, units);
                throw e;
            }
        }
        int end = start + units;
        if (end > top) {
            int newTop = Math.min(totalUnits, Math.max(end, top + COMMIT_STEP_UNITS));
            try {
                VirtualMemory.commit(base + ((long) top << UNIT_SHIFT), (long) (newTop - top) << UNIT_SHIFT);
            } catch (OutOfMemoryError e) {
                releaseRun(start, units);
                if (budget != null && charge > 0) {
                    budget.release(charge);
                }
                throw e;
            }
            if (newTop > end) {
                addFreeRun(end, newTop - end);
            }
            top = newTop;
        }
        Span span = new Span(start, units, base + ((long) start << UNIT_SHIFT), sizeClass, tracked);
        for (int u = start; u < end; u++) {
            state[u] = USED;
            Span[] leaf = table[u >>> LEAF_SHIFT];
            if (leaf == null) {
                leaf = new Span[LEAF_SIZE];
                table[u >>> LEAF_SHIFT] = leaf;
            }
            leaf[u & (LEAF_SIZE - 1)] = span;
            if (sizeClass >= 0) {
                unitStates[u] = tracked ? UnitStates.TRACKED : UnitStates.create(sizeClass);
            }
        }
        footprintUnits += clean;
        freeDirtyUnits -= dirty;
        purgedInSpans += span.purgedBytes;
        return new Allocation(span, dirty == 0 && VirtualMemory.PURGE_ZEROES);
    }

    /** Records the allocation a large span holds. */
    synchronized void markLarge(Span span, long address, long size, Arena ownScope) {
        span.blockAddress = address;
        span.requested = size;
        span.ownScope = ownScope;
        span.live = true;
    }

    /**
     * Marks the allocation of a large span freed, if {@code address} is its live allocation. The
     * caller finishes with its debug record and scope, then returns the units with {@link #free}:
     * until then no other allocation can reuse the address.
     *
     * @param size  the size of the segment being freed; if it is not the allocation's, nothing is
     *              freed and the result says so (a slice that starts where the allocation starts)
     * @param scope the scope of the segment being freed: a closed one that is not the allocation's own
     *              (FULL mode) is a stale segment of an earlier allocation at that address
     * @return what was released, or null if the span holds no live allocation at that address (or
     *         none that {@code scope} may free)
     */
    synchronized Span.LargeRelease endLarge(Span span, long address, long size, MemorySegment.Scope scope) {
        if (closed || !span.live || span.blockAddress != address) {
            return null;
        }
        if (span.ownScope != null && Checks.isStale(scope, span.ownScope.scope())) {
            // the free looked at the segment's scope before the first free closed it, and the units went to
            // this allocation since: checked here, under the lock that frees, so that it stays live
            return null;
        }
        if (size != span.requested) {
            return new Span.LargeRelease(span.requested, null, false);
        }
        span.live = false;
        Span.LargeRelease released = new Span.LargeRelease(span.requested, span.ownScope, true);
        span.ownScope = null;
        return released;
    }

    /** @return whether {@code address} lies inside the live allocation of a large span, past its start */
    synchronized boolean insideLarge(Span span, long address) {
        return !closed && span.live && address > span.blockAddress && address - span.blockAddress < span.requested;
    }

    /** Returns a span's units; they stay charged until {@link #purgeFree()}. */
    synchronized void free(Span span) {
        if (closed) {
            return;
        }
        for (int u = span.firstUnit; u < span.firstUnit + span.units; u++) {
            state[u] = FREE_DIRTY;
            table[u >>> LEAF_SHIFT][u & (LEAF_SIZE - 1)] = null;
            unitStates[u] = null;
        }
        freeDirtyUnits += span.units;
        purgedInSpans -= span.purgedBytes;
        addFreeRun(span.firstUnit, span.units);
    }

    /** Gives the memory of every free dirty unit back to the system and un-charges the budget. @return bytes given back */
    synchronized long purgeFree() {
        if (closed || freeDirtyUnits == 0) {
            return 0;
        }
        long purged = 0;
        for (Map.Entry<Integer, Integer> run : freeRuns.entrySet()) {
            int end = run.getKey() + run.getValue();
            int u = run.getKey();
            while (u < end) {
                if (state[u] != FREE_DIRTY) {
                    u++;
                    continue;
                }
                int from = u;
                while (u < end && state[u] == FREE_DIRTY) {
                    state[u++] = FREE_CLEAN;
                }
                VirtualMemory.purge(base + ((long) from << UNIT_SHIFT), (long) (u - from) << UNIT_SHIFT);
                purged += u - from;
            }
        }
        footprintUnits -= purged;
        freeDirtyUnits -= purged;
        if (budget != null && purged > 0) {
            budget.release(purged << UNIT_SHIFT);
        }
        return purged << UNIT_SHIFT;
    }

    synchronized long footprintBytes() {
        return (footprintUnits << UNIT_SHIFT) - purgedInSpans;
    }

    /**
     * Gives the pages of a free block inside a used span back to the system.
     *
     * @return false if closed (nothing done)
     */
    synchronized boolean purgeInSpan(long address, long bytes) {
        if (closed) {
            return false;
        }
        VirtualMemory.purge(address, bytes);
        purgedInSpans += bytes;
        return true;
    }

    /** A purged block is in use again (its pages come back when touched). */
    synchronized void unpurgeInSpan(long bytes) {
        purgedInSpans -= bytes;
    }

    /** Unmaps everything and releases the budget's charge; later calls do nothing. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // released, not unmapped at once: a segment's access may still slip past its arena's close (see there)
        VirtualMemory.release(base, capacityBytes);
        if (budget != null && footprintUnits > 0) {
            budget.release(footprintUnits << UNIT_SHIFT);
        }
        footprintUnits = 0;
        purgedInSpans = 0;
    }

    synchronized boolean isClosed() {
        return closed;
    }

    // ---- free runs; first fit, lowest address first, so that live data gathers at the start

    private int findRun(int units) {
        for (Iterator<Map.Entry<Integer, Integer>> it = freeRuns.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Integer, Integer> run = it.next();
            if (run.getValue() >= units) {
                int start = run.getKey();
                int left = run.getValue() - units;
                it.remove();
                if (left > 0) {
                    freeRuns.put(start + units, left);
                }
                return start;
            }
        }
        // extend at the top, joining a free run that ends there
        Map.Entry<Integer, Integer> last = freeRuns.lastEntry();
        int start = last != null && last.getKey() + last.getValue() == top ? last.getKey() : top;
        if ((long) start + units > totalUnits) {
            return -1;
        }
        if (start < top) {
            freeRuns.remove(start);
        }
        return start;
    }

    private void releaseRun(int start, int units) {
        int end = Math.min(start + units, top);
        if (end > start) {
            addFreeRun(start, end - start);
        }
    }

    private void addFreeRun(int start, int units) {
        int end = start + units;
        Map.Entry<Integer, Integer> before = freeRuns.floorEntry(start - 1);
        if (before != null && before.getKey() + before.getValue() == start) {
            start = before.getKey();
            freeRuns.remove(start);
        }
        Integer afterLength = freeRuns.remove(end);
        if (afterLength != null) {
            end += afterLength;
        }
        freeRuns.put(start, end - start);
    }
}
