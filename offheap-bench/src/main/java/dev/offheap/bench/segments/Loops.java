package dev.offheap.bench.segments;

import dev.offheap.memory.Segments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * The loops of the access benchmarks, written once per container type. Each benchmark method
 * runs in its own fork, so a loop over {@code MemorySegment} sees one segment class per fork
 * (the 'exclusive' case); {@link MixedKindBenchmark} measures what happens otherwise.
 *
 * <p>Writes store {@code (byte) i}, {@code i} and {@code (long) i}: cheap values that keep the
 * store the thing measured. Reads return a sum so that JMH consumes every load.
 */
final class Loops {

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private Loops() {
    }

    // ---- byte[] ----

    static void writeBytes(byte[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = (byte) i;
        }
    }

    static long readBytes(byte[] a) {
        long sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i];
        }
        return sum;
    }

    static void writeInts(int[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
    }

    static long readInts(int[] a) {
        long sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i];
        }
        return sum;
    }

    static void writeLongs(long[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
    }

    static long readLongs(long[] a) {
        long sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i];
        }
        return sum;
    }

    static void writeChunks(byte[] a, byte[] chunk) {
        for (int off = 0; off < a.length; off += chunk.length) {
            System.arraycopy(chunk, 0, a, off, chunk.length);
        }
    }

    static long readChunks(byte[] a, byte[] chunk) {
        long sum = 0;
        for (int off = 0; off < a.length; off += chunk.length) {
            System.arraycopy(a, off, chunk, 0, chunk.length);
            sum += chunk[off & 1023];
        }
        return sum;
    }

    // ---- ByteBuffer (absolute access) ----

    static void writeBytes(ByteBuffer b) {
        int n = b.capacity();
        for (int i = 0; i < n; i++) {
            b.put(i, (byte) i);
        }
    }

    static long readBytes(ByteBuffer b) {
        int n = b.capacity();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += b.get(i);
        }
        return sum;
    }

    static void writeInts(ByteBuffer b) {
        int n = b.capacity() >>> 2;
        for (int i = 0; i < n; i++) {
            b.putInt(i << 2, i);
        }
    }

    static long readInts(ByteBuffer b) {
        int n = b.capacity() >>> 2;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += b.getInt(i << 2);
        }
        return sum;
    }

    static void writeLongs(ByteBuffer b) {
        int n = b.capacity() >>> 3;
        for (int i = 0; i < n; i++) {
            b.putLong(i << 3, i);
        }
    }

    static long readLongs(ByteBuffer b) {
        int n = b.capacity() >>> 3;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += b.getLong(i << 3);
        }
        return sum;
    }

    static void writeChunks(ByteBuffer b, byte[] chunk) {
        int n = b.capacity();
        for (int off = 0; off < n; off += chunk.length) {
            b.put(off, chunk, 0, chunk.length);
        }
    }

    static long readChunks(ByteBuffer b, byte[] chunk) {
        int n = b.capacity();
        long sum = 0;
        for (int off = 0; off < n; off += chunk.length) {
            b.get(off, chunk, 0, chunk.length);
            sum += chunk[off & 1023];
        }
        return sum;
    }

    // ---- MemorySegment, int induction variable (the natural way to write the loop) ----

    static void writeBytes(MemorySegment s) {
        int n = (int) s.byteSize();
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
    }

    static long readBytes(MemorySegment s) {
        int n = (int) s.byteSize();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += s.get(ValueLayout.JAVA_BYTE, i);
        }
        return sum;
    }

    static void writeInts(MemorySegment s) {
        int n = (int) (s.byteSize() >>> 2);
        for (int i = 0; i < n; i++) {
            s.setAtIndex(INT, i, i);
        }
    }

    static long readInts(MemorySegment s) {
        int n = (int) (s.byteSize() >>> 2);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += s.getAtIndex(INT, i);
        }
        return sum;
    }

    static void writeLongs(MemorySegment s) {
        int n = (int) (s.byteSize() >>> 3);
        for (int i = 0; i < n; i++) {
            s.setAtIndex(LONG, i, i);
        }
    }

    static long readLongs(MemorySegment s) {
        int n = (int) (s.byteSize() >>> 3);
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += s.getAtIndex(LONG, i);
        }
        return sum;
    }

    static void writeChunks(MemorySegment s, byte[] chunk) {
        long n = s.byteSize();
        for (long off = 0; off < n; off += chunk.length) {
            MemorySegment.copy(chunk, 0, s, ValueLayout.JAVA_BYTE, off, chunk.length);
        }
    }

    static long readChunks(MemorySegment s, byte[] chunk) {
        long n = s.byteSize();
        long sum = 0;
        for (long off = 0; off < n; off += chunk.length) {
            MemorySegment.copy(s, ValueLayout.JAVA_BYTE, off, chunk, 0, chunk.length);
            sum += chunk[(int) off & 1023];
        }
        return sum;
    }

    // ---- the library's documented ways (docs/segment-access.md) ----

    /** Single bytes: produce them into a small staging array, then write it in bulk. */
    static void writeBytesStaged(MemorySegment s, byte[] staging) {
        long n = s.byteSize();
        for (long base = 0; base < n; base += staging.length) {
            int len = (int) Math.min(staging.length, n - base);
            int b = (int) base;
            for (int i = 0; i < len; i++) {
                staging[i] = (byte) (b + i);
            }
            Segments.writeBytes(s, base, staging, 0, len);
        }
    }

    /** Single bytes: read a staging array in bulk, then loop over the array. */
    static long readBytesStaged(MemorySegment s, byte[] staging) {
        long n = s.byteSize();
        long sum = 0;
        for (long base = 0; base < n; base += staging.length) {
            int len = (int) Math.min(staging.length, n - base);
            Segments.readBytes(s, base, staging, 0, len);
            for (int i = 0; i < len; i++) {
                sum += staging[i];
            }
        }
        return sum;
    }

    /** Chunks: {@link Segments#writeBytes}. */
    static void writeChunksLibrary(MemorySegment s, byte[] chunk) {
        long n = s.byteSize();
        for (long off = 0; off < n; off += chunk.length) {
            Segments.writeBytes(s, off, chunk, 0, chunk.length);
        }
    }

    /** Chunks: {@link Segments#readBytes}. */
    static long readChunksLibrary(MemorySegment s, byte[] chunk) {
        long n = s.byteSize();
        long sum = 0;
        for (long off = 0; off < n; off += chunk.length) {
            Segments.readBytes(s, off, chunk, 0, chunk.length);
            sum += chunk[(int) off & 1023];
        }
        return sum;
    }

    // ---- the library's documented way for element-at-a-time loops: typed buffer views of the
    // segment. C2 vectorizes index-computed stores through them (it does not through the segment's
    // own accessors), and a view keeps the segment's scope, so it throws once the page is released.

    static ByteBuffer byteView(MemorySegment s) {
        return s.asByteBuffer().order(ByteOrder.nativeOrder());
    }

    static void writeInts(IntBuffer b) {
        int n = b.capacity();
        for (int i = 0; i < n; i++) {
            b.put(i, i);
        }
    }

    static long readInts(IntBuffer b) {
        int n = b.capacity();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += b.get(i);
        }
        return sum;
    }

    static void writeLongs(LongBuffer b) {
        int n = b.capacity();
        for (int i = 0; i < n; i++) {
            b.put(i, i);
        }
    }

    static long readLongs(LongBuffer b) {
        int n = b.capacity();
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += b.get(i);
        }
        return sum;
    }
}
