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
                        Map.of("bytes", List.of("32768")),
                        // smoke: one kind and one region length for the kind-profile classes, whose every fork first
                        // runs each loop 2,000 times on all three kinds (six forks a method instead of one took
                        // about 3 of CI's minutes)
                        Map.of("bytes", List.of("32768"), "kind", List.of("native"), "len", List.of("16")), null,
                        segmentGoals(), null),
                new Suite("buffers", "dev.offheap.bench.buffers",
                        "96 MiB written as ints into 4 KiB and 4 MiB blocks: heap and direct ByteBuffers, "
                                + "native segments, pages, mapped files on disk and in /dev/shm",
                        Map.of("blockSize", List.of("4194304")), Map.of("blockSize", List.of("4194304")), null,
                        bufferGoals(), null),
                new Suite("manager", "dev.offheap.bench.manager",
                        "MemoryManager allocate+release of 1 and 64 pages at 1 and 2 threads, against Flink's "
                                + "off-heap pages and an Arena per page; Budget against Arrow's Accountant",
                        Map.of("pageCount", List.of("1")), Map.of("pageCount", List.of("1")), null,
                        managerGoals(), null),
                new Suite("cache", "dev.offheap.bench.cache",
                        "OffHeapCache gets, bulk gets (also through JCache), puts and a 90/10 mix at 100 B and 100 KB values, 1 and 2 threads, "
                                + "against Caffeine and OHC; bandwidth against MemorySegment.copy; bytes per entry "
                                + "(NMT); hit ratio on Zipf and scan streams; JCache puts with a synchronous listener",
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
                        List.of(),
                        new CacheGoals()),
                new Suite("alloc", "dev.offheap.bench.alloc",
                        "allocate+touch+free of 16 B to 64 KiB at 1 and 2 threads: the library's pooled, stack and "
                                + "native allocators against malloc, calloc, mimalloc, the Arenas, direct ByteBuffers, "
                                + "Netty and a bump allocator; fragmentation",
                        Map.of("bytes", List.of("16", "65536"), "allocations", List.of("20000")),
                        // smoke: one size, fewer allocations in the fragmentation workload
                        Map.of("bytes", List.of("16"), "allocations", List.of("2000")),
                        null,
                        allocGoals(),
                        null)));
    }

    /**
     * The goals of segment access, as the issue states them: per access pattern the {@code library} variant (the
     * documented way on a native segment or page) against the array baseline of its class, at every size; the
     * library's helpers on call sites that saw heap, native and mapped segments against the same helpers where
     * one kind was seen (per kind and region length); and {@code Segments.copy} and {@code Segments.fill} against
     * the best bandwidth of the run (memcpy or memset through the Linker, and the JDK's own copy and fill).
     */
    static List<Goal> segmentGoals() {
        List<Goal> goals = new java.util.ArrayList<>();
        Map<String, String> baselines = new java.util.LinkedHashMap<>();
        for (String pattern : List.of("Bytes", "Chunks")) {
            baselines.put("Read" + pattern + "Benchmark", "byteArray");
            baselines.put("Write" + pattern + "Benchmark", "byteArray");
        }
        baselines.put("ReadIntsBenchmark", "intArray");
        baselines.put("WriteIntsBenchmark", "intArray");
        baselines.put("ReadLongsBenchmark", "longArray");
        baselines.put("WriteLongsBenchmark", "longArray");
        baselines.forEach((benchmark, array) -> goals.add(Goal.atMostSlower("The library's way within 1.10x of "
                + array + "[]: " + benchmark.replace("Benchmark", ""), 1.10, Goal.Variant.of(benchmark, "library"),
                Goal.Variant.of(benchmark, array))));
        // benchmark method, the Segments helper it calls
        String[][] helpers = {{"compare", "compareUnsigned"}, {"swap", "swap"}, {"hash", "hash64"},
            {"bigEndian", "putLongBE/getLongBE"}};
        for (String[] helper : helpers) {
            goals.add(Goal.atMostSlower("Segments." + helper[1] + " with heap, native and mapped segments in use:"
                    + " within 1.20x of one kind alone", 1.20, Goal.Variant.of("MixedKindBenchmark", helper[0]),
                    Goal.Variant.of("ExclusiveKindBenchmark", helper[0])));
        }
        goals.add(Goal.faster("Segments.copy at 90% or more of the best copy bandwidth (memcpy, MemorySegment.copy)",
                0.9, Goal.Variant.of("BulkCopyBenchmark", "segmentsCopy"), Goal.Variant.of("BulkCopyBenchmark", "memcpy"),
                Goal.Variant.of("BulkCopyBenchmark", "segmentCopy")));
        goals.add(Goal.faster("Segments.fill at 90% or more of the best fill bandwidth (memset, MemorySegment.fill)",
                0.9, Goal.Variant.of("BulkFillBenchmark", "segmentsFill"), Goal.Variant.of("BulkFillBenchmark", "memset"),
                Goal.Variant.of("BulkFillBenchmark", "segmentFill")));
        return List.copyOf(goals);
    }

    /**
     * The goals of the page manager's allocation, as the issue states them: allocate+release of one page
     * ({@code pageCount=1}), and of 64 pages as one page group ({@code pageCount=64}, docs/memory.md).
     */
    static List<Goal> managerGoals() {
        String one = "PageAllocationBenchmark";
        Goal.Variant manager = Goal.Variant.of(one, "managerConfined");
        return List.of(
                Goal.faster("MemoryManager allocate+release of one page at least 5x faster than Flink's off-heap page "
                        + "allocation (MemorySegmentFactory.allocateOffHeapUnsafeMemory + free)", 5, manager,
                        Goal.Variant.of(one, "flinkUnsafe")).at("pageCount", "1"),
                Goal.faster("The same, 64 pages allocated and released as one PageGroup (allocateGroup)", 5,
                        Goal.Variant.of(one, "groupConfined"), Goal.Variant.of(one, "flinkUnsafe"))
                        .at("pageCount", "64"),
                Goal.faster("MemoryManager allocate+release of one page at least 100x faster than an Arena.ofShared() "
                        + "per page", 100, manager, Goal.Variant.of(one, "arenaShared")).at("pageCount", "1"),
                Goal.faster("MemoryManager at 2 threads: at least 1.6x the 1-thread throughput, one page", 1.6,
                        Goal.Variant.of("PageAllocationTwoThreadsBenchmark", "managerConfined").threads(2),
                        manager.threads(1)).at("pageCount", "1"));
    }

    /**
     * The goal of the buffers experiment: the heap the manager and its pages cost with 4 KiB pages
     * ({@code blockSize=4096}), the 4 MiB row shown for comparison.
     */
    static List<Goal> bufferGoals() {
        String heap = "BufferHeapCostBenchmark";
        return List.of(
                Goal.valueAtMost("Heap cost of the manager and its pages at most 1% of the managed memory with 4 KiB "
                        + "pages (heapPercentOfData; the 4 MiB row for comparison)", 1.0,
                        Goal.Variant.of(heap, "managerPagesOnDemand").metric("heapPercentOfData"))
                        .at("blockSize", "4096").withOthersForComparison(),
                Goal.valueAtMost("The same, the pages held as one PageGroup (allocateGroup)", 1.0,
                        Goal.Variant.of(heap, "managerPageGroupOnDemand").metric("heapPercentOfData"))
                        .at("blockSize", "4096").withOthersForComparison(),
                Goal.value("Heap cost of 4 KiB direct ByteBuffers, % of the data (reported)",
                        Goal.Variant.of(heap, "directByteBuffers").metric("heapPercentOfData")).at("blockSize", "4096"));
    }

    /** The goals of the allocation shootout, as the issue states them. */
    static List<Goal> allocGoals() {
        String u = "UninitializedAllocationBenchmark";
        String u2 = "UninitializedAllocationTwoThreadsBenchmark";
        String z = "ZeroedAllocationBenchmark";
        String f = "FragmentationBenchmark";
        Goal.Variant pooled = Goal.Variant.of(u, "pooled");
        return List.of(
                Goal.faster("Pooled (no zeroing) at least 1.5x faster than the faster of malloc and mimalloc, "
                        + "at every size", 1.5, pooled, Goal.Variant.of(u, "malloc"), Goal.Variant.of(u, "mimalloc")),
                Goal.faster("Pooled (zeroing) at least 3x faster than Arena.ofConfined()", 3,
                        Goal.Variant.of(z, "pooled"), Goal.Variant.of(z, "arenaConfined")),
                Goal.faster("Pooled at least 5x faster than Netty's pooled direct buffers (the faster of its two "
                        + "configurations)", 5, pooled, Goal.Variant.of(u, "nettyPooled"),
                        Goal.Variant.of(u, "nettyPooledUnsafe")),
                Goal.atMostSlower("Pooled at 2 threads: time per operation at most 1.25x that at 1 thread", 1.25,
                        Goal.Variant.of(u2, "pooled").threads(2), pooled.threads(1)),
                Goal.atMostSlower("Stack within 1.5x of the bump allocator", 1.5,
                        Goal.Variant.of(u, "stack"), Goal.Variant.of(u, "bump")),
                Goal.faster("Stack at least 3x faster than malloc", 3,
                        Goal.Variant.of(u, "stack"), Goal.Variant.of(u, "malloc")),
                Goal.atMostSlower("Pooled in SAMPLED debug mode at most 1.15x the time of plain pooled (OFF)", 1.15,
                        Goal.Variant.of(u, "pooledSampled"), pooled),
                Goal.slowdown("Pooled in FULL debug mode: how much slower than plain pooled (reported)",
                        Goal.Variant.of(u, "pooledFull"), pooled),
                Goal.valueAtMost("Fragmentation: pooled footprintBytes() / allocatedBytes() after trim() at most 1.5",
                        1.5, Goal.Variant.of(f, "pooled").metric("trimmedFootprintRatio")),
                Goal.value("Fragmentation: pooled footprintBytes() / allocatedBytes() before trim() (reported)",
                        Goal.Variant.of(f, "pooled").metric("footprintRatio")),
                Goal.value("Fragmentation: glibc malloc's held bytes (mallinfo2) / allocated bytes (reported)",
                        Goal.Variant.of(f, "malloc").metric("footprintRatio")),
                Goal.value("Fragmentation: mimalloc's committed bytes / allocated bytes (reported)",
                        Goal.Variant.of(f, "mimalloc").metric("footprintRatio")));
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
