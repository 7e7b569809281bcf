package dev.offheap.bench.cache;

import dev.offheap.bench.baseline.ThirdPartyForks;

/**
 * The JVM flags of the cache benchmarks' forks (annotation values must be constants, so they are
 * written out in each {@code @Fork}).
 */
final class Forks {
    /** One fork per benchmark in the annotations; the CLI's modes set their own count. */
    static final int COUNT = 1;

    /**
     * A fixed 2 GiB heap for every variant, so that the GC numbers compare like with like: Caffeine's
     * largest workload keeps 500 MB of values on it, the off-heap caches keep none.
     */
    static final String HEAP_MIN = "-Xms2g";
    /** See {@link #HEAP_MIN}. */
    static final String HEAP_MAX = "-Xmx2g";

    /** OHC's forks only (see {@link ThirdPartyForks}); the library's forks never get it. */
    static final String OHC_UNSAFE = ThirdPartyForks.UNSAFE_MEMORY_ACCESS_ALLOWED;

    private Forks() {
    }
}
