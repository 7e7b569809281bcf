package dev.offheap.memory.internal;

import java.lang.foreign.MemorySegment;

/**
 * The loops behind {@code dev.offheap.memory.Segments}. The only implementation is
 * {@link SegmentKernels}; {@link SegmentKernelCopies} defines several copies of it as hidden
 * classes so that each copy's bytecode (and so its JIT type profile) sees one segment class.
 * Arguments are validated for nulls by the caller; bounds are checked here, inside the copy,
 * where the segment's class is monomorphic.
 */
public abstract class SegmentKernel {

    /** For subclasses (the kernel and its hidden copies). */
    protected SegmentKernel() {
    }

    /** Unsigned lexicographic comparison of {@code a[aOffset, +length)} and {@code b[bOffset, +length)}. */
    public abstract int compareUnsigned(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length);

    /** Swaps two equally long regions that do not overlap or are the same (then nothing changes). */
    public abstract void swap(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length);

    /** A 64-bit hash of {@code s[offset, +length)}, independent of the segment kind and alignment. */
    public abstract long hash64(MemorySegment s, long offset, long length, long seed);

    /** Copies with memmove semantics. */
    public abstract void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long length);

    /** Sets {@code length} bytes from {@code offset} to {@code value}. */
    public abstract void fill(MemorySegment s, long offset, long length, byte value);

    /** Copies {@code src[srcIndex, +length)} into {@code dst} at {@code dstOffset}. */
    public abstract void writeBytes(MemorySegment dst, long dstOffset, byte[] src, int srcIndex, int length);

    /** Copies {@code src[srcOffset, +length)} into {@code dst} from {@code dstIndex}. */
    public abstract void readBytes(MemorySegment src, long srcOffset, byte[] dst, int dstIndex, int length);

    /** Big-endian long at a byte offset, unaligned allowed. */
    public abstract long getLongBE(MemorySegment s, long offset);

    /** Writes a big-endian long at a byte offset, unaligned allowed. */
    public abstract void putLongBE(MemorySegment s, long offset, long value);

    /** Big-endian int at a byte offset, unaligned allowed. */
    public abstract int getIntBE(MemorySegment s, long offset);

    /** Writes a big-endian int at a byte offset, unaligned allowed. */
    public abstract void putIntBE(MemorySegment s, long offset, int value);

    /** Big-endian short at a byte offset, unaligned allowed. */
    public abstract short getShortBE(MemorySegment s, long offset);

    /** Writes a big-endian short at a byte offset, unaligned allowed. */
    public abstract void putShortBE(MemorySegment s, long offset, short value);
}
