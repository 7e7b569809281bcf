package dev.offheap.memory.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * The one source of the segment loops. Never duplicate these loops in source: to keep call
 * sites monomorphic, {@link SegmentKernelCopies} loads this class's bytes again as hidden classes,
 * one per concrete segment class, and each copy collects its own JIT profile.
 *
 * <p>The class must stay self-contained: no static state other than constants, no nested
 * classes, because a hidden copy shares only its bytecode with the original.
 */
public final class SegmentKernels extends SegmentKernel {

    private static final ValueLayout.OfLong LONG_BE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_LE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_NATIVE = ValueLayout.JAVA_LONG_UNALIGNED;

    /** From this length on, {@link #fill} writes native regions with a loop of 8-byte stores. */
    public static final long VECTOR_FILL_FROM = 1024;
    /** From this length on, {@link #fill} hands native regions back to {@link MemorySegment#fill}. */
    public static final long STUB_FILL_FROM = 1L << 20;
    /** From this length on, comparisons use the JDK's vectorized {@code mismatch}. */
    private static final long MISMATCH_THRESHOLD = 64;

    // Multipliers of the hash: odd 64-bit constants with well spread bits (golden ratio and
    // the constants of well-studied 64-bit mixers).
    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xC2B2AE3D27D4EB4FL;
    private static final long M3 = 0x165667B19E3779F9L;
    private static final long M4 = 0xFF51AFD7ED558CCDL;
    private static final long M5 = 0xC4CEB9FE1A85EC53L;
    private static final long M6 = 0x9FB21C651E98DF25L;

    /** From this length on, swaps use bulk copies (see {@link #swapByBulkCopies}). */
    private static final int BULK_SWAP_THRESHOLD = 256;
    private static final int SWAP_CHUNK_BYTES = 2048;
    private static final ThreadLocal<MemorySegment> SWAP_SCRATCH =
            ThreadLocal.withInitial(() -> MemorySegment.ofArray(new byte[SWAP_CHUNK_BYTES]));
    /** The target of {@link #checkAccessible}'s copy of nothing; never written. */
    private static final byte[] NO_BYTES = new byte[0];

    /** Creates the kernel; hidden copies are created reflectively by {@link SegmentKernelCopies}. */
    public SegmentKernels() {
    }

