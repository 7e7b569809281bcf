package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every {@link Segments} method says that a segment whose arena is closed throws
 * {@link IllegalStateException} (and a confined one used by another thread the JDK's
 * {@link WrongThreadException}), whatever the length. With length 0, {@code compareUnsigned},
 * {@code swap}, {@code hash64} and {@code copy} read nothing and returned normally, while
 * {@code fill}, {@code readBytes} and {@code writeBytes} threw: a use of a released page went
 * unnoticed whenever its region happened to be empty. Bounds are as before: length 0 at the very
 * end of a live segment is fine.
 */
class ZeroLengthCallsOnAClosedSegmentThrowTest {
    private static final int SIZE = 64;

    interface Call {
        void run() throws Throwable;
    }

    /** Every method with length 0 on {@code s} at {@code offset}; {@code live} is another, open, segment. */
    private static Map<String, Call> zeroLengthCalls(MemorySegment s, long offset, MemorySegment live) {
        byte[] array = new byte[8];
        Map<String, Call> calls = new LinkedHashMap<>();
        calls.put("compareUnsigned a", () -> Segments.compareUnsigned(s, offset, live, 0, 0));
        calls.put("compareUnsigned b", () -> Segments.compareUnsigned(live, 0, s, offset, 0));
        calls.put("swap a", () -> Segments.swap(s, offset, live, 0, 0));
        calls.put("swap b", () -> Segments.swap(live, 0, s, offset, 0));
        calls.put("hash64", () -> Segments.hash64(s, offset, 0));
        calls.put("hash64 seeded", () -> Segments.hash64(s, offset, 0, 42));
        calls.put("copy src", () -> Segments.copy(s, offset, live, 0, 0));
        calls.put("copy dst", () -> Segments.copy(live, 0, s, offset, 0));
        calls.put("fill", () -> Segments.fill(s, offset, 0, (byte) 1));
        calls.put("readBytes", () -> Segments.readBytes(s, offset, array, 0, 0));
        calls.put("writeBytes", () -> Segments.writeBytes(s, offset, array, 8, 0));
        return calls;
    }

    @Test
    void aClosedSegmentThrowsForLengthZeroToo() {
        MemorySegment live = MemorySegment.ofArray(new byte[SIZE]);
        MemorySegment closed;
        try (Arena arena = Arena.ofConfined()) {
            closed = arena.allocate(SIZE);
        }
        for (long offset : new long[] {0, 10, SIZE}) {
            for (Map.Entry<String, Call> call : zeroLengthCalls(closed, offset, live).entrySet()) {
                assertThatThrownBy(call.getValue()::run).as("%s at %d", call.getKey(), offset)
                        .isInstanceOf(IllegalStateException.class);
            }
        }
        MemorySegment readOnlyClosed = closed.asReadOnly();
        assertThatThrownBy(() -> Segments.swap(readOnlyClosed, 0, live, 0, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.compareUnsigned(closed, 0, closed, 0, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Segments.swap(closed, 0, closed, 0, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aConfinedSegmentOfAnotherThreadThrowsForLengthZeroToo() throws Exception {
        MemorySegment live = MemorySegment.ofArray(new byte[SIZE]);
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment c = confined.allocate(SIZE);
            for (Map.Entry<String, Call> call : zeroLengthCalls(c, SIZE, live).entrySet()) {
                Throwable thrown = CompletableFuture.supplyAsync(() -> {
                    try {
                        call.getValue().run();
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                }).get(30, TimeUnit.SECONDS);
                assertThat(thrown).as(call.getKey()).isInstanceOf(WrongThreadException.class);
            }
        }
    }

    @Test
    void lengthZeroAtTheVeryEndOfALiveSegmentIsFine() throws Throwable {
        MemorySegment live = MemorySegment.ofArray(new byte[SIZE]);
        try (Arena arena = Arena.ofConfined()) {
            for (MemorySegment s : new MemorySegment[] {
                    MemorySegment.ofArray(new byte[SIZE]), MemorySegment.ofArray(new long[SIZE / 8]),
                    arena.allocate(SIZE), arena.allocate(SIZE).asSlice(SIZE / 2)}) {
                for (Map.Entry<String, Call> call : zeroLengthCalls(s, s.byteSize(), live).entrySet()) {
                    call.getValue().run();
                }
                // read-only: the reads, and a swap of nothing
                MemorySegment readOnly = s.asReadOnly();
                long end = s.byteSize();
                assertThat(Segments.compareUnsigned(readOnly, end, live, SIZE, 0)).isZero();
                assertThat(Segments.hash64(readOnly, end, 0)).isEqualTo(Segments.hash64(live, SIZE, 0));
                Segments.swap(readOnly, end, live, SIZE, 0);
                Segments.readBytes(readOnly, end, new byte[1], 1, 0);
                // one byte past the end is out of bounds, even for length 0
                assertThatThrownBy(() -> Segments.hash64(s, end + 1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
                assertThatThrownBy(() -> Segments.copy(s, end + 1, live, 0, 0))
                        .isInstanceOf(IndexOutOfBoundsException.class);
            }
        }
    }
}
