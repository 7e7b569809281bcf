package dev.offheap.bench.cache;

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

    /**
     * OHC's forks only: OHC 0.7.4 reaches its memory through {@code sun.misc.Unsafe}, whose memory-access
     * methods warn on JDK 25 (JEP 498) unless allowed. It needs no {@code --add-opens}: it finds
     * {@code java.nio.Buffer}'s fields with {@code getDeclaredField} and {@code Unsafe.objectFieldOffset},
     * which JDK 25 still permits. The library itself never uses this flag.
     */
    static final String OHC_UNSAFE = "--sun-misc-unsafe-memory-access=allow";

    private Forks() {
    }
}