    private static void checkRange(MemorySegment s, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, s.byteSize());
    }

    /**
     * For regions of length 0, which nothing reads: a closed segment (or a confined one of another thread)
     * throws the JDK's exception all the same, as the methods promise and as fill, readBytes and writeBytes
     * did already. The JDK's copy into an array checks the segment for any length, a segment-to-segment copy
     * of 0 bytes does not. Works at offset == byteSize(), where no byte can be read.
     */
    private static void checkAccessible(MemorySegment s, long offset) {
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset, NO_BYTES, 0, 0);
    }

    @Override
    public int compareUnsigned(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length) {
        checkRange(a, aOffset, length);
        checkRange(b, bOffset, length);
        long i = 0;
        if (length >= MISMATCH_THRESHOLD) {
            long m = MemorySegment.mismatch(a, aOffset, aOffset + length, b, bOffset, bOffset + length);
            if (m < 0) {
                return 0;
            }
            return Integer.compare(
                    Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aOffset + m)),
                    Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bOffset + m)));
        }
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            long x = a.get(LONG_BE, aOffset + i);
            long y = b.get(LONG_BE, bOffset + i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < length; i++) {
            int d = Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aOffset + i))
                    - Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bOffset + i));
            if (d != 0) {
                return d;
            }
        }
        if (length == 0) {
            checkAccessible(a, aOffset);
            checkAccessible(b, bOffset);
        }
        return 0;
    }

    @Override
    public void swap(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length) {
        checkRange(a, aOffset, length);
        checkRange(b, bOffset, length);
        if (length == 0) {
            checkAccessible(a, aOffset);
            checkAccessible(b, bOffset);
            return;
        }
        boolean sameRegion = checkDisjointOrSame(a, aOffset, b, bOffset, length);
        if (a.isReadOnly() || b.isReadOnly()) {
            // before any write: the loop below wrote a first and then failed on a read-only b, and a's bytes were lost
            throw new IllegalArgumentException("swap of a read-only segment: " + (a.isReadOnly() ? a : b)
                    + "; nothing was changed");
        }
        if (sameRegion) {
            return;
        }
        // Not failure-atomic against a fault of memory backed by a truncated file, and reading the last
        // byte of each region before any write would not make it so: in C2-compiled code the JDK throws
        // the fault's InternalError only at the next safepoint poll, and until then the faulting read
        // gives an undefined value that the swap goes on to write (measured: with the last bytes read
        // first, -Xint and C1 changed nothing, C2 changed the other region).
        if (length >= BULK_SWAP_THRESHOLD) {
            swapByBulkCopies(a, aOffset, b, bOffset, length);
            return;
        }
        // Two loops of the same text, so that each collects its own type profile: in a program that swaps
        // across kinds too, b's accesses in one shared loop see two classes, and C2 then inlines the JDK's
        // accessor without knowing b's class, where its inner calls (unsafeGetBase, unsafeGetOffset) follow
        // the JDK's own profile, polluted by every kind, and stay virtual calls: 16-byte swaps of heap or
        // mapped segments ran 8-12x slower (docs/segment-access.md section 3).
        if (b.getClass() == a.getClass()) {
            swapWordsSameClass(a, aOffset, b, bOffset, length);
        } else {
            swapWordsAcrossClasses(a, aOffset, b, bOffset, length);
        }
    }

    /** The element swap when {@code b} is of {@code a}'s class: every access sees that one class. */
    private static void swapWordsSameClass(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
            long length) {
        long i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            long x = a.get(LONG_NATIVE, aOffset + i);
            a.set(LONG_NATIVE, aOffset + i, b.get(LONG_NATIVE, bOffset + i));
            b.set(LONG_NATIVE, bOffset + i, x);
        }
        for (; i < length; i++) {
            byte x = a.get(ValueLayout.JAVA_BYTE, aOffset + i);
            a.set(ValueLayout.JAVA_BYTE, aOffset + i, b.get(ValueLayout.JAVA_BYTE, bOffset + i));
            b.set(ValueLayout.JAVA_BYTE, bOffset + i, x);
        }
    }

    /** The element swap of two segments of different classes; the same text as {@link #swapWordsSameClass}. */
    private static void swapWordsAcrossClasses(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
            long length) {
        long i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            long x = a.get(LONG_NATIVE, aOffset + i);
            a.set(LONG_NATIVE, aOffset + i, b.get(LONG_NATIVE, bOffset + i));
            b.set(LONG_NATIVE, bOffset + i, x);
        }
        for (; i < length; i++) {
            byte x = a.get(ValueLayout.JAVA_BYTE, aOffset + i);
            a.set(ValueLayout.JAVA_BYTE, aOffset + i, b.get(ValueLayout.JAVA_BYTE, bOffset + i));
            b.set(ValueLayout.JAVA_BYTE, bOffset + i, x);
        }
    }

    /**
     * Swaps long regions through a per-thread scratch array with three bulk copies per chunk. Bulk
     * copies run at memory bandwidth whatever mix of segment classes a program uses, where an
     * element loop slows down by an order of magnitude once its call sites have seen several
     * segment classes.
     */
    private static void swapByBulkCopies(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length) {
        MemorySegment scratch = SWAP_SCRATCH.get();
        for (long done = 0; done < length; ) {
            long chunk = Math.min(SWAP_CHUNK_BYTES, length - done);
            MemorySegment.copy(a, aOffset + done, scratch, 0, chunk);
            MemorySegment.copy(b, bOffset + done, a, aOffset + done, chunk);
            MemorySegment.copy(scratch, 0, b, bOffset + done, chunk);
            done += chunk;
        }
    }

    /**
     * Returns whether the two regions are the same memory (a swap with itself, which changes nothing);
     * throws if they overlap otherwise. The regions are in bounds and {@code length > 0}.
     */
    private static boolean checkDisjointOrSame(MemorySegment a, long aOffset, MemorySegment b, long bOffset,
            long length) {
        boolean overlap;
        if (a == b) {
            overlap = aOffset < bOffset + length && bOffset < aOffset + length;
        } else if (a.isNative() != b.isNative()) {
            overlap = false;
        } else if (a.isNative()) {
            long x = a.address() + aOffset;
            long y = b.address() + bOffset;
            overlap = x < y + length && y < x + length;
        } else {
            // Two heap views: rare, so the allocating JDK check is fine here.
            overlap = a.asSlice(aOffset, length).asOverlappingSlice(b.asSlice(bOffset, length)).isPresent();
        }
        if (!overlap) {
            return false;
        }
        // Read a byte of each region first, so that a closed segment (or a confined one of another
        // thread) throws the JDK's exception: the test above compares addresses, and a closed segment's
        // address may since have been handed out again (a released MemoryManager page and the page
        // leased after it are views of the same memory), which read as an overlap (or as the same
        // region). Disjoint regions need no such read: the swap reads each before it writes either.
        a.get(ValueLayout.JAVA_BYTE, aOffset);
        b.get(ValueLayout.JAVA_BYTE, bOffset);
        // Only here, off the path of disjoint swaps: a quicksort swaps element i with j == i.
        boolean same;
        if (a == b) {
            same = aOffset == bOffset;
        } else if (a.isNative()) {
            same = a.address() + aOffset == b.address() + bOffset;
        } else {
            // two equally long regions are the same when all of one overlaps the other
            same = a.asSlice(aOffset, length).asOverlappingSlice(b.asSlice(bOffset, length))
                    .orElseThrow().byteSize() == length;
        }
        if (!same) {
            throw partialOverlap(a, aOffset, b, bOffset, length);
        }
        return true;
    }

    /**
     * The refusal of a partial overlap. The offsets are each relative to its own segment, which may be two
     * views of one memory at different addresses, so the message says how far apart the regions start.
     */
    private static IllegalArgumentException partialOverlap(MemorySegment a, long aOffset, MemorySegment b,
            long bOffset, long length) {
        // overlapping heap segments are views of one array, whose address() is the offset in that array
        long distance = (b.address() + bOffset) - (a.address() + aOffset);
        long apart = Math.abs(distance);
        return new IllegalArgumentException("swap regions overlap: [" + aOffset + ", " + (aOffset + length)
                + ") of the first segment and [" + bOffset + ", " + (bOffset + length) + ") of the second"
                + (a == b ? " (the same segment)" : "") + " share " + (length - apart) + " of their " + length
                + " bytes, the second starting " + apart + (apart == 1 ? " byte " : " bytes ")
                + (distance > 0 ? "after" : "before") + " the first; nothing was changed");
    }

    @Override
    public long hash64(MemorySegment s, long offset, long length, long seed) {
        checkRange(s, offset, length);
        long h = seed + length * M1;
        long i = 0;
        if (length >= 32) {
            // Four independent lanes, so that the multiplies of one block run in parallel.
            long v1 = h + M1 + M2;
            long v2 = h + M2;
            long v3 = h;
            long v4 = h - M1;
            for (; i <= length - 32; i += 32) {
                v1 = round(v1, s.get(LONG_LE, offset + i));
                v2 = round(v2, s.get(LONG_LE, offset + i + 8));
                v3 = round(v3, s.get(LONG_LE, offset + i + 16));
                v4 = round(v4, s.get(LONG_LE, offset + i + 24));
            }
            h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
            h = merge(merge(merge(merge(h, v1), v2), v3), v4);
        }
        for (; i <= length - 8; i += 8) {
            h = Long.rotateLeft(h ^ round(0, s.get(LONG_LE, offset + i)), 27) * M1 + M4;
        }
        long rem = length - i;
        if (rem > 0) {
            // The last 1..7 bytes as one word: two overlapping ints, or first/middle/last byte
            // and the count (the length is in the state already, so overlap cannot collide).
            long t;
            if (rem >= 4) {
                t = Integer.toUnsignedLong(s.get(INT_LE, offset + i))
                        | Integer.toUnsignedLong(s.get(INT_LE, offset + length - 4)) << 32;
            } else {
                t = Byte.toUnsignedLong(s.get(ValueLayout.JAVA_BYTE, offset + i))
                        | Byte.toUnsignedLong(s.get(ValueLayout.JAVA_BYTE, offset + i + (rem >>> 1))) << 8
                        | Byte.toUnsignedLong(s.get(ValueLayout.JAVA_BYTE, offset + length - 1)) << 16
                        | rem << 24;
            }
            h = Long.rotateLeft(h ^ round(0, t), 27) * M1 + M4;
        } else if (length == 0) {
            checkAccessible(s, offset);
        }
        return finish(h);
    }

    private static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * M2, 31) * M1;
    }

    private static long merge(long h, long lane) {
        return (h ^ round(0, lane)) * M1 + M4;
    }

    /** Pelle Evensen's rrmxmx finalizer: every input bit affects every output bit. */
    private static long finish(long h) {
        h ^= Long.rotateRight(h, 49) ^ Long.rotateRight(h, 24);
        h *= M6;
        h ^= h >>> 28;
        h *= M6;
        return h ^ (h >>> 28);
    }

    @Override
    public void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long length) {
        // the JDK's message for a negative length gives neither the offset nor the size
        checkRange(src, srcOffset, length);
        checkRange(dst, dstOffset, length);
        if (length == 0) {
            checkAccessible(src, srcOffset);
            checkAccessible(dst, dstOffset);
        }
        MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
    }

    /**
     * Native regions from {@link #VECTOR_FILL_FROM} bytes on are filled by a loop of 8-byte stores,
     * which C2 turns into vector stores. {@link MemorySegment#fill} stores a few bytes at a time beyond
     * its smallest sizes (JDK 25 hands them to {@code Unsafe.setMemory}): zeroing an allocated block
     * with it took 105 ns at 4 KiB and 1,348 ns at 64 KiB, against 68 and 627 ns with the loop (pooled
     * allocate + touch + free, alternating one-fork runs); below 1 KiB the loop's fixed cost made it
     * slower (31-33 against 24-25 ns at 128 and 256 B). The loop stores through the segment, so scope
     * and bounds are checked.
     * From {@link #STUB_FILL_FROM} on {@link MemorySegment#fill} is used again: at 256 MiB the JDK's
     * fill stub measured 0.91x of {@code memset}'s bandwidth against the loop's 0.82x (full mode, 2 forks,
     * on a quiet machine; {@code docs/benchmarks/segments-fill}), and it turns a fault into an
     * {@link InternalError} as the accessors do.
     * No size goes to {@code memset} through the Linker, although it was faster on very large regions:
     * memory backed by a file is not always a segment that says it is mapped (a segment over a view of a
     * {@code MappedByteBuffer}, one that {@code reinterpret} made, a mapped manager's pages), and a store
     * past the end of a truncated file faults, which the JDK's accessors turn into an
     * {@link InternalError} but which kills the JVM with SIGBUS inside a downcall.
     */
    @Override
    public void fill(MemorySegment s, long offset, long length, byte value) {
        checkRange(s, offset, length);
        MemorySegment region = s.asSlice(offset, length);
        if (length >= VECTOR_FILL_FROM && length < STUB_FILL_FROM && region.isNative() && !region.isReadOnly()) {
            fillByLongs(region, value);
        } else {
            region.fill(value);
        }
    }

    private static void fillByLongs(MemorySegment region, byte value) {
        long length = region.byteSize();
        long pattern = (value & 0xFFL) * 0x0101010101010101L;
        long words = length & ~7L;
        for (long i = 0; i < words; i += Long.BYTES) {
            region.set(LONG_NATIVE, i, pattern);
        }
        for (long i = words; i < length; i++) {
            region.set(ValueLayout.JAVA_BYTE, i, value);
        }
    }

    @Override
    public void writeBytes(MemorySegment dst, long dstOffset, byte[] src, int srcIndex, int length) {
        MemorySegment.copy(src, srcIndex, dst, ValueLayout.JAVA_BYTE, dstOffset, length);
    }

    @Override
    public void readBytes(MemorySegment src, long srcOffset, byte[] dst, int dstIndex, int length) {
        // the JDK's message for a negative length gives neither the index nor the size (writeBytes' does)
        Objects.checkFromIndexSize(dstIndex, length, dst.length);
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, srcOffset, dst, dstIndex, length);
    }

    @Override
    public long getLongBE(MemorySegment s, long offset) {
        return s.get(LONG_BE, offset);
    }

    @Override
    public void putLongBE(MemorySegment s, long offset, long value) {
        s.set(LONG_BE, offset, value);
    }

    @Override
    public int getIntBE(MemorySegment s, long offset) {
        return s.get(INT_BE, offset);
    }

    @Override
    public void putIntBE(MemorySegment s, long offset, int value) {
        s.set(INT_BE, offset, value);
    }

    @Override
    public short getShortBE(MemorySegment s, long offset) {
        return s.get(SHORT_BE, offset);
    }

    @Override
    public void putShortBE(MemorySegment s, long offset, short value) {
        s.set(SHORT_BE, offset, value);
    }
}
