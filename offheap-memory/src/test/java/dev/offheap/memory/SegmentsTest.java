package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every helper against a byte-by-byte reference, on heap, native and mapped segments and their
 * combinations, over seeded random lengths (0..300) and offsets.
 */
class SegmentsTest {

    private static final int SIZE = 1024;
    private static final int ROUNDS = 400;

    enum Kind { HEAP, NATIVE, MAPPED }

    private static Arena arena;
    private static Path dir;
    private static int files;

    @BeforeAll
    static void openArena() throws IOException {
        arena = Arena.ofShared();
        dir = Files.createTempDirectory("segments-test");
    }

    @AfterAll
    static void closeArena() throws IOException {
        arena.close();
        try (Stream<Path> paths = Files.list(dir)) {
            for (Path p : paths.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    static MemorySegment segment(Kind kind, int size) {
        return switch (kind) {
            case HEAP -> MemorySegment.ofArray(new byte[size]);
            case NATIVE -> arena.allocate(size, 1);
            case MAPPED -> {
                try (FileChannel ch = FileChannel.open(dir.resolve("m" + (files++)),
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    yield ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    static MemorySegment randomSegment(Kind kind, Random rnd) {
        MemorySegment s = segment(kind, SIZE);
        byte[] bytes = new byte[SIZE];
        rnd.nextBytes(bytes);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, SIZE);
        return s;
    }

    static Stream<Arguments> kindPairs() {
        List<Arguments> pairs = new ArrayList<>();
        for (Kind a : Kind.values()) {
            for (Kind b : Kind.values()) {
                pairs.add(Arguments.of(a, b));
            }
        }
        return pairs.stream();
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    // ---- compareUnsigned ----

    static int referenceCompare(MemorySegment a, long ao, MemorySegment b, long bo, long n) {
        for (long i = 0; i < n; i++) {
            int x = Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, ao + i));
            int y = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bo + i));
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }

    @ParameterizedTest
    @MethodSource("kindPairs")
    void compareUnsignedMatchesReference(Kind ka, Kind kb) {
        Random rnd = new Random(42 + ka.ordinal() * 3L + kb.ordinal());
        MemorySegment a = randomSegment(ka, rnd);
        MemorySegment b = segment(kb, SIZE);
        for (int r = 0; r < ROUNDS; r++) {
            int n = rnd.nextInt(301);
            int ao = rnd.nextInt(SIZE - n + 1);
            int bo = rnd.nextInt(SIZE - n + 1);
            // b's region: a's region, then (mostly) one byte changed, so the first difference
            // falls anywhere, including the unsigned edge (0x7f vs 0x80) and the tail.
            MemorySegment.copy(a, ao, b, bo, n);
            int choice = rnd.nextInt(4);
            if (n > 0 && choice > 0) {
                int at = choice == 1 ? n - 1 - rnd.nextInt(Math.min(n, 9)) : rnd.nextInt(n);
                byte v = (byte) (rnd.nextBoolean() ? rnd.nextInt() : (rnd.nextBoolean() ? 0x7f : 0x80));
                b.set(ValueLayout.JAVA_BYTE, bo + at, v);
            }
            int expected = referenceCompare(a, ao, b, bo, n);
            assertThat(Integer.signum(Segments.compareUnsigned(a, ao, b, bo, n)))
                    .as("n=%d ao=%d bo=%d", n, ao, bo).isEqualTo(expected);
            assertThat(Integer.signum(Segments.compareUnsigned(b, bo, a, ao, n))).isEqualTo(-expected);
        }
    }

    @Test
    void compareUnsignedTreatsBytesAsUnsigned() {
        MemorySegment a = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, (byte) 0x80});
        MemorySegment b = MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 0x7f});
        assertThat(Segments.compareUnsigned(a, 0, b, 0, 9)).isPositive();
        assertThat(Segments.compareUnsigned(a, 0, b, 0, 8)).isZero();
        MemorySegment c = MemorySegment.ofArray(new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 0});
        MemorySegment d = MemorySegment.ofArray(new byte[] {0x01, 0, 0, 0, 0, 0, 0, 0});
        assertThat(Segments.compareUnsigned(c, 0, d, 0, 8)).isPositive();
    }

    // ---- swap ----

