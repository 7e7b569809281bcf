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
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Segments#swap} of a region with itself (the same segment at the same offset, or two
 * segments over the same memory at the same address) changes nothing and throws nothing, as a
 * quicksort that swaps element i with element j == i needs. It threw "swap regions overlap". It
 * still checks what any swap checks: bounds, a closed arena, another thread's confined segment and
 * read-only segments; regions that overlap only partly are still refused.
 */
class SwapOfARegionWithItselfIsANoOpTest {

    private static final int SIZE = 8192;

    @TempDir
    Path dir;

    private List<MemorySegment> segments(Arena arena) throws IOException {
        MemorySegment mapped;
        try (FileChannel ch = FileChannel.open(dir.resolve("swap"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE, arena);
        }
        List<MemorySegment> all = List.of(
                MemorySegment.ofArray(new byte[SIZE]),
                MemorySegment.ofArray(new long[SIZE / 8]),
                arena.allocate(SIZE, 1),
                mapped);
        Random rnd = new Random(7);
        for (MemorySegment s : all) {
            byte[] bytes = new byte[SIZE];
            rnd.nextBytes(bytes);
            MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, SIZE);
        }
        return all;
    }

    @Test
    void aRegionSwappedWithItselfIsUnchanged() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            for (MemorySegment s : segments(arena)) {
                byte[] before = s.toArray(ValueLayout.JAVA_BYTE);
                // the 8-byte loop, its tail, and the bulk path (256 bytes and more)
                for (int n : new int[] {1, 7, 8, 16, 33, 255, 256, 5000}) {
                    Segments.swap(s, 10, s, 10, n);
                    // another view of the same memory, at the same address
                    Segments.swap(s, 10, s.asSlice(4), 6, n);
                    Segments.swap(s.asSlice(4), 6, s, 10, n);
                    Segments.swap(s.asSlice(10, n), 0, s.asSlice(10, n), 0, n);
                    // the whole segment, up to its last byte
                    Segments.swap(s, SIZE - n, s, SIZE - n, n);
                    assertThat(s.toArray(ValueLayout.JAVA_BYTE)).as("%s n=%d", s, n).isEqualTo(before);
                }
            }
        }
    }

    @Test
    void partialOverlapIsStillRefused() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            for (MemorySegment s : segments(arena)) {
                byte[] before = s.toArray(ValueLayout.JAVA_BYTE);
                for (int n : new int[] {2, 16, 300}) {
                    assertThatThrownBy(() -> Segments.swap(s, 10, s, 11, n))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlap");
                    assertThatThrownBy(() -> Segments.swap(s, 11, s.asSlice(4), 6, n))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("overlap");
                }
                assertThat(s.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(before);
            }
        }
    }

    /**
     * The refusal of a partial overlap says how the regions overlap. Through two views its message gave
     * each region's offsets in its own segment and called them "of the same memory": the refusal of
     * {@code swap(s, 11, s.asSlice(4), 6, 8)} read "[11, 19) and [6, 14) of the same memory", and that of
     * {@code swap(s, 5, s.asSlice(4), 5, 8)} "[5, 13) and [5, 13)", which reads like a swap of a region
     * with itself, which is allowed.
     */
    @Test
    void aPartialOverlapIsReportedWithHowFarApartTheRegionsStart() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            for (MemorySegment s : segments(arena)) {
                assertThatThrownBy(() -> Segments.swap(s, 10, s, 11, 8)).as("%s", s)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("[10, 18)").hasMessageContaining("[11, 19)")
                        .hasMessageContaining("share 7 of their 8 bytes")
                        .hasMessageContaining("the second starting 1 byte after the first");
                assertThatThrownBy(() -> Segments.swap(s, 11, s.asSlice(4), 6, 8)).as("%s", s)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("share 7 of their 8 bytes")
                        .hasMessageContaining("the second starting 1 byte before the first");
                assertThatThrownBy(() -> Segments.swap(s, 5, s.asSlice(4), 5, 300)).as("%s", s)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("share 296 of their 300 bytes")
                        .hasMessageContaining("the second starting 4 bytes after the first");
            }
        }
    }

    @Test
    void aRegionSwappedWithItselfIsStillCheckedForBoundsReadOnlyAndLiveness() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            for (MemorySegment s : segments(arena)) {
                byte[] before = s.toArray(ValueLayout.JAVA_BYTE);
                assertThatThrownBy(() -> Segments.swap(s, SIZE - 8, s, SIZE - 8, 16))
                        .isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> Segments.swap(s, -1, s, -1, 16))
                        .isInstanceOf(IndexOutOfBoundsException.class);
                MemorySegment readOnly = s.asReadOnly();
                for (int n : new int[] {16, 300}) {
                    assertThatThrownBy(() -> Segments.swap(readOnly, 10, readOnly, 10, n))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
                    assertThatThrownBy(() -> Segments.swap(s, 10, readOnly, 10, n))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
                    assertThatThrownBy(() -> Segments.swap(readOnly, 10, s, 10, n))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
                }
                Segments.swap(readOnly, 10, readOnly, 10, 0); // nothing to swap: no exception
                assertThat(s.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(before);
            }
        }
        MemorySegment closed;
        try (Arena arena = Arena.ofConfined()) {
            closed = arena.allocate(64);
        }
        assertThatThrownBy(() -> Segments.swap(closed, 8, closed, 8, 16)).isInstanceOf(IllegalStateException.class);
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment c = confined.allocate(64);
            Throwable thrown = CompletableFuture.supplyAsync(() -> {
                try {
                    Segments.swap(c, 8, c, 8, 16);
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(thrown).isInstanceOf(WrongThreadException.class);
        }
    }

    /** A closed view of live memory, at the live segment's own address, is closed all the same. */
    @Test
    @SuppressWarnings("restricted")
    void aClosedViewOfTheSameMemoryThrowsIllegalState() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment live = arena.allocate(64);
            Arena released = Arena.ofConfined();
            MemorySegment stale = live.reinterpret(released, null);
            released.close();
            assertThatThrownBy(() -> Segments.swap(stale, 8, live, 8, 16)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> Segments.swap(live, 8, stale, 8, 16)).isInstanceOf(IllegalStateException.class);
        }
    }
}
