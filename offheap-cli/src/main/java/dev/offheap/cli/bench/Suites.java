package dev.offheap.cli.bench;

import java.util.List;
import java.util.Map;
import java.util.Optional;

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
                        Map.of("pageCount", List.of("1")))));
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
