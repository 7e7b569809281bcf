package dev.offheap.memory.alloc;

/**
 * One thread's cache of free blocks in a {@link PooledAllocator}, a stack of addresses per size
 * class. Only its thread reads or writes it, with plain accesses, until the thread has ended; then
 * (and only then) the allocator's sweep returns its blocks to the central pools. The counters are
 * per thread so that the fast path has no shared write; a block freed by another thread is counted
 * down in that thread's cache, so one cache's counters may go negative, and only their sum over all
 * caches means something.
 */
final class ThreadCache extends ThreadCacheFields {
    // Padding after the hot fields (see ThreadCachePadding): the collector may move two threads'
    // caches next to each other, and a shared cache line would make two threads slower than one.
    long q0, q1, q2, q3, q4, q5, q6, q7;

    ThreadCache(Thread thread, int sampleCountdown) {
        super(thread, sampleCountdown);
    }
}

/** Padding before the hot fields; the JVM lays out a superclass's fields before a subclass's. */
abstract class ThreadCachePadding {
    long p0, p1, p2, p3, p4, p5, p6, p7;
}

/** The fields of {@link ThreadCache}. */
abstract class ThreadCacheFields extends ThreadCachePadding {
    /** Bytes of blocks a cache keeps per class, before half of them go back to the central pool. */
    private static final long BYTES_PER_CLASS = 128 * 1024;
    private static final int MIN_ENTRIES = 8;
    private static final int MAX_ENTRIES = 256;
    /** 16 ints: a cache line between the counts and whatever lies next to the array. */
    static final int COUNT_OFFSET = 16;

    final Thread thread;
    final long[][] blocks = new long[SizeClasses.COUNT][];
    /** Counts at {@code COUNT_OFFSET + class}: the array's ends, next to other objects, stay untouched. */
    final int[] counts = new int[SizeClasses.COUNT + 2 * COUNT_OFFSET];
    long allocatedBytes;
    long liveAllocations;
    /** Allocations until the next one is tracked (SAMPLED), or until the counter is simply reset. */
    int sampleCountdown;

    ThreadCacheFields(Thread thread, int sampleCountdown) {
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
            sum += counts[COUNT_OFFSET + c] * SizeClasses.SIZE[c];
        }
        return sum;
    }
}
