package dev.offheap.memory;

import dev.offheap.memory.internal.SegmentKernelCopies;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Helpers that algorithms on pages need: unsigned comparison of normalized keys, swapping
 * records, hashing, big-endian access for key normalization, copy and fill, and bulk byte
 * transfer. All offsets and lengths are in bytes; offsets are relative to the start of the given
 * segment. Segments may be of any kind: heap ({@link MemorySegment#ofArray(byte[])}), native
 * or mapped.
 *
 * <h2>Fast whatever segments a program mixes</h2>
 * A JIT call site that has seen heap, native and mapped segments becomes megamorphic: the segment
 * accessors are no longer inlined and loops run many times slower (see
 * {@code docs/segment-access.md}). These helpers keep their loops in one internal kernel, of which
 * the library defines a separate copy per concrete segment class (up to four classes; more share
 * one copy). Each method picks the copy by the class of its first segment argument, so every
 * copy's loops see one segment class and stay inlined when the program mixes kinds. Arguments
 * that are a second segment (the {@code b} of {@link #compareUnsigned} and {@link #swap}, the
 * {@code dst} of {@link #copy}) are profiled in the copy of the first; mixing at most two
 * classes there stays fast (bimorphic). Short swaps keep a second segment of the first's class apart
 * from one of another class: the JDK's accessors on a segment whose class the JIT has not pinned down
 * make calls that a program using all kinds has made megamorphic.
 *
 * <h2>Errors</h2>
 * <ul>
 *   <li>a {@code null} segment or array: {@link NullPointerException} naming the argument;</li>
 *   <li>a negative offset or length, or a region outside the segment or array:
 *       {@link IndexOutOfBoundsException} whose message gives the offset, length and size;</li>
 *   <li>a segment whose arena is closed: the JDK's {@link IllegalStateException} propagates,
 *       for a region of length 0 too; so does its {@link WrongThreadException} for a confined
 *       segment used by another thread, and its {@link IllegalArgumentException} for writes to a
 *       read-only segment.</li>
 *   <li>memory backed by a file that faults (the file was truncated under its mapping, or a sparse
 *       file's disk is full; the segment need not say it is mapped): the JDK's
 *       {@link InternalError}, never a crash of the JVM, as every access goes through the JDK's
 *       accessors. The bytes of the regions the method writes are then undefined, all of them, not
 *       only those past the fault: in compiled code the JDK throws the error some time after the
 *       fault, and until then a read that faulted gives an undefined value and a store that faulted
 *       is dropped.</li>
 * </ul>
 * No method ever reads or writes outside the given regions.
 *
 * <h2>Thread-safety</h2>
 * The class is stateless for callers and all methods may be called from any thread. The methods
 * do not synchronize on the memory: concurrent writes to the same bytes are a data race as with
 * any plain memory access, and readers may see them torn.
 */
public final class Segments {

    private Segments() {
    }

    /**
     * Compares two regions as unsigned bytes, lexicographically: the first differing byte
     * decides, compared as a value 0..255. This is the order of normalized sort keys.
     *
     * <p>Regions shorter than 64 bytes are compared 8 bytes at a time as big-endian longs with
     * {@link Long#compareUnsigned}, and their last 1 to 7 bytes one at a time; regions of 64 bytes
     * or more use {@link MemorySegment#mismatch}, which the JDK vectorizes.
     *
     * @param a       the first segment
     * @param aOffset offset of the first region in {@code a}, in bytes
     * @param b       the second segment (may be {@code a})
     * @param bOffset offset of the second region in {@code b}, in bytes
     * @param length  length of both regions, in bytes
     * @return a negative number, zero or a positive number as the first region is less than,
     *         equal to or greater than the second
     * @throws NullPointerException      if {@code a} or {@code b} is null
     * @throws IndexOutOfBoundsException if an offset or the length is negative or a region
     *                                   extends past the end of its segment
     * @throws IllegalStateException     if a segment's arena is closed
     */
    public static int compareUnsigned(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        Class<?> c = a.getClass();
        if (c == SegmentKernelCopies.c0()) {
            return SegmentKernelCopies.K0.compareUnsigned(a, aOffset, b, bOffset, length);
        } else if (c == SegmentKernelCopies.c1()) {
            return SegmentKernelCopies.K1.compareUnsigned(a, aOffset, b, bOffset, length);
        } else if (c == SegmentKernelCopies.c2()) {
            return SegmentKernelCopies.K2.compareUnsigned(a, aOffset, b, bOffset, length);
        } else if (c == SegmentKernelCopies.c3()) {
            return SegmentKernelCopies.K3.compareUnsigned(a, aOffset, b, bOffset, length);
        }
        return SegmentKernelCopies.kernelFor(c).compareUnsigned(a, aOffset, b, bOffset, length);
    }

    /**
     * Swaps the contents of two equally long regions, for example two fixed-size records of a
     * sort buffer. The regions may lie in the same segment or in different segments of any kind.
     * A region swapped with itself (the same offset of the same segment, or two segments over the
     * same memory at the same address) is left as it is, with the same checks as any swap.
     *
     * <p>Native and mapped regions are told apart by address, so memory that is mapped twice (two
     * mappings of one file, or of one shared-memory object) is not known to be the same: regions
     * of the two mappings are swapped as if they were disjoint, and partly overlapping ones are
     * not refused, their bytes left in no meaningful order. A region swapped with itself through
     * the two mappings still ends as it was, as each word is read before it is written back.
     *
     * <p>Memory backed by a file that faults (see the class documentation) leaves the contents of both
     * regions undefined, not only the bytes of the block being swapped: the swap reads one region and
     * writes the other as it goes, and compiled code goes on past a fault before the JDK throws.
     *
     * @param a       the first segment
     * @param aOffset offset of the first region in {@code a}, in bytes
     * @param b       the second segment (may be {@code a})
     * @param bOffset offset of the second region in {@code b}, in bytes
     * @param length  length of both regions, in bytes
     * @throws NullPointerException      if {@code a} or {@code b} is null
     * @throws IndexOutOfBoundsException if an offset or the length is negative or a region
     *                                   extends past the end of its segment
     * @throws IllegalArgumentException  if the two regions overlap without being the same region
     *                                   (same segment, or two segments over the same memory at the
     *                                   same addresses; not two mappings of one file) and
     *                                   {@code length > 0}: a swap of partly overlapping regions has
     *                                   no meaningful result, so nothing is changed; or if a segment
     *                                   is read-only and {@code length > 0}, even when the regions
     *                                   are the same (nothing is changed either)
     * @throws IllegalStateException     if a segment's arena is closed
     * @throws InternalError             (the JDK's) if memory backed by a file faults; both regions are
     *                                   then undefined
     */
    public static void swap(MemorySegment a, long aOffset, MemorySegment b, long bOffset, long length) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        Class<?> c = a.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.swap(a, aOffset, b, bOffset, length);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.swap(a, aOffset, b, bOffset, length);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.swap(a, aOffset, b, bOffset, length);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.swap(a, aOffset, b, bOffset, length);
        } else {
            SegmentKernelCopies.kernelFor(c).swap(a, aOffset, b, bOffset, length);
        }
    }

    /**
     * A 64-bit hash of a region with seed 0; see {@link #hash64(MemorySegment, long, long, long)}.
     *
     * @param s      the segment
     * @param offset offset of the region, in bytes
     * @param length length of the region, in bytes
     * @return the hash
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if the offset or length is negative or the region extends
     *                                   past the end of the segment
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static long hash64(MemorySegment s, long offset, long length) {
        return hash64(s, offset, length, 0L);
    }

    /**
     * A fast, well-mixed 64-bit hash of a region. The same bytes give the same hash whatever the
     * segment kind, the region's alignment and the platform's byte order; the value may change
     * between library versions, so do not persist it. Not a cryptographic hash: do not use it
     * against adversarial keys without a secret seed.
     *
     * <p>The construction: the length and seed initialize the state; 32-byte blocks go through
     * four independent multiply-rotate lanes (8 little-endian bytes each), the rest 8 bytes at a
     * time, and the last 1 to 7 bytes as one word (4 to 7 bytes as two overlapping little-endian
     * ints; 1 to 3 bytes as the first, middle and last byte with their count); a finalizer of
     * rotations, xor-shifts and multiplies (Pelle Evensen's rrmxmx) spreads every input bit over the
     * whole result.
     *
     * @param s      the segment
     * @param offset offset of the region, in bytes
     * @param length length of the region, in bytes
     * @param seed   any value; different seeds give independent-looking hash functions
     * @return the hash
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if the offset or length is negative or the region extends
     *                                   past the end of the segment
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static long hash64(MemorySegment s, long offset, long length, long seed) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            return SegmentKernelCopies.K0.hash64(s, offset, length, seed);
        } else if (c == SegmentKernelCopies.c1()) {
            return SegmentKernelCopies.K1.hash64(s, offset, length, seed);
        } else if (c == SegmentKernelCopies.c2()) {
            return SegmentKernelCopies.K2.hash64(s, offset, length, seed);
        } else if (c == SegmentKernelCopies.c3()) {
            return SegmentKernelCopies.K3.hash64(s, offset, length, seed);
        }
        return SegmentKernelCopies.kernelFor(c).hash64(s, offset, length, seed);
    }

    /**
     * Copies {@code length} bytes from {@code src} to {@code dst}. Overlapping regions (same
     * memory) are copied as if through a temporary buffer. As in {@link #swap}, native and mapped
     * regions are told apart by address: regions of two mappings of one file (or of one
     * shared-memory object) that overlap in the file are not known to overlap, and the copy may leave
     * the destination with bytes that it wrote itself earlier in place of the source's. Delegates to
     * {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)}, which measured
     * as fast as {@code memcpy} (see {@code docs/segment-access.md}).
     *
     * @param src       the source segment
     * @param srcOffset offset in {@code src}, in bytes
     * @param dst       the destination segment
     * @param dstOffset offset in {@code dst}, in bytes
     * @param length    number of bytes
     * @throws NullPointerException      if {@code src} or {@code dst} is null
     * @throws IndexOutOfBoundsException if an offset or the length is negative or a region
     *                                   extends past the end of its segment
     * @throws IllegalArgumentException  if {@code dst} is read-only
     * @throws IllegalStateException     if a segment's arena is closed
     */
    public static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long length) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
        Class<?> c = src.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.copy(src, srcOffset, dst, dstOffset, length);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.copy(src, srcOffset, dst, dstOffset, length);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.copy(src, srcOffset, dst, dstOffset, length);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.copy(src, srcOffset, dst, dstOffset, length);
        } else {
            SegmentKernelCopies.kernelFor(c).copy(src, srcOffset, dst, dstOffset, length);
        }
    }

    /**
     * Sets {@code length} bytes from {@code offset} to {@code value}. Native regions from 1 KiB up to
     * 1 MiB are written with vector stores, the rest with {@link MemorySegment#fill(byte)} (which stores
     * a few bytes at a time at middle sizes, and is the faster on the largest regions). Every store goes through the JDK's accessors, never
     * through a native function: a store to memory backed by a file past its end (the file was
     * truncated, or a sparse file's disk is full) fails with the JDK's {@link InternalError}, whatever
     * kind the segment says it is, and does not crash the JVM.
     *
     * @param s      the segment
     * @param offset offset of the region, in bytes
     * @param length length of the region, in bytes
     * @param value  the byte to write
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if the offset or length is negative or the region extends
     *                                   past the end of the segment
     * @throws IllegalArgumentException  if the segment is read-only
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static void fill(MemorySegment s, long offset, long length, byte value) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.fill(s, offset, length, value);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.fill(s, offset, length, value);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.fill(s, offset, length, value);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.fill(s, offset, length, value);
        } else {
            SegmentKernelCopies.kernelFor(c).fill(s, offset, length, value);
        }
    }

    /**
     * Writes {@code length} bytes from an array into a segment: the fast way to write many single
     * bytes. A loop that stores one byte at a time into a {@code MemorySegment} is not vectorized
     * by the JIT and runs many times slower than the same loop on a {@code byte[]}; produce the
     * bytes into a reusable {@code byte[]} staging array (a few KiB, kept in cache) and write it
     * with this method. See {@code docs/segment-access.md} for the measurements.
     *
     * @param dst       the destination segment
     * @param dstOffset offset in {@code dst}, in bytes
     * @param src       the source array
     * @param srcIndex  first index in {@code src}
     * @param length    number of bytes
     * @throws NullPointerException      if {@code dst} or {@code src} is null
     * @throws IndexOutOfBoundsException if an offset, index or the length is negative, or a region
     *                                   extends past the end of the segment or array
     * @throws IllegalArgumentException  if {@code dst} is read-only
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static void writeBytes(MemorySegment dst, long dstOffset, byte[] src, int srcIndex, int length) {
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(src, "src");
        Class<?> c = dst.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.writeBytes(dst, dstOffset, src, srcIndex, length);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.writeBytes(dst, dstOffset, src, srcIndex, length);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.writeBytes(dst, dstOffset, src, srcIndex, length);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.writeBytes(dst, dstOffset, src, srcIndex, length);
        } else {
            SegmentKernelCopies.kernelFor(c).writeBytes(dst, dstOffset, src, srcIndex, length);
        }
    }

    /**
     * Reads {@code length} bytes from a segment into an array; the counterpart of
     * {@link #writeBytes}.
     *
     * @param src       the source segment
     * @param srcOffset offset in {@code src}, in bytes
     * @param dst       the destination array
     * @param dstIndex  first index in {@code dst}
     * @param length    number of bytes
     * @throws NullPointerException      if {@code src} or {@code dst} is null
     * @throws IndexOutOfBoundsException if an offset, index or the length is negative, or a region
     *                                   extends past the end of the segment or array
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static void readBytes(MemorySegment src, long srcOffset, byte[] dst, int dstIndex, int length) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(dst, "dst");
        Class<?> c = src.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.readBytes(src, srcOffset, dst, dstIndex, length);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.readBytes(src, srcOffset, dst, dstIndex, length);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.readBytes(src, srcOffset, dst, dstIndex, length);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.readBytes(src, srcOffset, dst, dstIndex, length);
        } else {
            SegmentKernelCopies.kernelFor(c).readBytes(src, srcOffset, dst, dstIndex, length);
        }
    }

    /**
     * Reads a big-endian long (8 bytes, most significant first) at any byte offset.
     *
     * @param s      the segment
     * @param offset offset in bytes; need not be aligned
     * @return the value
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if {@code offset} is negative or {@code offset + 8}
     *                                   exceeds the segment's size
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static long getLongBE(MemorySegment s, long offset) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            return SegmentKernelCopies.K0.getLongBE(s, offset);
        } else if (c == SegmentKernelCopies.c1()) {
            return SegmentKernelCopies.K1.getLongBE(s, offset);
        } else if (c == SegmentKernelCopies.c2()) {
            return SegmentKernelCopies.K2.getLongBE(s, offset);
        } else if (c == SegmentKernelCopies.c3()) {
            return SegmentKernelCopies.K3.getLongBE(s, offset);
        }
        return SegmentKernelCopies.kernelFor(c).getLongBE(s, offset);
    }

    /**
     * Writes a big-endian long (8 bytes, most significant first) at any byte offset; with
     * the sign bit flipped this makes signed longs sort as unsigned bytes.
     *
     * @param s      the segment
     * @param offset offset in bytes; need not be aligned
     * @param value  the value
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if {@code offset} is negative or {@code offset + 8}
     *                                   exceeds the segment's size
     * @throws IllegalArgumentException  if the segment is read-only
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static void putLongBE(MemorySegment s, long offset, long value) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.putLongBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.putLongBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.putLongBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.putLongBE(s, offset, value);
        } else {
            SegmentKernelCopies.kernelFor(c).putLongBE(s, offset, value);
        }
    }

    /**
     * Reads a big-endian int (4 bytes, most significant first) at any byte offset.
     *
     * @param s      the segment
     * @param offset offset in bytes; need not be aligned
     * @return the value
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if {@code offset} is negative or {@code offset + 4}
     *                                   exceeds the segment's size
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static int getIntBE(MemorySegment s, long offset) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            return SegmentKernelCopies.K0.getIntBE(s, offset);
        } else if (c == SegmentKernelCopies.c1()) {
            return SegmentKernelCopies.K1.getIntBE(s, offset);
        } else if (c == SegmentKernelCopies.c2()) {
            return SegmentKernelCopies.K2.getIntBE(s, offset);
        } else if (c == SegmentKernelCopies.c3()) {
            return SegmentKernelCopies.K3.getIntBE(s, offset);
        }
        return SegmentKernelCopies.kernelFor(c).getIntBE(s, offset);
    }

    /**
     * Writes a big-endian int (4 bytes, most significant first) at any byte offset.
     *
     * @param s      the segment
     * @param offset offset in bytes; need not be aligned
     * @param value  the value
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if {@code offset} is negative or {@code offset + 4}
     *                                   exceeds the segment's size
     * @throws IllegalArgumentException  if the segment is read-only
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static void putIntBE(MemorySegment s, long offset, int value) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.putIntBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.putIntBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.putIntBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.putIntBE(s, offset, value);
        } else {
            SegmentKernelCopies.kernelFor(c).putIntBE(s, offset, value);
        }
    }

    /**
     * Reads a big-endian short (2 bytes, most significant first) at any byte offset.
     *
     * @param s      the segment
     * @param offset offset in bytes; need not be aligned
     * @return the value
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if {@code offset} is negative or {@code offset + 2}
     *                                   exceeds the segment's size
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static short getShortBE(MemorySegment s, long offset) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            return SegmentKernelCopies.K0.getShortBE(s, offset);
        } else if (c == SegmentKernelCopies.c1()) {
            return SegmentKernelCopies.K1.getShortBE(s, offset);
        } else if (c == SegmentKernelCopies.c2()) {
            return SegmentKernelCopies.K2.getShortBE(s, offset);
        } else if (c == SegmentKernelCopies.c3()) {
            return SegmentKernelCopies.K3.getShortBE(s, offset);
        }
        return SegmentKernelCopies.kernelFor(c).getShortBE(s, offset);
    }

    /**
     * Writes a big-endian short (2 bytes, most significant first) at any byte offset.
     *
     * @param s      the segment
     * @param offset offset in bytes; need not be aligned
     * @param value  the value
     * @throws NullPointerException      if {@code s} is null
     * @throws IndexOutOfBoundsException if {@code offset} is negative or {@code offset + 2}
     *                                   exceeds the segment's size
     * @throws IllegalArgumentException  if the segment is read-only
     * @throws IllegalStateException     if the segment's arena is closed
     */
    public static void putShortBE(MemorySegment s, long offset, short value) {
        Objects.requireNonNull(s, "s");
        Class<?> c = s.getClass();
        if (c == SegmentKernelCopies.c0()) {
            SegmentKernelCopies.K0.putShortBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c1()) {
            SegmentKernelCopies.K1.putShortBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c2()) {
            SegmentKernelCopies.K2.putShortBE(s, offset, value);
        } else if (c == SegmentKernelCopies.c3()) {
            SegmentKernelCopies.K3.putShortBE(s, offset, value);
        } else {
            SegmentKernelCopies.kernelFor(c).putShortBE(s, offset, value);
        }
    }
}
