package dev.offheap.bench.alloc;

import java.lang.foreign.MemorySegment;
import java.util.Random;

/**
 * The fragmentation experiment's workload: {@code allocations} blocks of random sizes from
 * {@value #MIN_BYTES} B to {@value #MAX_BYTES} B, skewed to small ones, all allocated and filled,
 * then {@value #FREED_PERCENT}% of them freed in random order. What an allocator holds from the
 * system at that point, per byte still allocated, is its fragmentation.
 *
 * <p>Sizes: a size class {@code k = floor(12 u³)} for {@code u} uniform in [0, 1), so class 0
 * (16-32 B) has 44% of the blocks and class 11 (32-64 KiB) 3%; then a size uniform in
 * {@code [16·2^k, 32·2^k]}. The mean is about 3 KiB. Everything comes from one
 * {@link java.util.Random} with the given seed, whose sequence the JDK specifies, so a seed names the
 * same workload on every JDK.
 */
final class FragmentationWorkload {
    static final int MIN_BYTES = 16;
    static final int MAX_BYTES = 64 * 1024;
    static final int FREED_PERCENT = 90;
    private static final int SIZE_CLASSES = 12;

    /**
     * The allocator under test: allocation, free, and what it holds.
     */
    interface Heap extends AutoCloseable {
        /**
         * @param bytes the size
         * @return a segment of {@code bytes}
         */
        MemorySegment allocate(long bytes);

        /** @param segment a live allocation of this heap */
        void free(MemorySegment segment);

        /** @return the native bytes this heap holds from the system now, caches and free lists included */
        long footprintBytes();

        /** @return the bytes of its live allocations, as requested */
        long allocatedBytes();

        /** Gives cached and free memory back to the system, as far as the allocator can. */
        void trim();

        /** Frees whatever the heap itself still holds. */
        @Override
        void close();
    }

    /**
     * What an allocator held after the frees, before and after its trim.
     *
     * @param liveBytes bytes of the blocks still allocated, as requested
     * @param footprintBytes {@link Heap#footprintBytes()} after the frees
     * @param trimmedFootprintBytes the same after {@link Heap#trim()}
     * @param residentBytes growth of the process's resident set from before the first allocation
     *     to after the frees
     * @param trimmedResidentBytes the same after the trim
     */
    record Outcome(long liveBytes, long footprintBytes, long trimmedFootprintBytes, long residentBytes,
            long trimmedResidentBytes) {
    }

    private final long[] sizes;
    private final int[] freeOrder;
    private final int freeCount;

    private FragmentationWorkload(long[] sizes, int[] freeOrder, int freeCount) {
        this.sizes = sizes;
        this.freeOrder = freeOrder;
        this.freeCount = freeCount;
    }

    /**
     * @param allocations the number of blocks, at least 10 so that some are freed and some stay
     * @param seed the seed of the sizes and of the order of the frees
     * @return the workload
     * @throws IllegalArgumentException if {@code allocations} is below 10
     */
    static FragmentationWorkload create(int allocations, long seed) {
        if (allocations < 10) {
            throw new IllegalArgumentException("allocations must be at least 10, got " + allocations);
        }
        Random random = new Random(seed);
        long[] sizes = new long[allocations];
        for (int i = 0; i < allocations; i++) {
            double u = random.nextDouble();
            int k = Math.min(SIZE_CLASSES - 1, (int) (SIZE_CLASSES * u * u * u));
            long low = (long) MIN_BYTES << k;
            sizes[i] = low + random.nextLong(low + 1);
        }
        int[] order = new int[allocations];
        for (int i = 0; i < allocations; i++) {
            order[i] = i;
        }
        for (int i = allocations - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return new FragmentationWorkload(sizes, order, (int) ((long) allocations * FREED_PERCENT / 100));
    }

    /** @return the number of blocks allocated */
    int allocations() {
        return sizes.length;
    }

    /**
     * @param i a block index
     * @return its size
     */
    long size(int i) {
        return sizes[i];
    }

    /** @return the number of blocks freed before the footprint is read */
    int freeCount() {
        return freeCount;
    }

    /**
     * @param i an index below {@link #allocations()}
     * @return the block freed {@code i}-th
     */
    int freedAt(int i) {
        return freeOrder[i];
    }

    /** @return the bytes of all blocks */
    long totalBytes() {
        long sum = 0;
        for (long s : sizes) {
            sum += s;
        }
        return sum;
    }

    /** @return the bytes of the blocks that stay allocated after the frees */
    long liveBytes() {
        long live = totalBytes();
        for (int i = 0; i < freeCount; i++) {
            live -= sizes[freeOrder[i]];
        }
        return live;
    }

    /**
     * Runs the workload on a heap: allocates and fills every block, frees 90% of them, reads the
     * footprint, trims, reads it again, then frees the rest.
     *
     * @param heap the allocator; not closed here
     * @return what it held
     */
    Outcome run(Heap heap) {
        long residentBefore = Libc.residentBytes();
        MemorySegment[] blocks = new MemorySegment[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            // filled, not only touched at the ends: the resident set then counts whole blocks
            blocks[i] = heap.allocate(sizes[i]).fill((byte) i);
        }
        for (int i = 0; i < freeCount; i++) {
            int b = freeOrder[i];
            heap.free(blocks[b]);
            blocks[b] = null;
        }
        long live = liveBytes();
        if (heap.allocatedBytes() != live) {
            throw new IllegalStateException("the heap reports " + heap.allocatedBytes()
                    + " bytes allocated, but the live blocks have " + live);
        }
        long footprint = heap.footprintBytes();
        long resident = Libc.residentBytes() - residentBefore;
        heap.trim();
        long trimmedFootprint = heap.footprintBytes();
        long trimmedResident = Libc.residentBytes() - residentBefore;
        for (MemorySegment block : blocks) {
            if (block != null) {
                heap.free(block);
            }
        }
        return new Outcome(live, footprint, trimmedFootprint, resident, trimmedResident);
    }
}
