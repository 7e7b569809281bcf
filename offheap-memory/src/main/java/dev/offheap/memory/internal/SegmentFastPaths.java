package dev.offheap.memory.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Straight-line paths for the short operations of {@code Segments} (single big-endian values,
 * and compare, swap and hash of 8 to 16 bytes), written so that they stay inlined in the
 * caller's loop when a program mixes heap, native and mapped segments.
 *
 * <p>Why not the kernel copies of {@link SegmentKernelCopies}: a dispatcher that chooses between
 * three copies inlines all three once all are hot. C2 compiles such a dispatcher on its own, the
 * code is larger than {@code InlineSmallCode} (2,500 bytes), and from then on every caller calls
 * it out of line ({@code -XX:+PrintInlining}: "already compiled into a big method"). That call
 * costs as much as a 16-byte swap. Here each access is either
 * <ul>
 *   <li>a writable heap segment over a {@code byte[]}: the array itself, read with
 *       {@link MethodHandles#byteArrayViewVarHandle} at {@code address() + offset}, so that no
 *       segment accessor (and no segment type profile) is involved; heap segments cannot be
 *       closed, so there is no liveness to check; or</li>
 *   <li>a native or mapped segment: the segment accessor, at a call site that sees only these two
 *       classes (bimorphic, which C2 inlines); the JDK keeps checking bounds, liveness, owner
 *       thread and read-only there.</li>
 * </ul>
 * Every other segment (read-only heap, heap over {@code long[]} and other arrays, unknown
 * classes) is not {@linkplain #fast fast} and goes to the kernel copies, so that it cannot
 * pollute the profiles of these call sites.
 *
 * <p>Callers first obtain {@link #array} and check {@link #fast}; then they pass the segment
 * with its array ({@code null} for native) to the access methods, after {@link #base} has checked
 * the whole region and turned the segment offset into the position the accessors take.
 */
public final class SegmentFastPaths {

    /** The shortest region compare, swap and hash take here. */
    public static final long SHORT_MIN = Long.BYTES;
    /** The longest region compare, swap and hash take here. */
    public static final long SHORT_MAX = 2 * Long.BYTES;

    private static final Class<?> HEAP_BYTES = MemorySegment.ofArray(new byte[0]).getClass();
    private static final Class<?> NATIVE = MemorySegment.NULL.getClass();

    /**
     * A second native segment class (mapped segments), learned from the first such segment seen:
     * the JDK gives no way to name it without mapping a file. Plain field: a thread that does not
     * see it yet only takes the kernel path.
     */
    private static Class<?> otherNative;

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private static final ValueLayout.OfLong SEG_LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong SEG_LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt SEG_INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SEG_SHORT_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SegmentFastPaths() {
    }

    /** The {@code byte[]} behind a writable heap segment of bytes, or {@code null} for any other segment. */
    public static byte[] array(MemorySegment s) {
        if (s.getClass() != HEAP_BYTES) {
            return null;
        }
        return (byte[]) s.heapBase().orElse(null);
    }

    /** Whether {@code s}, whose {@link #array} is {@code arr}, takes the paths of this class. */
    public static boolean fast(MemorySegment s, byte[] arr) {
        if (arr != null) {
            return true;
        }
        Class<?> c = s.getClass();
        return c == NATIVE || c == otherNative;
    }

    /** The kernel copy for a segment that is not {@link #fast}; learns the mapped segment class. */
    public static SegmentKernel kernel(MemorySegment s) {
        Class<?> c = s.getClass();
        if (otherNative == null && c != NATIVE && s.isNative()) {
            otherNative = c;
        }
        return SegmentKernelCopies.kernel(c);
    }

    /**
     * Checks that {@code [offset, offset + length)} lies in {@code s} and returns the position of
     * {@code offset} for the access methods: the array index for heap, the offset for native.
     */
    public static long base(MemorySegment s, byte[] arr, long offset, long length) {
        if (arr != null) {
            Objects.checkFromIndexSize(offset, length, s.byteSize());
            return s.address() + offset;
        }
        Objects.checkFromIndexSize(offset, length, s.byteSize());
        return offset;
    }

    /** Big-endian long at position {@code p} (see {@link #base}). */
    public static long getLongBE(MemorySegment s, byte[] arr, long p) {
        return arr != null ? (long) LONG_BE.get(arr, (int) p) : s.get(SEG_LONG_BE, p);
    }

    /** Writes a big-endian long at position {@code p}. */
    public static void putLongBE(MemorySegment s, byte[] arr, long p, long v) {
        if (arr != null) {
            LONG_BE.set(arr, (int) p, v);
        } else {
            s.set(SEG_LONG_BE, p, v);
        }
    }

    /** Little-endian long at position {@code p}. */
    public static long getLongLE(MemorySegment s, byte[] arr, long p) {
        return arr != null ? (long) LONG_LE.get(arr, (int) p) : s.get(SEG_LONG_LE, p);
    }

    /** Writes a little-endian long at position {@code p}. */
    public static void putLongLE(MemorySegment s, byte[] arr, long p, long v) {
        if (arr != null) {
            LONG_LE.set(arr, (int) p, v);
        } else {
            s.set(SEG_LONG_LE, p, v);
        }
    }

    /** Big-endian int at position {@code p}. */
    public static int getIntBE(MemorySegment s, byte[] arr, long p) {
        return arr != null ? (int) INT_BE.get(arr, (int) p) : s.get(SEG_INT_BE, p);
    }

    /** Writes a big-endian int at position {@code p}. */
    public static void putIntBE(MemorySegment s, byte[] arr, long p, int v) {
        if (arr != null) {
            INT_BE.set(arr, (int) p, v);
        } else {
            s.set(SEG_INT_BE, p, v);
        }
    }

    /** Big-endian short at position {@code p}. */
    public static short getShortBE(MemorySegment s, byte[] arr, long p) {
        return arr != null ? (short) SHORT_BE.get(arr, (int) p) : s.get(SEG_SHORT_BE, p);
    }

    /** Writes a big-endian short at position {@code p}. */
    public static void putShortBE(MemorySegment s, byte[] arr, long p, short v) {
        if (arr != null) {
            SHORT_BE.set(arr, (int) p, v);
        } else {
            s.set(SEG_SHORT_BE, p, v);
        }
    }

    /** Whether a region length takes the short paths. */
    public static boolean isShort(long length) {
        return length >= SHORT_MIN && length <= SHORT_MAX;
    }

    /**
     * Unsigned comparison of two regions of {@link #SHORT_MIN}..{@link #SHORT_MAX} bytes: the
     * first and the last 8 bytes of each as big-endian longs (they overlap below 16 bytes; the
     * overlap is equal when the first longs are). Both regions are read whole before the result,
     * so that a region out of bounds always throws.
     */
    public static int compareShort(MemorySegment a, byte[] xa, long aOffset, MemorySegment b, byte[] xb, long bOffset,
            long length) {
        long pa = base(a, xa, aOffset, length);
        long pb = base(b, xb, bOffset, length);
        long tail = length - Long.BYTES;
        long x0 = getLongBE(a, xa, pa);
        long y0 = getLongBE(b, xb, pb);
        long x1 = getLongBE(a, xa, pa + tail);
        long y1 = getLongBE(b, xb, pb + tail);
        return x0 != y0 ? Long.compareUnsigned(x0, y0) : Long.compareUnsigned(x1, y1);
    }

    /** Swaps two disjoint regions of {@link #SHORT_MIN}..{@link #SHORT_MAX} bytes as two longs each. */
    public static void swapShort(MemorySegment a, byte[] xa, long aOffset, MemorySegment b, byte[] xb, long bOffset,
            long length) {
        long pa = base(a, xa, aOffset, length);
        long pb = base(b, xb, bOffset, length);
        long overlapA;
        long overlapB;
        if (a == b || (xa != null && xa == xb)) {
            overlapA = pa;
            overlapB = pb;
        } else if (xa == null && xb == null) {
            overlapA = a.address() + aOffset;
            overlapB = b.address() + bOffset;
        } else {
            overlapA = 0;
            overlapB = length;
        }
        if (overlapA < overlapB + length && overlapB < overlapA + length) {
            throw overlap(aOffset, bOffset, length);
        }
        long tail = length - Long.BYTES;
        long a0 = getLongLE(a, xa, pa);
        long a1 = getLongLE(a, xa, pa + tail);
        long b0 = getLongLE(b, xb, pb);
        long b1 = getLongLE(b, xb, pb + tail);
        putLongLE(a, xa, pa, b0);
        putLongLE(a, xa, pa + tail, b1);
        putLongLE(b, xb, pb, a0);
        putLongLE(b, xb, pb + tail, a1);
    }

    /** The error of a swap of overlapping regions. */
    public static IllegalArgumentException overlap(long aOffset, long bOffset, long length) {
        return new IllegalArgumentException("swap regions overlap: [" + aOffset + ", " + (aOffset + length)
                + ") and [" + bOffset + ", " + (bOffset + length) + ") of the same memory");
    }

    /**
     * {@link SegmentHash} of a region of {@link #SHORT_MIN}..{@link #SHORT_MAX} bytes from two
     * little-endian longs, the first and the last 8 bytes: the same value as the kernel's loop,
     * whose tail words are cut out of the last long here.
     */
    public static long hashShort(MemorySegment s, byte[] arr, long offset, long length, long seed) {
        long p = base(s, arr, offset, length);
        long w0 = getLongLE(s, arr, p);
        long w1 = getLongLE(s, arr, p + length - Long.BYTES);
        long h = SegmentHash.word(SegmentHash.start(length, seed), w0);
        long rem = length - Long.BYTES;
        if (rem == Long.BYTES) {
            h = SegmentHash.word(h, w1);
        } else if (rem > 0) {
            // byte k of the tail (k = 0..rem-1, position 8 + k) is byte 8 - rem + k of w1
            long tail = w1 >>> ((Long.BYTES - rem) * Byte.SIZE);
            long t;
            if (rem >= Integer.BYTES) {
                t = (tail & 0xFFFF_FFFFL) | (w1 >>> 32) << 32;
            } else {
                t = SegmentHash.tailBytes(tail & 0xFF, (tail >>> ((rem >>> 1) * Byte.SIZE)) & 0xFF, w1 >>> 56, rem);
            }
            h = SegmentHash.word(h, t);
        }
        return SegmentHash.finish(h);
    }
}