    @ParameterizedTest
    @MethodSource("kindPairs")
    void swapMatchesReference(Kind ka, Kind kb) {
        Random rnd = new Random(7 + ka.ordinal() * 3L + kb.ordinal());
        MemorySegment a = randomSegment(ka, rnd);
        MemorySegment b = randomSegment(kb, rnd);
        for (int r = 0; r < ROUNDS; r++) {
            int n = rnd.nextInt(301);
            int ao = rnd.nextInt(SIZE - n + 1);
            int bo = rnd.nextInt(SIZE - n + 1);
            byte[] ea = bytes(a);
            byte[] eb = bytes(b);
            byte[] ra = ea.clone();
            System.arraycopy(eb, bo, ea, ao, n);
            System.arraycopy(ra, ao, eb, bo, n);
            Segments.swap(a, ao, b, bo, n);
            assertThat(bytes(a)).as("n=%d ao=%d bo=%d", n, ao, bo).isEqualTo(ea);
            assertThat(bytes(b)).isEqualTo(eb);
        }
    }

    /**
     * Swaps below the bulk-copy length take one of two element loops, chosen by whether the second segment
     * is of the first's class (another segment of the same kind, or the same segment) or not: interleaved,
     * every length with and without a tail of single bytes, both give the reference's bytes.
     */
    @ParameterizedTest
    @MethodSource("kindPairs")
    void shortSwapsMatchTheReferenceWhetherOrNotTheSecondSegmentIsOfTheFirstsClass(Kind ka, Kind kb) {
        Random rnd = new Random(31 + ka.ordinal() * 3L + kb.ordinal());
        MemorySegment a = randomSegment(ka, rnd);
        MemorySegment sameKind = randomSegment(ka, rnd);
        MemorySegment other = randomSegment(kb, rnd);
        for (int n = 1; n < 256; n++) {
            for (MemorySegment b : new MemorySegment[] {sameKind, other, a}) {
                int ao = rnd.nextInt(SIZE / 2 - n + 1);
                // within a, the second region lies in the other half: disjoint
                int bo = (b == a ? SIZE / 2 : 0) + rnd.nextInt(SIZE / 2 - n + 1);
                byte[] ea = bytes(a);
                byte[] eb = b == a ? ea : bytes(b);
                byte[] oldA = ea.clone();
                byte[] oldB = eb.clone();
                System.arraycopy(oldB, bo, ea, ao, n);
                System.arraycopy(oldA, ao, eb, bo, n);
                Segments.swap(a, ao, b, bo, n);
                assertThat(bytes(a)).as("n=%d ao=%d bo=%d b=%s", n, ao, bo, b == a ? "a" : b).isEqualTo(ea);
                assertThat(bytes(b)).as("n=%d ao=%d bo=%d", n, ao, bo).isEqualTo(eb);
            }
        }
    }

