package dev.offheap.memory.alloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state bytes of the blocks that start in one unit (64 KiB) of an untracked small span of a
 * {@link PooledAllocator}: what {@link PooledAllocator#free} and the allocation fast path read and
 * write, found from an address by one load from {@linkplain UnitRange#statesTable() the unit table}.
 *
 * <p>The state of the block of class {@code c} that starts {@code inUnit} bytes into the unit lies at
 * {@code FIRST + (inUnit >>> GRANULE_SHIFT[c])}, or at 64 times that granule for blocks of 4 KiB and more
 * ({@link #index}): a granule (the largest power of two not above the block size) holds at most one
 * block start. The state is 0 while the block is not handed out (in a thread cache, in the central pool,
 * or never carved), else {@link #value}: the class + 1 times 4 plus the step at which the block starts
 * within its granule. So the compare-and-set of {@link #clearLive} checks in one instruction that the
 * address starts a live block of the class the caller expects and frees it: an address inside a block,
 * a block already freed and a block of another class all find another value.
 *
 * <p>That lets free guess the class from the segment's size, which it has at hand, instead of loading
 * the unit's class first: with the class stored in front of the states, the index waited for that
 * load, and allocate + touch + free of 16 bytes took 23.6-29.3 ns against 20.0-24.6 ns in a scratch
 * driver. A guess that is wrong (an aligned allocation, whose class is larger than its size needs, or
 * a shorter slice of the same start) fails the CAS, and the slow path frees the block by its span.
 *
 * <p>Allocation sets the state with a plain store: only the thread that took the block from its cache
 * can see the block then, and no other block's state shares the byte. Free clears it with a CAS, so
 * that of two threads freeing the same block at once exactly one succeeds; a block is never cached
 * twice.
 *
 * <p>Why per unit and by granule, rather than one byte per block of the span found from the unit table
 * (the layout before): that took the span (two table loads), its shape (base, shift, odd inverse,
 * block count) and an exact division by a multiplication. In JMH ({@code UninitializedAllocationBenchmark},
 * 16 bytes, 3 forks, three alternating rounds) allocate + touch + free went from 30.6, 26.7 and 27.4 ns
 * to 28.6, 24.2 and 25.0 ns. The states cost at most twice the bytes per block of that layout (48-byte
 * blocks: 2,048 state bytes per unit instead of 1,366), and the unit table one reference per unit of
 * capacity.
 */
final class UnitStates {
    /**
     * What the unit table holds for the units of a tracked span (sampled or FULL debug mode), whose
     * blocks are recorded one by one and freed by the slow path: no states.
     */
    static final byte[] TRACKED = new byte[0];
    /**
     * Index of the first state: a cache line in, so that the states, which threads write, stay off the
     * line of the array's header (its length, read by every bounds check).
     */
    static final int FIRST = 64;
    /** Unused bytes after the last state: a cache line between the states and the next object. */
    private static final int TRAILING = 64;
    /**
     * Blocks from this size up have a cache line of states each: a span of few large blocks is shared
     * by several threads' caches, and two threads allocating and freeing their own blocks must not
     * write the same line (at 64 KiB, sharing one made two threads 2x slower per operation than one).
     */
    private static final long OWN_LINE_MIN_BLOCK = 4096;
    private static final int FIRST_OWN_LINE_CLASS = SizeClasses.of(OWN_LINE_MIN_BLOCK);
    private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(byte[].class);
    private UnitStates() {
    }

    /** @return the states of one unit of a new untracked span of {@code sizeClass}, every block not live */
    static byte[] create(int sizeClass) {
        int granules = (int) (UnitRange.UNIT_BYTES >>> SizeClasses.GRANULE_SHIFT[sizeClass]);
        return new byte[index(sizeClass, (long) (granules - 1) << SizeClasses.GRANULE_SHIFT[sizeClass]) + 1 + TRAILING];
    }

    /**
     * Where the state of a block of class {@code c} starting {@code inUnit} bytes into its unit lies: its
     * granule, times 64 for blocks with a cache line of their own (chosen by comparing the class with a
     * constant).
     */
    static int index(int c, long inUnit) {
        int granule = (int) (inUnit >>> SizeClasses.GRANULE_SHIFT[c]);
        return FIRST + (c >= FIRST_OWN_LINE_CLASS ? granule << 6 : granule);
    }

    /**
     * @return the state of a live block of class {@code c} starting {@code inUnit} bytes into its unit:
     *         the class + 1 times 4, plus the start's step within its granule (0 to 3), never 0
     */
    static byte value(int c, long inUnit) {
        long inGranule = inUnit & ((1L << SizeClasses.GRANULE_SHIFT[c]) - 1);
        return (byte) ((c + 1) << 2 | (int) (inGranule >>> SizeClasses.START_SHIFT[c]));
    }

    /** @return whether {@code inUnit} has the alignment every block start of class {@code c} has */
    static boolean startAligned(int c, long inUnit) {
        return (inUnit & ((1L << SizeClasses.START_SHIFT[c]) - 1)) == 0;
    }

    /** Marks the block live; only the thread that just took it from its cache calls this. */
    static void markLive(byte[] states, int c, long inUnit) {
        states[index(c, inUnit)] = value(c, inUnit);
    }

    /**
     * Frees the block that starts {@code inUnit} bytes into the unit, if it is live.
     *
     * @param c      the block's class, or a guess at it: a wrong guess finds no live block of that class
     * @param inUnit a {@linkplain #startAligned start-aligned} offset into the unit
     * @return true if a live block of class {@code c} started there and is now free; false if none did (a
     *         double free, an address that starts no block, or a block of another class)
     */
    static boolean clearLive(byte[] states, int c, long inUnit) {
        // c may be a guess (the class a segment's size implies) smaller than the unit's, whose states
        // then end sooner: past their end no block of class c starts, as anywhere in these states
        int index = index(c, inUnit);
        return index < states.length && STATE.compareAndSet(states, index, value(c, inUnit), (byte) 0);
    }
}
