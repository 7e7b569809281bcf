package dev.offheap.memory.alloc;

/**
 * One thread's cache of free blocks in a {@link PooledAllocator}, a stack of addresses per size
 * class. Only its thread reads or writes it, with plain accesses, until the thread has ended; then
 * (and only then) the allocator's sweep returns its blocks to the central pools. The counters are
 * per thread so that the fast path has no shared write; a block freed by another thread is counted
 * down in that thread's cache, so one cache's counters may go negative, and only their sum over all
 * caches means something.
 */
final class ThreadCache {
    /** Bytes of blocks a cache keeps per class, before half of them go back to the central pool. */
    private static final long BYTES_PER_CLASS = 128 * 1024;
    private static final int MIN_ENTRIES = 8;
    private static final int MAX_ENTRIES = 256;

    final Thread thread;
    final long[][] blocks = new long[SizeClasses.COUNT][];
    final int[] counts = new int[SizeClasses.COUNT];
    long allocatedBytes;
    long liveAllocations;
    /** Allocations until the next one is tracked (SAMPLED), or until the counter is simply reset. */
    int sampleCountdown;

    ThreadCache(Thread thread, int sampleCountdown) {
        this.thread = thread;
        this.sampleCountdown = sampleCountdown;
    }

    static int capacity(int sizeClass) {
        return (int) Math.max(MIN_ENTRIES, Math.min(MAX_ENTRIES, BYTES_PER_CLASS / SizeClasses.SIZE[sizeClass]));
    }

    long[] bin(int sizeClass) {
        long[] bin = blocks[sizeClass];
        if (bin == null) {
            bin = new long[capacity(sizeClass)];
            blocks[sizeClass] = bin;
        }
        return bin;
    }

    /** @return the bytes of free blocks this cache holds */
    long cachedBytes() {
        long sum = 0;
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            sum += counts[c] * SizeClasses.SIZE[c];
        }
        return sum;
    }
}