    /** Fills of 1 MiB and more (once memset's sizes): same bytes, nothing outside touched. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void largeFillsMatchTheReferenceAndStayInTheirRegion(Kind kind) {
        int size = (3 << 20) + 64;
        MemorySegment s = segment(kind, size);
        s.fill((byte) 0x11);
        long offset = 5;
        long length = (2L << 20) + 3;
        Segments.fill(s, offset, length, (byte) 0xA5);
        byte[] bytes = s.toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < size; i++) {
            byte expected = i >= offset && i < offset + length ? (byte) 0xA5 : (byte) 0x11;
            if (bytes[i] != expected) {
                throw new AssertionError("byte " + i + " is " + bytes[i] + ", expected " + expected);
            }
        }
    }

    /** Fills from 1 KiB to 1 MiB on native memory are a loop of 8-byte stores: every byte value, any offset and length. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void midSizeFillsMatchTheReferenceAndStayInTheirRegion(Kind kind) {
        Random rnd = new Random(41 + kind.ordinal());
        int size = 300_000;
        MemorySegment s = segment(kind, size);
        for (int round = 0; round < 20; round++) {
            s.fill((byte) 0x11);
            long length = round == 0 ? 1024 : round == 1 ? 1023 : 1024 + rnd.nextInt(size - 2048);
            long offset = 1 + rnd.nextInt((int) (size - length - 1));
            byte value = (byte) (round == 2 ? 0 : rnd.nextInt());
            Segments.fill(s, offset, length, value);
            byte[] bytes = s.toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < size; i++) {
                byte expected = i >= offset && i < offset + length ? value : (byte) 0x11;
                if (bytes[i] != expected) {
                    throw new AssertionError("byte " + i + " is " + bytes[i] + ", expected " + expected + " (offset "
                            + offset + ", length " + length + ")");
                }
            }
        }
    }

    @Test
    void largeFillOfAClosedSegmentThrowsIllegalState() {
        Arena closing = Arena.ofConfined();
        MemorySegment s = closing.allocate(2 << 20);
        closing.close();
        assertThatThrownBy(() -> Segments.fill(s, 0, 2 << 20, (byte) 1)).isInstanceOf(IllegalStateException.class);
    }

    /** Long swaps go through chunked bulk copies; chunk edges and odd tails must match the reference. */
    @ParameterizedTest
    @MethodSource("kindPairs")
    void swapOfLongRegionsAcrossChunkEdgesMatchesReference(Kind ka, Kind kb) {
        Random rnd = new Random(23 + ka.ordinal() * 3L + kb.ordinal());
        for (int n : new int[] {255, 256, 2047, 2048, 2049, 5000}) {
            MemorySegment a = segment(ka, n + 16);
            MemorySegment b = segment(kb, n + 16);
            byte[] ea = new byte[n + 16];
            byte[] eb = new byte[n + 16];
            rnd.nextBytes(ea);
            rnd.nextBytes(eb);
            MemorySegment.copy(ea, 0, a, ValueLayout.JAVA_BYTE, 0, ea.length);
            MemorySegment.copy(eb, 0, b, ValueLayout.JAVA_BYTE, 0, eb.length);
            byte[] ra = ea.clone();
            System.arraycopy(eb, 3, ea, 7, n);
            System.arraycopy(ra, 7, eb, 3, n);
            Segments.swap(a, 7, b, 3, n);
            assertThat(a.toArray(ValueLayout.JAVA_BYTE)).as("n=%d", n).isEqualTo(ea);
            assertThat(b.toArray(ValueLayout.JAVA_BYTE)).as("n=%d", n).isEqualTo(eb);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {16, 1 << 20})
    void aSwapWithAReadOnlySegmentChangesNothing(int length) {
        // the element loop wrote the first segment, then failed on the read-only second: its bytes were lost
        byte[] aBytes = new byte[length];
        byte[] bBytes = new byte[length];
        java.util.Arrays.fill(aBytes, (byte) 1);
        java.util.Arrays.fill(bBytes, (byte) 2);
        MemorySegment a = MemorySegment.ofArray(aBytes);
        MemorySegment b = MemorySegment.ofArray(bBytes);
        assertThatThrownBy(() -> Segments.swap(a, 0, b.asReadOnly(), 0, length))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
        assertThatThrownBy(() -> Segments.swap(a.asReadOnly(), 0, b, 0, length))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(aBytes).containsOnly((byte) 1);
        assertThat(bBytes).containsOnly((byte) 2);
        Segments.swap(a.asReadOnly(), 0, b, 0, 0); // nothing to swap: no exception
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void swapWithinOneSegment(Kind kind) {
        Random rnd = new Random(11 + kind.ordinal());
        MemorySegment s = randomSegment(kind, rnd);
        for (int r = 0; r < ROUNDS; r++) {
            int n = rnd.nextInt(200);
            int ao = rnd.nextInt(SIZE / 2 - n + 1);
            int bo = SIZE / 2 + rnd.nextInt(SIZE / 2 - n + 1);
            byte[] e = bytes(s);
            byte[] before = e.clone();
            System.arraycopy(before, bo, e, ao, n);
            System.arraycopy(before, ao, e, bo, n);
            // through a second view of the same memory as well, half the time
            MemorySegment other = rnd.nextBoolean() ? s : s.asSlice(0);
            Segments.swap(s, ao, other, bo, n);
            assertThat(bytes(s)).isEqualTo(e);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void swapRejectsOverlapAndChangesNothing(Kind kind) {
        MemorySegment s = randomSegment(kind, new Random(3));
        byte[] before = bytes(s);
        assertThatThrownBy(() -> Segments.swap(s, 10, s, 17, 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlap");
        assertThatThrownBy(() -> Segments.swap(s, 10, s.asSlice(4), 7, 2))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(bytes(s)).isEqualTo(before);
        Segments.swap(s, 10, s.asSlice(4), 6, 8); // the same region is fine, and changes nothing
        assertThat(bytes(s)).isEqualTo(before);
        Segments.swap(s, 10, s, 18, 8); // adjacent is fine
        Segments.swap(s, 10, s, 10, 0); // empty is fine
    }

    // ---- hash64 ----

    static long referenceHashInput(byte[] b, int from, int n) {
        return Segments.hash64(MemorySegment.ofArray(b), from, n, 99);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void hashDependsOnlyOnTheBytes(Kind kind) {
        Random rnd = new Random(5 + kind.ordinal());
        MemorySegment s = segment(kind, SIZE);
        for (int r = 0; r < ROUNDS; r++) {
            int n = rnd.nextInt(301);
            byte[] data = new byte[n];
            rnd.nextBytes(data);
            int off = rnd.nextInt(SIZE - n + 1);
            MemorySegment.copy(data, 0, s, ValueLayout.JAVA_BYTE, off, n);
            // the same bytes at another array position (other alignment) in a heap segment
            byte[] shifted = new byte[n + 13];
            System.arraycopy(data, 0, shifted, 5, n);
            assertThat(Segments.hash64(s, off, n, 99)).isEqualTo(referenceHashInput(shifted, 5, n));
            assertThat(Segments.hash64(s, off, n)).isEqualTo(Segments.hash64(MemorySegment.ofArray(data), 0, n));
        }
    }

    @Test
    void hashHasNoTrivialCollisions() {
        Set<Long> seen = new HashSet<>();
        byte[] zeros = new byte[300];
        for (int n = 0; n <= 300; n++) {
            assertThat(seen.add(Segments.hash64(MemorySegment.ofArray(zeros), 0, n))).as("length %d", n).isTrue();
        }
        Set<Long> singles = new HashSet<>();
        for (int b = 0; b < 256; b++) {
            singles.add(Segments.hash64(MemorySegment.ofArray(new byte[] {(byte) b}), 0, 1));
        }
        assertThat(singles).hasSize(256);
        MemorySegment one = MemorySegment.ofArray(new byte[8]);
        assertThat(Segments.hash64(one, 0, 8, 1)).isNotEqualTo(Segments.hash64(one, 0, 8, 2));
    }

    /**
     * Avalanche: flipping any one input bit flips each output bit with probability 1/2. With
     * 2,000 samples per input bit the standard deviation of a measured rate is about 0.011; a
     * weak mixer (no finalizer, a missing rotate) is far outside 0.5 +- 0.06. One-byte inputs
     * have only 256 values, too few for this bound; {@link #hashHasNoTrivialCollisions} covers them.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3, 4, 8, 13, 16, 31, 32, 40, 64, 100})
    void hashAvalanche(int length) {
        Random rnd = new Random(1000 + length);
        int samples = 2000;
        int inputBits = length * 8;
        int[][] flips = new int[inputBits][64];
        byte[] data = new byte[length];
        MemorySegment s = MemorySegment.ofArray(data);
        for (int t = 0; t < samples; t++) {
            rnd.nextBytes(data);
            long h = Segments.hash64(s, 0, length);
            for (int bit = 0; bit < inputBits; bit++) {
                data[bit >>> 3] ^= (byte) (1 << (bit & 7));
                long d = h ^ Segments.hash64(s, 0, length);
                data[bit >>> 3] ^= (byte) (1 << (bit & 7));
                for (int o = 0; o < 64; o++) {
                    flips[bit][o] += (int) ((d >>> o) & 1);
                }
            }
        }
        for (int bit = 0; bit < inputBits; bit++) {
            for (int o = 0; o < 64; o++) {
                double rate = flips[bit][o] / (double) samples;
                assertThat(rate).as("input bit %d -> output bit %d", bit, o).isBetween(0.44, 0.56);
            }
        }
    }

    /**
     * Sequential 8-byte keys (the worst case for a weak hash) spread evenly over 4096 buckets,
     * taken from the low and from the high bits: chi-square with 4095 degrees of freedom has
     * mean 4095 and standard deviation about 90; the bound is 5 deviations above.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 52})
    void hashBucketsAreUniform(int shift) {
        int buckets = 4096;
        int keys = buckets * 64;
        int[] count = new int[buckets];
        MemorySegment key = MemorySegment.ofArray(new byte[12]);
        for (int k = 0; k < keys; k++) {
            key.set(ValueLayout.JAVA_INT_UNALIGNED, 3, k);
            long h = Segments.hash64(key, 0, 12);
            count[(int) ((h >>> shift) & (buckets - 1))]++;
        }
        double expected = keys / (double) buckets;
        double chi2 = 0;
        for (int c : count) {
            chi2 += (c - expected) * (c - expected) / expected;
        }
        assertThat(chi2).isLessThan(4095 + 5 * 90.5);
    }

    // ---- big-endian access ----

    @ParameterizedTest
    @EnumSource(Kind.class)
    void bigEndianAccessMatchesReference(Kind kind) {
        Random rnd = new Random(17 + kind.ordinal());
        MemorySegment s = segment(kind, 64);
        for (int r = 0; r < ROUNDS; r++) {
            int off = rnd.nextInt(64 - 8 + 1);
            long v = rnd.nextLong();
            Segments.putLongBE(s, off, v);
            for (int i = 0; i < 8; i++) {
                assertThat(s.get(ValueLayout.JAVA_BYTE, off + i)).isEqualTo((byte) (v >>> (56 - 8 * i)));
            }
            assertThat(Segments.getLongBE(s, off)).isEqualTo(v);
            Segments.putIntBE(s, off, (int) v);
            for (int i = 0; i < 4; i++) {
                assertThat(s.get(ValueLayout.JAVA_BYTE, off + i)).isEqualTo((byte) (v >>> (24 - 8 * i)));
            }
            assertThat(Segments.getIntBE(s, off)).isEqualTo((int) v);
            Segments.putShortBE(s, off, (short) v);
            assertThat(s.get(ValueLayout.JAVA_BYTE, off)).isEqualTo((byte) (v >>> 8));
            assertThat(s.get(ValueLayout.JAVA_BYTE, off + 1)).isEqualTo((byte) v);
            assertThat(Segments.getShortBE(s, off)).isEqualTo((short) v);
        }
    }

    @Test
    void bigEndianKeysSortLikeUnsignedNumbers() {
        Random rnd = new Random(23);
        MemorySegment a = MemorySegment.ofArray(new byte[8]);
        MemorySegment b = MemorySegment.ofArray(new byte[8]);
        for (int r = 0; r < ROUNDS; r++) {
            long x = rnd.nextLong() >>> rnd.nextInt(64);
            long y = rnd.nextLong() >>> rnd.nextInt(64);
            Segments.putLongBE(a, 0, x);
            Segments.putLongBE(b, 0, y);
            assertThat(Integer.signum(Segments.compareUnsigned(a, 0, b, 0, 8))).isEqualTo(Long.compareUnsigned(x, y));
        }
    }

    // ---- copy, fill, writeBytes, readBytes ----

    @ParameterizedTest
    @MethodSource("kindPairs")
    void copyAndFillMatchReference(Kind ka, Kind kb) {
        Random rnd = new Random(29 + ka.ordinal() * 3L + kb.ordinal());
        MemorySegment a = randomSegment(ka, rnd);
        MemorySegment b = randomSegment(kb, rnd);
        for (int r = 0; r < ROUNDS; r++) {
            int n = rnd.nextInt(301);
            int ao = rnd.nextInt(SIZE - n + 1);
            int bo = rnd.nextInt(SIZE - n + 1);
            byte[] eb = bytes(b);
            System.arraycopy(bytes(a), ao, eb, bo, n);
            Segments.copy(a, ao, b, bo, n);
            assertThat(bytes(b)).isEqualTo(eb);

            byte v = (byte) rnd.nextInt();
            byte[] ea = bytes(a);
            java.util.Arrays.fill(ea, ao, ao + n, v);
            Segments.fill(a, ao, n, v);
            assertThat(bytes(a)).isEqualTo(ea);

            byte[] src = new byte[n + 7];
            rnd.nextBytes(src);
            int si = rnd.nextInt(8);
            int len = Math.max(0, n - si);
            byte[] e2 = bytes(a);
            System.arraycopy(src, si, e2, ao, len);
            Segments.writeBytes(a, ao, src, si, len);
            assertThat(bytes(a)).isEqualTo(e2);

            byte[] back = new byte[len + 3];
            Segments.readBytes(a, ao, back, 3, len);
            assertThat(java.util.Arrays.copyOfRange(back, 3, len + 3)).isEqualTo(java.util.Arrays.copyOfRange(src, si, si + len));
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void copyOverlappingIsMemmove(Kind kind) {
        MemorySegment s = randomSegment(kind, new Random(31));
        byte[] e = bytes(s);
        System.arraycopy(e, 10, e, 13, 100);
        Segments.copy(s, 10, s, 13, 100);
        assertThat(bytes(s)).isEqualTo(e);
    }

    // ---- errors ----

    @Test
    void nullsAreNamed() {
        MemorySegment s = MemorySegment.ofArray(new byte[16]);
        assertThatThrownBy(() -> Segments.compareUnsigned(null, 0, s, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("a");
        assertThatThrownBy(() -> Segments.compareUnsigned(s, 0, null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("b");
        assertThatThrownBy(() -> Segments.swap(s, 0, null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("b");
        assertThatThrownBy(() -> Segments.hash64(null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("s");
        assertThatThrownBy(() -> Segments.copy(s, 0, null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("dst");
        assertThatThrownBy(() -> Segments.copy(null, 0, s, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("src");
        assertThatThrownBy(() -> Segments.fill(null, 0, 1, (byte) 0)).isInstanceOf(NullPointerException.class).hasMessage("s");
        assertThatThrownBy(() -> Segments.writeBytes(s, 0, null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("src");
        assertThatThrownBy(() -> Segments.readBytes(s, 0, null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("dst");
        assertThatThrownBy(() -> Segments.getLongBE(null, 0)).isInstanceOf(NullPointerException.class).hasMessage("s");
        assertThatThrownBy(() -> Segments.putIntBE(null, 0, 1)).isInstanceOf(NullPointerException.class).hasMessage("s");
        assertThatThrownBy(() -> Segments.getShortBE(null, 0)).isInstanceOf(NullPointerException.class).hasMessage("s");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void outOfBoundsGivesTheNumbers(Kind kind) {
        MemorySegment s = segment(kind, 32);
        MemorySegment t = segment(kind, 32);
        assertThatThrownBy(() -> Segments.compareUnsigned(s, 30, t, 0, 3))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("30").hasMessageContaining("32");
        assertThatThrownBy(() -> Segments.compareUnsigned(s, 0, t, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.compareUnsigned(s, -1, t, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.swap(s, 0, t, 31, 2))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("31");
        assertThatThrownBy(() -> Segments.hash64(s, 8, 25))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("25");
        assertThatThrownBy(() -> Segments.hash64(s, 0, -2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.copy(s, 0, t, 20, 13)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.copy(s, -4, t, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.fill(s, 16, 17, (byte) 1))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("17");
        assertThatThrownBy(() -> Segments.writeBytes(s, 0, new byte[4], 1, 4)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.writeBytes(s, 30, new byte[4], 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.readBytes(s, 0, new byte[4], -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.getLongBE(s, 25)).isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("25");
        assertThatThrownBy(() -> Segments.putLongBE(s, -1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.getIntBE(s, 29)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Segments.putShortBE(s, 31, (short) 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(bytes(s)).containsOnly(0);
        assertThat(bytes(t)).containsOnly(0);
    }

    @Test
    void closedSegmentThrowsIllegalState() {
        Arena confined = Arena.ofConfined();
        MemorySegment s = confined.allocate(64);
        MemorySegment h = MemorySegment.ofArray(new byte[64]);
        confined.close();
        assertThatThrownBy(() -> Segments.compareUnsigned(s, 0, h, 0, 16)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.compareUnsigned(h, 0, s, 0, 100 - 36)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.swap(s, 0, h, 0, 16)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.hash64(s, 0, 16)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.copy(h, 0, s, 0, 16)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.fill(s, 0, 16, (byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.writeBytes(s, 0, new byte[4], 0, 4)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.getLongBE(s, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.putShortBE(s, 0, (short) 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void readOnlySegmentRejectsWrites() {
        MemorySegment ro = MemorySegment.ofArray(new byte[16]).asReadOnly();
        assertThatThrownBy(() -> Segments.putLongBE(ro, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Segments.fill(ro, 0, 4, (byte) 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Segments.getLongBE(ro, 0)).isZero();
    }
}
