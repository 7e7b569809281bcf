package dev.offheap.memory.alloc;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.Charset;

/**
 * A variable-size native allocator that is also a {@link Arena}: it works wherever FFM code takes
 * an arena or a {@link java.lang.foreign.SegmentAllocator} ({@code allocateFrom}, downcalls,
 * slicing), and in addition frees single allocations with {@link #free(MemorySegment)}.
 *
 * <h2>Contract shared by every implementation</h2>
 * <ul>
 *   <li>{@link #allocate(long, long)} returns zeroed memory, as {@link Arena} promises;
 *       {@link #allocateUninitialized(long, long)} returns memory whose contents are undefined (the
 *       cheap path, comparable to {@code malloc}). The {@code allocateFrom} family never zeroes what
 *       it is about to overwrite.</li>
 *   <li>Sizes are in bytes, 0 included; alignments are powers of two in bytes. A returned segment
 *       has exactly the requested size and an address that is a multiple of the alignment.</li>
 *   <li><b>Size 0.</b> A request for 0 bytes (at any alignment, zeroed or not) returns the allocator's
 *       <em>empty segment</em>: a zero-length native segment at address 0 in the allocator's
 *       {@linkplain #scope() scope}. It is no allocation: it holds no memory, charges no budget, is not
 *       counted in {@link #allocatedBytes()} nor in the report's live allocations, is never reported as a
 *       leak, and every 0-byte request gets an equal one. {@link #free(MemorySegment)} of it does nothing,
 *       however often; {@link #free(MemorySegment)} of any other zero-length segment (a slice of an
 *       allocation, such as one at its end, which may be where the next allocation starts, or another
 *       allocator's empty segment) is refused with {@link IllegalArgumentException} and frees nothing.
 *       Requests for 0 bytes from a closed allocator still throw {@link IllegalStateException}.</li>
 *   <li>Every method is thread-safe; segments may be freed by any thread, in any order.</li>
 *   <li>{@link #close()} frees everything: live allocations at that moment are reported (a
 *       {@link System.Logger.Level#WARNING} through {@link System.Logger} and in
 *       {@link #report()}) and then freed; afterwards every segment the allocator handed out throws
 *       {@link IllegalStateException} on access, and allocating throws {@link IllegalStateException}.
 *       Closing twice does nothing.</li>
 *   <li>An allocator built with a {@link dev.offheap.memory.Budget} throws
 *       {@link dev.offheap.memory.BudgetExceededException} when a request would take the budget past
 *       its limit; nothing is allocated then.</li>
 *   <li>Debugging is configured with {@link DebugMode}.</li>
 * </ul>
 */
public interface Allocator extends Arena {

    /**
     * Allocates {@code byteSize} bytes aligned to {@code byteAlignment}, zeroed.
     *
     * @param byteSize      the size in bytes, at least 0
     * @param byteAlignment the alignment in bytes, a power of two
     * @return a segment of exactly {@code byteSize} bytes, all zero
     * @throws IllegalArgumentException if {@code byteSize} is negative or {@code byteAlignment} is not
     *                                  a positive power of two
     * @throws dev.offheap.memory.BudgetExceededException if the allocator's budget refuses the memory
     * @throws IllegalStateException    if the allocator is closed, or the budget it must charge for the memory is
     *                                  (closed before or after the allocator was built)
     * @throws OutOfMemoryError         if the system has no memory left
     */
    @Override
    MemorySegment allocate(long byteSize, long byteAlignment);

    /**
     * Allocates {@code byteSize} bytes with the alignment {@code malloc} guarantees (16 bytes), without
     * zeroing them.
     *
     * @param byteSize the size in bytes, at least 0
     * @return a segment of exactly {@code byteSize} bytes whose contents are undefined
     * @throws IllegalArgumentException if {@code byteSize} is negative
     * @throws dev.offheap.memory.BudgetExceededException if the allocator's budget refuses the memory
     * @throws IllegalStateException    if the allocator is closed, or the budget it must charge for the memory is
     *                                  (closed before or after the allocator was built)
     * @throws OutOfMemoryError         if the system has no memory left
     */
    default MemorySegment allocateUninitialized(long byteSize) {
        return allocateUninitialized(byteSize, 16);
    }

