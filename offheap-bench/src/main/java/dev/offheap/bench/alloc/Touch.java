package dev.offheap.bench.alloc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What every allocation benchmark does with the memory it got: writes the first and the last
 * 8-byte word. Writing makes the allocation observable (it cannot be optimized away) and touches
 * the first and the last page of a large block, as a real use would; reading the words back would
 * add nothing to that. Unaligned access, because {@code allocate(long)} promises only 1-byte
 * alignment; on x86-64 it compiles to the same store.
 */
final class Touch {
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    /** The smallest size a benchmark may ask for: one word at each end, possibly the same one. */
    static final long MIN_BYTES = Long.BYTES;

    private Touch() {
    }

    /**
     * @param segment a writable segment of at least {@link #MIN_BYTES}
     * @return its address, for the Blackhole
     */
    static long firstAndLast(MemorySegment segment) {
        long last = segment.byteSize() - Long.BYTES;
        segment.set(WORD, 0, last);
        segment.set(WORD, last, 1L);
        return segment.address();
    }

    /**
     * @param bytes a {@code bytes} benchmark parameter
     * @return it, if a benchmark can touch that many bytes
     * @throws IllegalArgumentException if it is below {@link #MIN_BYTES}
     */
    static int checkSize(int bytes) {
        if (bytes < MIN_BYTES) {
            throw new IllegalArgumentException("bytes must be at least " + MIN_BYTES
                    + " (a word is written at each end), got " + bytes);
        }
        return bytes;
    }
}
