package dev.offheap.cli.bench;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The registry of benchmark suites that {@code offheap bench} knows. A suite is the JMH benchmarks
 * of one package of offheap-bench; adding a suite is one entry here.
 *
 * @param all the suites, in the order they are listed
 */
public record Suites(List<Suite> all) {
    /** Copies the list. */
    public Suites {
        all = List.copyOf(all);
    }

    /** @return the suites of offheap-bench */
    public static Suites standard() {
        return new Suites(List.of(
                new Suite("segments", "dev.offheap.bench.segments",
                        "reads and writes of bytes, ints, longs and byte[] chunks on byte[], ByteBuffers, "
                                + "heap, native and mapped segments and pages; mixed vs exclusive call sites; "
                                + "bulk copy vs memcpy",
                        Map.of("bytes", List.of("32768"))),
                new Suite("buffers", "dev.offheap.bench.buffers",
                        "96 MiB written as ints into 4 KiB and 4 MiB blocks: heap and direct ByteBuffers, "
                                + "native segments, pages, mapped files on disk and in /dev/shm",
                        Map.of("blockSize", List.of("4194304"))),
                new Suite("manager", "dev.offheap.bench.manager",
                        "MemoryManager allocate+release of 1 and 64 pages at 1 and 2 threads, against Flink's "
                                + "off-heap pages and an Arena per page; Budget against Arrow's Accountant",
                        Map.of("pageCount", List.of("1"))),
                new Suite("cache", "dev.offheap.bench.cache",
                        "OffHeapCache gets, puts and a 90/10 mix at 100 B and 100 KB values, 1 and 2 threads, "
                                + "against Caffeine and OHC; bandwidth against MemorySegment.copy; bytes per entry "
                                + "(NMT); hit ratio on Zipf and scan streams",
                        // quick: the same value sizes with a tenth of the keys or fewer, so that filling
                        // a cache takes a fraction of a second per fork
                        Map.of("workload", List.of("100000x100", "1000x100000"),
                                "capacityMiB", List.of("32"),
                                "accesses", List.of("400000")),
                        Map.of("workload", List.of("2000x100", "20x100000"),
                                "capacityMiB", List.of("4"),
                                "accesses", List.of("20000")),
                        // the goals compare the GC time of the 90/10 mix
                        Pattern.compile("\\.CacheMix"),
                        new CacheGoals())));
    }

    /**
     * @param name a suite name
     * @return the suite, if there is one of that name
     */
    public Optional<Suite> find(String name) {
        return all.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** @return the suite names, comma-separated */
    public String names() {
        return String.join(", ", all.stream().map(Suite::name).toList());
    }
}
