package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded properties of every {@link Segments} helper (and so of the kernel copies behind them)
 * against plain byte-by-byte references over {@code byte[]} copies: random and edge lengths
 * (0..a few KiB, and a few large ones), unaligned offsets, regions that end at the very end of
 * their segment, segments of every kind (native, heap over arrays of every primitive type but
 * {@code boolean}, mapped, slices, read-only views), overlapping regions of
 * one segment, and the documented exceptions for bad arguments with nothing written.
 * Every check compares the whole segment, so a write outside the region fails it too.
 */
class SegmentKernelsPropertyTest {

    private static final int[] EDGE_LENGTHS = {
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
        1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};
    private static final int ROUNDS = 250;

    enum Kind {
        NATIVE, HEAP_BYTES, HEAP_SHORTS, HEAP_CHARS, HEAP_INTS, HEAP_FLOATS, HEAP_LONGS, HEAP_DOUBLES, MAPPED,
        NATIVE_SLICE, HEAP_SLICE, MAPPED_SLICE }

    private static Arena arena;
    private static Path dir;
    private static int files;

    @BeforeAll
    static void open() throws IOException {
        arena = Arena.ofShared();
        dir = Files.createTempDirectory("segment-kernels-property");
    }

    @AfterAll
    static void close() throws IOException {
        arena.close();
        try (var paths = Files.list(dir)) {
            for (Path p : paths.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /** A zeroed, writable segment of exactly {@code size} bytes of the given kind. */
    static MemorySegment segment(Kind kind, int size, Arena in) {
        return switch (kind) {
            case NATIVE -> in.allocate(Math.max(size, 0), 1);
            case HEAP_BYTES -> MemorySegment.ofArray(new byte[size]);
            case HEAP_SHORTS -> MemorySegment.ofArray(new short[(size + 1) / 2]).asSlice(0, size);
            case HEAP_CHARS -> MemorySegment.ofArray(new char[(size + 1) / 2]).asSlice(0, size);
            case HEAP_INTS -> MemorySegment.ofArray(new int[(size + 3) / 4]).asSlice(0, size);
            case HEAP_FLOATS -> MemorySegment.ofArray(new float[(size + 3) / 4]).asSlice(0, size);
            case HEAP_LONGS -> MemorySegment.ofArray(new long[(size + 7) / 8]).asSlice(0, size);
            case HEAP_DOUBLES -> MemorySegment.ofArray(new double[(size + 7) / 8]).asSlice(0, size);
            case MAPPED -> mapped(size, in);
            // slices starting at odd addresses of larger segments
            case NATIVE_SLICE -> in.allocate(size + 24L, 8).asSlice(5, size);
            case HEAP_SLICE -> MemorySegment.ofArray(new long[(size + 24) / 8]).asSlice(3, size);
            case MAPPED_SLICE -> mapped(size + 16, in).asSlice(7, size);
        };
    }

    private static MemorySegment mapped(int size, Arena in) {
        try (FileChannel ch = FileChannel.open(dir.resolve("m" + (files++)), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, size, in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static MemorySegment randomSegment(Kind kind, int size, Random rnd) {
        MemorySegment s = segment(kind, size, arena);
        byte[] b = new byte[size];
        rnd.nextBytes(b);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, size);
        return s;
    }

    static Kind kind(Random rnd) {
        return Kind.values()[rnd.nextInt(Kind.values().length)];
    }

    static int length(Random rnd) {
        return rnd.nextInt(3) == 0 ? rnd.nextInt(5000) : EDGE_LENGTHS[rnd.nextInt(EDGE_LENGTHS.length)];
    }

    /** An offset for a region of {@code n} bytes in {@code size}: anywhere, or at the very start or end. */
    static int offset(Random rnd, int size, int n) {
        return switch (rnd.nextInt(4)) {
            case 0 -> 0;
            case 1 -> size - n;
            default -> rnd.nextInt(size - n + 1);
        };
    }

    static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    // ---- references ----

    static int refCompare(byte[] a, int ao, byte[] b, int bo, int n) {
        for (int i = 0; i < n; i++) {
            int x = a[ao + i] & 0xFF;
            int y = b[bo + i] & 0xFF;
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }

    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xC2B2AE3D27D4EB4FL;
    private static final long M4 = 0xFF51AFD7ED558CCDL;
    private static final long M6 = 0x9FB21C651E98DF25L;

    static long le(byte[] b, int at, int width) {
        long v = 0;
        for (int k = width - 1; k >= 0; k--) {
            v = v << 8 | (b[at + k] & 0xFFL);
        }
        return v;
    }

    static long round(long acc, long input) {
        return Long.rotateLeft(acc + input * M2, 31) * M1;
    }

    /** The construction hash64's javadoc describes, byte by byte over an array. */
    static long refHash(byte[] b, int off, int n, long seed) {
        long h = seed + n * M1;
        int i = 0;
        if (n >= 32) {
            long[] v = {h + M1 + M2, h + M2, h, h - M1};
            for (; i + 32 <= n; i += 32) {
                for (int lane = 0; lane < 4; lane++) {
                    v[lane] = round(v[lane], le(b, off + i + 8 * lane, 8));
                }
            }
            h = Long.rotateLeft(v[0], 1) + Long.rotateLeft(v[1], 7) + Long.rotateLeft(v[2], 12)
                    + Long.rotateLeft(v[3], 18);
            for (long lane : v) {
                h = (h ^ round(0, lane)) * M1 + M4;
            }
        }
        for (; i + 8 <= n; i += 8) {
            h = Long.rotateLeft(h ^ round(0, le(b, off + i, 8)), 27) * M1 + M4;
        }
        int rem = n - i;
        if (rem > 0) {
            long t = rem >= 4
                    ? le(b, off + i, 4) | le(b, off + n - 4, 4) << 32
                    : (b[off + i] & 0xFFL) | (b[off + i + rem / 2] & 0xFFL) << 8 | (b[off + n - 1] & 0xFFL) << 16
                            | (long) rem << 24;
            h = Long.rotateLeft(h ^ round(0, t), 27) * M1 + M4;
        }
        h ^= Long.rotateRight(h, 49) ^ Long.rotateRight(h, 24);
        h *= M6;
        h ^= h >>> 28;
        h *= M6;
        return h ^ (h >>> 28);
    }

    /**
     * A region of {@code n} bytes in each of two random segments (random kinds, sizes n to n + 19, random
     * offsets).
     */
    private record TwoRegions(MemorySegment a, int aSize, int ao, MemorySegment b, int bo) {
        static TwoRegions random(Random rnd, int n) {
            int aSize = n + rnd.nextInt(20);
            int bSize = n + rnd.nextInt(20);
            MemorySegment a = randomSegment(kind(rnd), aSize, rnd);
            MemorySegment b = randomSegment(kind(rnd), bSize, rnd);
            int ao = offset(rnd, aSize, n);
            int bo = offset(rnd, bSize, n);
            return new TwoRegions(a, aSize, ao, b, bo);
        }
    }

    // ---- compareUnsigned ----

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void compareUnsignedMatchesTheReference(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = length(rnd);
            TwoRegions regions = TwoRegions.random(rnd, n);
            int aSize = regions.aSize();
            MemorySegment a = regions.a();
            MemorySegment b = regions.b();
            int ao = regions.ao();
            int bo = regions.bo();
            if (rnd.nextInt(4) != 0) {
                // mostly equal regions with one byte changed, so the difference falls anywhere
                MemorySegment.copy(a, ao, b, bo, n);
                if (n > 0 && rnd.nextBoolean()) {
                    int at = rnd.nextBoolean() ? rnd.nextInt(n) : n - 1 - rnd.nextInt(Math.min(n, 9));
                    int pick = rnd.nextInt(3);
                    byte v = (byte) (pick == 0 ? 0x7F : pick == 1 ? 0x80 : rnd.nextInt());
                    b.set(ValueLayout.JAVA_BYTE, bo + at, v);
                }
            }
            byte[] ab = bytes(a);
            byte[] bb = bytes(b);
            int expected = refCompare(ab, ao, bb, bo, n);
            MemorySegment ra = rnd.nextBoolean() ? a.asReadOnly() : a;
            MemorySegment rb = rnd.nextBoolean() ? b.asReadOnly() : b;
            assertThat(Integer.signum(Segments.compareUnsigned(ra, ao, rb, bo, n)))
                    .as("seed %d round %d n=%d ao=%d bo=%d", seed, r, n, ao, bo).isEqualTo(expected);
            assertThat(Integer.signum(Segments.compareUnsigned(rb, bo, ra, ao, n))).isEqualTo(-expected);
            // two (overlapping) regions of one segment
            int m = Math.min(n, aSize / 2);
            int o2 = offset(rnd, aSize, m);
            assertThat(Integer.signum(Segments.compareUnsigned(a, ao, a, o2, Math.min(m, aSize - ao))))
                    .isEqualTo(refCompare(ab, ao, ab, o2, Math.min(m, aSize - ao)));
            assertThat(bytes(a)).isEqualTo(ab);
            assertThat(bytes(b)).isEqualTo(bb);
        }
    }

    // ---- swap ----

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void swapMatchesTheReference(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = length(rnd);
            TwoRegions regions = TwoRegions.random(rnd, n);
            MemorySegment a = regions.a();
            MemorySegment b = regions.b();
            int ao = regions.ao();
            int bo = regions.bo();
            byte[] ea = bytes(a);
            byte[] eb = bytes(b);
            byte[] oldA = ea.clone();
            System.arraycopy(eb, bo, ea, ao, n);
            System.arraycopy(oldA, ao, eb, bo, n);
            Segments.swap(a, ao, b, bo, n);
            assertThat(bytes(a)).as("seed %d round %d n=%d ao=%d bo=%d", seed, r, n, ao, bo).isEqualTo(ea);
            assertThat(bytes(b)).isEqualTo(eb);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23})
    void swapWithinOneSegmentMatchesTheReferenceOrRejectsPartialOverlap(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = 1 + length(rnd);
            int size = 2 * n + rnd.nextInt(40);
            MemorySegment s = randomSegment(kind(rnd), size, rnd);
            int ao = rnd.nextInt(size - n + 1);
            int bo = rnd.nextInt(size - n + 1);
            // the second region through the same segment or another view of the same memory
            long shift = rnd.nextInt(Math.min(ao, bo) + 1);
            MemorySegment other = switch (rnd.nextInt(3)) {
                case 0 -> s;
                case 1 -> s.asSlice(0);
                default -> s.asSlice(shift);
            };
            long otherOffset = other.byteSize() == size ? bo : bo - shift;
            byte[] before = bytes(s);
            // the same region is no overlap: swapping it with itself changes nothing
            boolean overlap = ao != bo && ao < bo + n && bo < ao + n;
            if (overlap) {
                assertThatThrownBy(() -> Segments.swap(s, ao, other, otherOffset, n))
                        .isInstanceOf(IllegalArgumentException.class);
                assertThat(bytes(s)).isEqualTo(before);
            } else {
                byte[] e = before.clone();
                System.arraycopy(before, bo, e, ao, n);
                System.arraycopy(before, ao, e, bo, n);
                Segments.swap(s, ao, other, otherOffset, n);
                assertThat(bytes(s)).as("seed %d round %d n=%d ao=%d bo=%d", seed, r, n, ao, bo).isEqualTo(e);
            }
        }
    }

    @Test
    void largeSwapsMatchTheReference() {
        Random rnd = new Random(31);
        for (int n : new int[] {100_003, 1 << 20}) {
            Kind ka = kind(rnd);
            Kind kb = kind(rnd);
            MemorySegment a = randomSegment(ka, n + 9, rnd);
            MemorySegment b = randomSegment(kb, n + 3, rnd);
            byte[] ea = bytes(a);
            byte[] eb = bytes(b);
            byte[] oldA = ea.clone();
            System.arraycopy(eb, 3, ea, 9, n);
            System.arraycopy(oldA, 9, eb, 3, n);
            Segments.swap(a, 9, b, 3, n);
            assertThat(Arrays.equals(bytes(a), ea)).as("%s/%s n=%d", ka, kb, n).isTrue();
            assertThat(Arrays.equals(bytes(b), eb)).as("%s/%s n=%d", ka, kb, n).isTrue();
        }
    }

    @Test
    void largeComparesAndHashesMatchTheReference() {
        Random rnd = new Random(32);
        for (int n : new int[] {100_003, 1 << 20}) {
            Kind ka = kind(rnd);
            Kind kb = kind(rnd);
            MemorySegment a = randomSegment(ka, n + 5, rnd);
            MemorySegment b = segment(kb, n + 2, arena);
            MemorySegment.copy(a, 5, b, 2, n);
            int at = rnd.nextInt(n);
            b.set(ValueLayout.JAVA_BYTE, 2 + at, (byte) (b.get(ValueLayout.JAVA_BYTE, 2 + at) ^ 0x80));
            byte[] ab = bytes(a);
            byte[] bb = bytes(b);
            assertThat(Integer.signum(Segments.compareUnsigned(a, 5, b, 2, n))).as("%s/%s n=%d", ka, kb, n)
                    .isEqualTo(refCompare(ab, 5, bb, 2, n));
            assertThat(Segments.compareUnsigned(a, 5, b, 2, at)).isZero();
            assertThat(Segments.hash64(a, 5, n, 7)).isEqualTo(refHash(ab, 5, n, 7));
            assertThat(Segments.hash64(b, 2, n, 7)).isEqualTo(refHash(bb, 2, n, 7));
        }
    }

    // ---- hash64 ----

    @ParameterizedTest
    @ValueSource(longs = {41, 42, 43})
    void hashMatchesTheReferenceOnEveryKindAndAlignment(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = length(rnd);
            byte[] data = new byte[n];
            rnd.nextBytes(data);
            long hashSeed = rnd.nextInt(4) == 0 ? 0 : rnd.nextLong();
            long expected = refHash(data, 0, n, hashSeed);
            for (Kind k : Kind.values()) {
                int size = n + rnd.nextInt(17);
                MemorySegment s = randomSegment(k, size, rnd);
                int off = offset(rnd, size, n);
                MemorySegment.copy(data, 0, s, ValueLayout.JAVA_BYTE, off, n);
                byte[] before = bytes(s);
                MemorySegment view = rnd.nextBoolean() ? s.asReadOnly() : s;
                assertThat(Segments.hash64(view, off, n, hashSeed))
                        .as("seed %d round %d kind %s n=%d off=%d", seed, r, k, n, off).isEqualTo(expected);
                if (hashSeed == 0) {
                    assertThat(Segments.hash64(view, off, n)).isEqualTo(expected);
                }
                assertThat(bytes(s)).isEqualTo(before);
            }
        }
    }

    // ---- big-endian access ----

    @ParameterizedTest
    @ValueSource(longs = {51, 52})
    void bigEndianAccessMatchesTheReference(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            Kind k = kind(rnd);
            int size = 8 + rnd.nextInt(40);
            MemorySegment s = randomSegment(k, size, rnd);
            long v = rnd.nextLong();
            int width = new int[] {2, 4, 8}[rnd.nextInt(3)];
            int off = offset(rnd, size, width);
            byte[] e = bytes(s);
            for (int i = 0; i < width; i++) {
                e[off + i] = (byte) (v >>> (8 * (width - 1 - i)));
            }
            String what = "seed " + seed + " round " + r + " kind " + k + " width " + width + " off " + off;
            switch (width) {
                case 2 -> {
                    Segments.putShortBE(s, off, (short) v);
                    assertThat(Segments.getShortBE(s.asReadOnly(), off)).as(what).isEqualTo((short) v);
                }
                case 4 -> {
                    Segments.putIntBE(s, off, (int) v);
                    assertThat(Segments.getIntBE(s.asReadOnly(), off)).as(what).isEqualTo((int) v);
                }
                default -> {
                    Segments.putLongBE(s, off, v);
                    assertThat(Segments.getLongBE(s.asReadOnly(), off)).as(what).isEqualTo(v);
                }
            }
            assertThat(bytes(s)).as(what).isEqualTo(e);
        }
    }

    // ---- fill, copy, writeBytes, readBytes ----

    @ParameterizedTest
    @ValueSource(longs = {61, 62, 63})
    void fillMatchesTheReference(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = length(rnd);
            int size = n + rnd.nextInt(20);
            MemorySegment s = randomSegment(kind(rnd), size, rnd);
            int off = offset(rnd, size, n);
            byte v = (byte) rnd.nextInt();
            byte[] e = bytes(s);
            Arrays.fill(e, off, off + n, v);
            Segments.fill(s, off, n, v);
            assertThat(bytes(s)).as("seed %d round %d n=%d off=%d", seed, r, n, off).isEqualTo(e);
        }
    }

