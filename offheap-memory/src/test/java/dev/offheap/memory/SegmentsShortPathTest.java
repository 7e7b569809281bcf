package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The straight-line paths for 8..16 bytes (heap over {@code byte[]}, native) give the same
 * results as the kernel loops, which serve heap segments over {@code long[]}.
 */
class SegmentsShortPathTest {

    private static MemorySegment viaKernel(MemorySegment s) {
        MemorySegment k = MemorySegment.ofArray(new long[(int) (s.byteSize() + 7) / 8]).asSlice(0, s.byteSize());
        MemorySegment.copy(s, 0, k, 0, s.byteSize());
        return k;
    }

    @Test
    void shortPathsMatchTheKernel() {
        Random rnd = new Random(7);
        try (Arena arena = Arena.ofConfined()) {
            for (int round = 0; round < 200; round++) {
                byte[] bytes = new byte[64];
                rnd.nextBytes(bytes);
                MemorySegment heap = MemorySegment.ofArray(bytes.clone()).asSlice(3);
                MemorySegment nat = arena.allocate(61);
                MemorySegment.copy(heap, 0, nat, 0, 61);
                MemorySegment ref = viaKernel(heap);
                for (long len = 0; len <= 20; len++) {
                    long off = rnd.nextInt(8);
                    long seed = rnd.nextLong();
                    long expected = Segments.hash64(ref, off, len, seed);
                    assertThat(Segments.hash64(heap, off, len, seed)).isEqualTo(expected);
                    assertThat(Segments.hash64(nat, off, len, seed)).isEqualTo(expected);
                    long boff = 40 - off;
                    int c = Integer.signum(Segments.compareUnsigned(ref, off, ref, boff, len));
                    assertThat(Integer.signum(Segments.compareUnsigned(heap, off, nat, boff, len))).isEqualTo(c);
                    assertThat(Integer.signum(Segments.compareUnsigned(nat, off, heap, boff, len))).isEqualTo(c);
                    assertThat(Integer.signum(Segments.compareUnsigned(nat, off, nat, boff, len))).isEqualTo(c);
                }
                assertThat(Segments.getLongBE(heap, 5)).isEqualTo(Segments.getLongBE(ref, 5));
                assertThat(Segments.getLongBE(nat, 5)).isEqualTo(Segments.getLongBE(ref, 5));
                assertThat(Segments.getIntBE(nat, 9)).isEqualTo(Segments.getIntBE(ref, 9));
                assertThat(Segments.getShortBE(heap, 11)).isEqualTo(Segments.getShortBE(ref, 11));
            }
        }
    }

    @Test
    void shortSwapMatchesTheKernelAcrossKinds() {
        Random rnd = new Random(11);
        try (Arena arena = Arena.ofConfined()) {
            for (long len = 8; len <= 16; len++) {
                byte[] bytes = new byte[64];
                rnd.nextBytes(bytes);
                MemorySegment heap = MemorySegment.ofArray(bytes.clone());
                MemorySegment nat = arena.allocate(64);
                MemorySegment.copy(heap, 0, nat, 0, 64);
                nat.set(ValueLayout.JAVA_BYTE, 30, (byte) 99);
                MemorySegment refH = viaKernel(heap);
                MemorySegment refN = viaKernel(nat);
                Segments.swap(refH, 1, refN, 30, len);
                Segments.swap(heap, 1, nat, 30, len);
                assertThat(heap.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(refH.toArray(ValueLayout.JAVA_BYTE));
                assertThat(nat.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(refN.toArray(ValueLayout.JAVA_BYTE));
                Segments.swap(heap, 0, heap, 32, len);
                Segments.swap(refH, 0, refH, 32, len);
                assertThat(heap.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(refH.toArray(ValueLayout.JAVA_BYTE));
            }
        }
    }

    @Test
    void shortPathsRejectOverlapBoundsAndClosedSegments() {
        MemorySegment closed;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(32);
            MemorySegment alias = nat.asSlice(4);
            assertThatThrownBy(() -> Segments.swap(nat, 4, alias, 8, 16))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlap");
            byte[] arr = new byte[32];
            assertThatThrownBy(() -> Segments.swap(MemorySegment.ofArray(arr), 0,
                    MemorySegment.ofArray(arr).asSlice(8), 0, 12)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> Segments.compareUnsigned(nat, 20, nat, 0, 16))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("20");
            assertThatThrownBy(() -> Segments.hash64(MemorySegment.ofArray(arr).asSlice(8), 10, 16))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Segments.putLongBE(MemorySegment.ofArray(arr).asSlice(4), 21, 1))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("21");
            closed = nat;
        }
        assertThatThrownBy(() -> Segments.hash64(closed, 0, 16)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.getLongBE(closed, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.putShortBE(closed, 0, (short) 1)).isInstanceOf(IllegalStateException.class);
    }
}