    /**
     * Allocates {@code byteSize} bytes aligned to {@code byteAlignment}, without zeroing them.
     *
     * @param byteSize      the size in bytes, at least 0
     * @param byteAlignment the alignment in bytes, a power of two
     * @return a segment of exactly {@code byteSize} bytes whose contents are undefined
     * @throws IllegalArgumentException if {@code byteSize} is negative or {@code byteAlignment} is not
     *                                  a positive power of two
     * @throws dev.offheap.memory.BudgetExceededException if the allocator's budget refuses the memory
     * @throws IllegalStateException    if the allocator is closed, or the budget it must charge for the memory is
     *                                  (closed before or after the allocator was built)
     * @throws OutOfMemoryError         if the system has no memory left
     */
    MemorySegment allocateUninitialized(long byteSize, long byteAlignment);

    /**
     * Frees one allocation. Any thread may free any allocation. The allocator's empty segment (what a
     * request for 0 bytes returns) is no allocation: its free does nothing.
     *
     * @param segment a segment returned by this allocator (not a slice of one), not yet freed
     * @throws NullPointerException     if {@code segment} is null
     * @throws IllegalArgumentException if {@code segment} was not allocated by this allocator (a
     *                                  foreign segment, a slice that does not start where an
     *                                  allocation starts, or has another size, or a zero-length segment
     *                                  other than the allocator's empty segment; the exception names its
     *                                  address)
     * @throws IllegalStateException    if the segment was already freed, where the allocator detects
     *                                  that (always in {@link DebugMode#FULL}; see each allocator for
     *                                  the other modes); after {@link #close()} freeing does nothing
     */
    void free(MemorySegment segment);

    /** @return bytes of live allocations, as requested (not rounded up); a moment's snapshot */
    long allocatedBytes();

    /**
     * @return native bytes this allocator holds from the system right now: live allocations, their
     * rounding, per-thread caches and free lists; a moment's snapshot
     */
    long footprintBytes();

    /**
     * Describes what the allocator holds now; in a debug mode, the tracked live allocations grouped by
     * allocation site and thread, and the problems seen.
     *
     * @return a new snapshot; never null
     */
    AllocationReport report();

    /**
     * Frees everything this allocator handed out, after reporting live allocations as leaks. Closing
     * twice does nothing.
     */
    @Override
    void close();

    // ---- the allocateFrom family: the memory is overwritten right away, so it is not zeroed first

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(String str, Charset charset) {
        return AllocateFrom.string(this::allocateUninitialized, str, charset);
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfByte layout, byte value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfChar layout, char value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfShort layout, short value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfInt layout, int value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfFloat layout, float value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfLong layout, long value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /** {@inheritDoc} Allocates without zeroing, since the value overwrites the memory. */
    @Override
    default MemorySegment allocateFrom(ValueLayout.OfDouble layout, double value) {
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        seg.set(layout, 0, value);
        return seg;
    }

    /**
     * {@inheritDoc} Allocates without zeroing, since the value overwrites the memory; a value that cannot be
     * stored (a heap segment, which has no address to store) is refused before anything is allocated, and
     * if the store fails all the same, the allocation is freed before the exception propagates, so nothing
     * stays allocated.
     */
    @Override
    default MemorySegment allocateFrom(AddressLayout layout, MemorySegment value) {
        AllocateFrom.storableAddress(value);
        MemorySegment seg = allocateUninitialized(layout.byteSize(), layout.byteAlignment());
        try {
            seg.set(layout, 0, value);
        } catch (RuntimeException e) {
            // the caller never sees the segment and could never free it: it stayed live until close
            try {
                free(seg);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return seg;
    }

    /**
     * {@inheritDoc} Allocates without zeroing, since the copy overwrites the memory. The arguments are
     * checked as the copy checks them (bounds, alignments, layout sizes, the source's scope) before anything
     * is allocated, so a refused call allocates nothing and charges no budget; if the copy fails all the
     * same (a source closed meanwhile by another thread), the allocation is freed before the exception
     * propagates.
     */
    @Override
    default MemorySegment allocateFrom(ValueLayout elementLayout, MemorySegment source, ValueLayout sourceElementLayout,
                                       long sourceOffset, long elementCount) {
        return AllocateFrom.copy(this::allocateUninitialized, this::free, elementLayout, source, sourceElementLayout,
                sourceOffset, elementCount);
    }
}
