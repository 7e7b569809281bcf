package dev.offheap.memory.alloc;

/**
 * The size classes of {@link PooledAllocator}: 16-byte steps up to 128 bytes, then four classes per
 * doubling (so rounding wastes at most 25%, 12.5% on average) up to {@link #MAX_SMALL} bytes.
 * Every class is a multiple of 16 bytes, and every power of two from 16 on is a class, which is how
 * larger alignments are served (a block of a class that is a multiple of the alignment, in a span
 * whose start is aligned to 64 KiB, is aligned).
 *
 * <pre>
 *  index   0   1   2  ...  7 |   8    9   10   11 |  12  13  14  15 | ... |   40     41     42     43
 *  bytes  16  32  48  ... 128 | 160  192  224  256 | 320 384 448 512 | ... | 40960  49152  57344  65536
 * </pre>
 */
final class SizeClasses {
    /** The largest size served from size classes; larger requests get whole units. */
    static final long MAX_SMALL = 64 * 1024;
    static final int COUNT = 44;
    static final long[] SIZE = new long[COUNT];

    static {
        for (int i = 0; i < 8; i++) {
            SIZE[i] = 16L * (i + 1);
        }
        int i = 8;
        for (int k = 7; i < COUNT; k++) {
            for (int j = 1; j <= 4; j++) {
                SIZE[i++] = (1L << k) + ((long) j << (k - 2));
            }
        }
    }

    /**
     * Per class, log2 of the largest power of two not above the class's size: a granule of that many
     * bytes holds at most one block start, so it can hold the block's state byte ({@link UnitStates}).
     */
    static final int[] GRANULE_SHIFT = new int[COUNT];
    /**
     * Per class, log2 of the alignment of every block start within a unit: the size's power-of-two
     * factor (spans start on a unit boundary, so block {@code i} starts at {@code i * size}). A start
     * lies in its granule at one of at most four such steps ({@code size} is 16 times 1 to 8, or
     * 4 to 8 times a power of two).
     */
    static final int[] START_SHIFT = new int[COUNT];

    static {
        for (int c = 0; c < COUNT; c++) {
            GRANULE_SHIFT[c] = 63 - Long.numberOfLeadingZeros(SIZE[c]);
            START_SHIFT[c] = Long.numberOfTrailingZeros(SIZE[c]);
        }
    }

    private SizeClasses() {
    }

    /**
     * @param size 0 to {@link #MAX_SMALL}
     * @return the index of the smallest class of at least {@code size} bytes (class 0 for size 0)
     */
    static int of(long size) {
        if (size <= 128) {
            return size == 0 ? 0 : (int) ((size - 1) >>> 4);
        }
        int k = 63 - Long.numberOfLeadingZeros(size - 1);
        int j = (int) (((size - 1) >>> (k - 2)) & 3);
        return 8 + ((k - 7) << 2) + j;
    }

    /**
     * @param size      0 to {@link #MAX_SMALL}
     * @param alignment a power of two, at most {@link #MAX_SMALL}
     * @return the smallest class of at least {@code size} bytes whose size is a multiple of {@code alignment}
     */
    static int of(long size, long alignment) {
        int c = of(Math.max(size, alignment));
        while ((SIZE[c] & (alignment - 1)) != 0) {
            c++;
        }
        return c;
    }
}