    @Test
    void largeFillsMatchTheReference() {
        Random rnd = new Random(64);
        for (Kind k : Kind.values()) {
            int n = (1 << 20) + rnd.nextInt(4096);
            int size = n + 11;
            MemorySegment s = randomSegment(k, size, rnd);
            byte v = (byte) rnd.nextInt();
            byte[] e = bytes(s);
            Arrays.fill(e, 5, 5 + n, v);
            Segments.fill(s, 5, n, v);
            assertThat(Arrays.equals(bytes(s), e)).as("kind %s n=%d", k, n).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {71, 72, 73})
    void copyMatchesTheReferenceIncludingOverlap(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = length(rnd);
            if (rnd.nextBoolean()) {
                TwoRegions regions = TwoRegions.random(rnd, n);
                MemorySegment a = regions.a();
                MemorySegment b = regions.b();
                int ao = regions.ao();
                int bo = regions.bo();
                byte[] ab = bytes(a);
                byte[] e = bytes(b);
                System.arraycopy(ab, ao, e, bo, n);
                Segments.copy(rnd.nextBoolean() ? a.asReadOnly() : a, ao, b, bo, n);
                assertThat(bytes(b)).as("seed %d round %d n=%d", seed, r, n).isEqualTo(e);
                assertThat(bytes(a)).isEqualTo(ab);
            } else {
                // overlapping regions of one segment: memmove (System.arraycopy is the reference)
                int size = n + rnd.nextInt(40);
                MemorySegment s = randomSegment(kind(rnd), size, rnd);
                int from = offset(rnd, size, n);
                int to = offset(rnd, size, n);
                byte[] e = bytes(s);
                System.arraycopy(e, from, e, to, n);
                Segments.copy(s, from, s, to, n);
                assertThat(bytes(s)).as("seed %d round %d n=%d from=%d to=%d", seed, r, n, from, to).isEqualTo(e);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {81, 82})
    void writeAndReadBytesMatchTheReference(long seed) {
        Random rnd = new Random(seed);
        for (int r = 0; r < ROUNDS; r++) {
            int n = length(rnd);
            int size = n + rnd.nextInt(20);
            MemorySegment s = randomSegment(kind(rnd), size, rnd);
            int off = offset(rnd, size, n);
            byte[] src = new byte[n + rnd.nextInt(9)];
            rnd.nextBytes(src);
            int si = rnd.nextInt(src.length - n + 1);
            byte[] e = bytes(s);
            System.arraycopy(src, si, e, off, n);
            Segments.writeBytes(s, off, src, si, n);
            assertThat(bytes(s)).as("seed %d round %d n=%d", seed, r, n).isEqualTo(e);

            byte[] dst = new byte[n + 7];
            rnd.nextBytes(dst);
            int di = rnd.nextInt(8);
            byte[] expected = dst.clone();
            System.arraycopy(e, off, expected, di, n);
            Segments.readBytes(rnd.nextBoolean() ? s.asReadOnly() : s, off, dst, di, n);
            assertThat(dst).isEqualTo(expected);
        }
    }

    // ---- errors: the documented exception, nothing written ----

    /** Offsets and lengths outside a segment of {@code size} bytes, with overflowing sums. */
    static List<long[]> badRanges(int size) {
        List<long[]> bad = new ArrayList<>();
        bad.add(new long[] {-1, 1});
        bad.add(new long[] {-1, 0});
        bad.add(new long[] {0, -1});
        bad.add(new long[] {3, -2});
        bad.add(new long[] {size - 3, 4});
        bad.add(new long[] {size + 1, 0});
        bad.add(new long[] {0, size + 1});
        bad.add(new long[] {Long.MAX_VALUE, 1});
        bad.add(new long[] {1, Long.MAX_VALUE});
        bad.add(new long[] {Long.MIN_VALUE, 8});
        bad.add(new long[] {8, Long.MIN_VALUE});
        return bad;
    }

    /**
     * Every helper given a region outside its segment throws {@link IndexOutOfBoundsException}
     * whose message gives the offset, the length and the size (as the class javadoc promises),
     * and writes nothing.
     */
    @Test
    void regionsOutsideTheSegmentThrowIndexOutOfBoundsAndWriteNothing() {
        Random rnd = new Random(91);
        int size = 40;
        for (Kind k : Kind.values()) {
            MemorySegment s = randomSegment(k, size, rnd);
            MemorySegment t = randomSegment(k, size, rnd);
            byte[] sb = bytes(s);
            byte[] tb = bytes(t);
            for (long[] bad : badRanges(size)) {
                long o = bad[0];
                long n = bad[1];
                String what = k + " offset " + o + " length " + n;
                List<ThrowingConsumer<Void>> calls = List.of(
                        v -> Segments.compareUnsigned(s, o, t, 0, n),
                        v -> Segments.compareUnsigned(t, 0, s, o, n),
                        v -> Segments.swap(s, o, t, 0, n),
                        v -> Segments.swap(t, 0, s, o, n),
                        v -> Segments.hash64(s, o, n),
                        v -> Segments.hash64(s, o, n, 5),
                        v -> Segments.copy(s, o, t, 0, n),
                        v -> Segments.copy(t, 0, s, o, n),
                        v -> Segments.fill(s, o, n, (byte) 1));
                for (int c = 0; c < calls.size(); c++) {
                    ThrowingConsumer<Void> call = calls.get(c);
                    // where the length alone is out of range, the region checked first (t's at offset 0 in
                    // calls 1, 3 and 7) is the one named
                    long named = (n < 0 || n > size) && (c == 1 || c == 3 || c == 7) ? 0 : o;
                    assertThatThrownBy(() -> call.accept(null)).as("%s call %d", what, c)
                            .isInstanceOf(IndexOutOfBoundsException.class)
                            .hasMessageContaining(Long.toString(named))
                            .hasMessageContaining(Long.toString(n))
                            .hasMessageContaining(Integer.toString(size));
                }
                if (n == 0 || o < 0 || o > size - 2) {
                    // a BE access of width w at o is out of bounds from here on for w = 2, 4, 8
                    assertThatThrownBy(() -> Segments.getShortBE(s, o)).as(what).isInstanceOf(IndexOutOfBoundsException.class);
                    assertThatThrownBy(() -> Segments.putShortBE(s, o, (short) 1)).as(what)
                            .isInstanceOf(IndexOutOfBoundsException.class);
                }
                assertThat(bytes(s)).as(what).isEqualTo(sb);
                assertThat(bytes(t)).as(what).isEqualTo(tb);
            }
            for (int o : new int[] {-1, size - 7, size - 3, size - 1, size, Integer.MAX_VALUE}) {
                if (o >= size - 1 || o < 0) {
                    assertThatThrownBy(() -> Segments.putShortBE(s, o, (short) 1)).isInstanceOf(IndexOutOfBoundsException.class);
                }
                if (o >= size - 3 || o < 0) {
                    assertThatThrownBy(() -> Segments.putIntBE(s, o, 1)).isInstanceOf(IndexOutOfBoundsException.class);
                    assertThatThrownBy(() -> Segments.getIntBE(s, o)).isInstanceOf(IndexOutOfBoundsException.class);
                }
                assertThatThrownBy(() -> Segments.putLongBE(s, o, 1)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> Segments.getLongBE(s, o)).isInstanceOf(IndexOutOfBoundsException.class);
            }
            byte[] arr = new byte[16];
            int[][] badArray = {{-1, 1}, {0, -1}, {10, 7}, {17, 0}, {Integer.MAX_VALUE, 2}};
            for (int[] bad : badArray) {
                assertThatThrownBy(() -> Segments.writeBytes(s, 0, arr, bad[0], bad[1])).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> Segments.readBytes(s, 0, arr, bad[0], bad[1])).isInstanceOf(IndexOutOfBoundsException.class);
            }
            assertThatThrownBy(() -> Segments.writeBytes(s, size - 3, arr, 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Segments.writeBytes(s, -1, arr, 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Segments.readBytes(s, size - 3, arr, 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(arr).containsOnly(0);
            assertThat(bytes(s)).isEqualTo(sb);
        }
    }

    @Test
    void writesToAReadOnlySegmentThrowIllegalArgumentAndWriteNothing() {
        Random rnd = new Random(92);
        for (Kind k : Kind.values()) {
            for (int n : new int[] {1, 8, 100, 300, 2000, (1 << 20) + 5}) {
                int size = n + 8;
                MemorySegment s = randomSegment(k, size, rnd);
                MemorySegment other = randomSegment(kind(rnd), size, rnd);
                MemorySegment ro = s.asReadOnly();
                byte[] sb = bytes(s);
                byte[] ob = bytes(other);
                String what = k + " n=" + n;
                assertThatThrownBy(() -> Segments.fill(ro, 3, n, (byte) 7)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.copy(other, 0, ro, 3, n)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.swap(ro, 3, other, 0, n)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.swap(other, 0, ro, 3, n)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.writeBytes(ro, 3, new byte[n], 0, n)).as(what)
                        .isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.putLongBE(ro, 3, -1L)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.putIntBE(ro, 3, -1)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> Segments.putShortBE(ro, 3, (short) -1)).as(what).isInstanceOf(IllegalArgumentException.class);
                assertThat(Arrays.equals(bytes(s), sb)).as(what).isTrue();
                assertThat(Arrays.equals(bytes(other), ob)).as(what).isTrue();
            }
        }
    }

    /** Closed segments (native and mapped) throw IllegalStateException; the open side is left as it was. */
    @Test
    void closedSegmentsThrowIllegalStateAndWriteNothing() {
        Random rnd = new Random(93);
        for (Kind k : new Kind[] {Kind.NATIVE, Kind.NATIVE_SLICE, Kind.MAPPED, Kind.MAPPED_SLICE}) {
            for (int n : new int[] {1, 7, 8, 63, 64, 100, 256, 3000, (1 << 20) + 1}) {
                Arena closing = Arena.ofConfined();
                MemorySegment c = segment(k, n + 4, closing);
                closing.close();
                MemorySegment open = randomSegment(kind(rnd), n + 4, rnd);
                byte[] ob = bytes(open);
                String what = k + " n=" + n;
                List<ThrowingConsumer<Void>> calls = List.of(
                        v -> Segments.compareUnsigned(c, 1, open, 0, n),
                        v -> Segments.compareUnsigned(open, 0, c, 1, n),
                        v -> Segments.swap(c, 1, open, 0, n),
                        v -> Segments.swap(open, 0, c, 1, n),
                        v -> Segments.hash64(c, 1, n),
                        v -> Segments.copy(c, 1, open, 0, n),
                        v -> Segments.copy(open, 0, c, 1, n),
                        v -> Segments.fill(c, 1, n, (byte) 3),
                        v -> Segments.writeBytes(c, 1, new byte[n], 0, n),
                        v -> Segments.readBytes(c, 1, new byte[n], 0, n),
                        v -> Segments.getLongBE(c, 1),
                        v -> Segments.putIntBE(c, 1, 2),
                        v -> Segments.putShortBE(c, 1, (short) 2));
                for (int i = 0; i < calls.size(); i++) {
                    ThrowingConsumer<Void> call = calls.get(i);
                    if (i >= 10 && n < 8) {
                        continue;
                    }
                    assertThatThrownBy(() -> call.accept(null)).as("%s call %d", what, i)
                            .isInstanceOf(IllegalStateException.class);
                }
                assertThat(Arrays.equals(bytes(open), ob)).as(what).isTrue();
            }
        }
    }

    /**
     * A closed segment whose memory is live under another segment (a MemoryManager page that was
     * released, and the page leased after it at the same address: both are views of the manager's
     * chunk with scopes of their own) is closed, so swap must throw IllegalStateException. The
     * address-based overlap test ran first and called it an overlap (IllegalArgumentException).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 16, 300, 5000})
    @SuppressWarnings("restricted")
    void swapWithAClosedViewOfLiveMemoryThrowsIllegalState(int n) {
        MemorySegment live = randomSegment(Kind.NATIVE, n + 8, new Random(95 + n));
        Arena released = Arena.ofConfined();
        MemorySegment stale = live.reinterpret(released, null);
        released.close();
        byte[] before = bytes(live);
        assertThatThrownBy(() -> Segments.swap(stale, 0, live, 4, n)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.swap(live, 4, stale, 0, n)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.swap(stale, 8, live, 8, n)).isInstanceOf(IllegalStateException.class);
        assertThat(bytes(live)).isEqualTo(before);
    }

    /** A confined segment used by another thread: WrongThreadException, nothing written. */
    @Test
    void confinedSegmentsFromAnotherThreadThrowWrongThreadAndWriteNothing() throws Exception {
        Random rnd = new Random(94);
        try (Arena confined = Arena.ofConfined()) {
            for (int n : new int[] {1, 8, 64, 300, 3000, (1 << 20) + 1}) {
                MemorySegment c = segment(Kind.NATIVE, n + 4, confined);
                c.fill((byte) 0x5A);
                MemorySegment open = randomSegment(Kind.HEAP_BYTES, n + 4, rnd);
                byte[] ob = bytes(open);
                List<ThrowingConsumer<Void>> calls = List.of(
                        v -> Segments.swap(c, 1, open, 0, n),
                        v -> Segments.swap(open, 0, c, 1, n),
                        v -> Segments.copy(c, 1, open, 0, n),
                        v -> Segments.copy(open, 0, c, 1, n),
                        v -> Segments.fill(c, 1, n, (byte) 3),
                        v -> Segments.compareUnsigned(open, 0, c, 1, n),
                        v -> Segments.hash64(c, 1, n));
                for (int i = 0; i < calls.size(); i++) {
                    ThrowingConsumer<Void> call = calls.get(i);
                    Throwable thrown = CompletableFuture.supplyAsync(() -> {
                        try {
                            call.accept(null);
                            return null;
                        } catch (Throwable t) {
                            return t;
                        }
                    }).get(30, TimeUnit.SECONDS);
                    assertThat(thrown).as("n=%d call %d", n, i).isInstanceOf(WrongThreadException.class);
                }
                assertThat(Arrays.equals(bytes(open), ob)).isTrue();
                byte[] cb = bytes(c);
                for (byte b : cb) {
                    assertThat(b).isEqualTo((byte) 0x5A);
                }
            }
        }
    }

    // ---- mapped files that shrank ----

    /** Child JVM: maps a file, truncates it, fills the mapping with Segments.fill and prints the outcome. */
    public static final class FillTruncatedMapping {
        private FillTruncatedMapping() {
        }

        public static void main(String[] args) throws IOException {
            Path file = Path.of(args[0]);
            long size = Long.parseLong(args[1]);
            try (Arena a = Arena.ofShared()) {
                MemorySegment s;
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
                    s = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, a);
                    ch.truncate(0);
                }
                try {
                    Segments.fill(s, 0, size, (byte) 1);
                    System.out.println("RESULT no exception");
                } catch (Throwable t) {
                    System.out.println("RESULT " + t.getClass().getName());
                }
            }
        }
    }

    /**
     * Filling a mapped segment whose file was truncated under it (or a sparse file on a full disk)
     * faults. MemorySegment.fill turns the fault into an InternalError, as every JDK access to a
     * mapped segment does; memset, called through a downcall, is not guarded and the JVM dies of
     * SIGBUS. Run in a child JVM so that a crash fails this test and not the whole run.
     */
    @ParameterizedTest
    @ValueSource(longs = {64 << 10, 2 << 20})
    void fillOfATruncatedMappingFailsWithTheJdksErrorAndDoesNotCrashTheJvm(long size) throws Exception {
        assertChildJvmGetsInternalError(dir.resolve("truncated" + (files++)), FillTruncatedMapping.class,
                Long.toString(size));
    }

    /**
     * Runs {@code main} in a child JVM with {@code file} and {@code args}, and checks that it reported the
     * JDK's InternalError and exited normally: a crash (SIGBUS in a downcall) fails the calling test, not
     * the test JVM. Deletes {@code file} and the crash log afterwards.
     */
    static void assertChildJvmGetsInternalError(Path file, Class<?> main, String... args) {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            Path errorFile = file.resolveSibling(file.getFileName() + ".hs_err.log");
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "--enable-native-access=ALL-UNNAMED",
                    "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + errorFile, "-Xmx64m",
                    main.getName(), file.toString()));
            command.addAll(List.of(args));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int rc = p.waitFor();
            Files.deleteIfExists(file);
            Files.deleteIfExists(errorFile);
            assertThat(out).as("exit %d, output:%n%s", rc, out).contains("RESULT java.lang.InternalError");
            assertThat(rc).as(out).isZero();
        });
    }
}
