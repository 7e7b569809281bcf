package dev.offheap.bench.alloc;

import dev.offheap.bench.Baseline;
import dev.offheap.bench.Requires;
import dev.offheap.memory.alloc.DebugMode;
import dev.offheap.memory.alloc.PooledAllocator;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The fragmentation experiment: the {@link FragmentationWorkload} (a seeded mix of
 * {@code allocations} blocks of 16 B to 64 KiB, skewed to small, all allocated and filled, then 90%
 * freed in random order) on each allocator, and what the allocator holds from the system afterwards
 * per byte still allocated. The goal: the pooled allocator's footprint at most 1.5 times its
 * allocated bytes after {@code trim()}.
 *
 * <p>Each invocation is one run of the workload on a fresh allocator ({@link Mode#SingleShotTime},
 * one invocation per iteration); the primary score, its time, includes filling every block and is
 * secondary here. The footprint is that of the <em>first</em> run in each fork, reported in every
 * iteration: glibc and mimalloc keep freed memory for reuse (glibc's arenas did not shrink at all
 * after a run in a test on this machine), so a later run in the same process starts with memory
 * held from the earlier one and would read its growth as about zero. Only the first run in a fresh
 * JVM compares allocators fairly; more forks give more samples. The results are secondary metrics
 * ({@link Footprint}), each the mean over the forks:
 * <ul>
 * <li>{@code liveBytes}: bytes still allocated after the frees, as requested.
 * <li>{@code footprintRatio}: bytes held from the system / {@code liveBytes}, after the frees.
 * <li>{@code trimmedFootprintRatio}: the same after the allocator's trim.
 * <li>{@code rssRatio}, {@code trimmedRssRatio}: growth of the process's resident set since before
 *     the first allocation / {@code liveBytes}, before and after the trim. Process-wide, so the JVM's
 *     own work adds noise; the forks fix the heap size and pre-touch it so the Java heap adds none.
 * </ul>
 * How each variant's "held from the system" is read:
 * <ul>
 * <li>{@code malloc} (baseline): glibc's {@code mallinfo2}, {@code arena + hblkhd} (bytes malloc
 *     got from the kernel for its arenas and mmapped chunks), its growth since before the run; trim
 *     is {@code malloc_trim(0)}. This counts the same thing as {@code footprintBytes()}: memory held,
 *     resident or not. It is process-wide: what JVM threads malloc meanwhile is included (small
 *     next to the workload's megabytes). {@code malloc_trim} returns free pages in the middle of an
 *     arena with {@code madvise}, which {@code mallinfo2} does not see but the resident set does.
 * <li>{@code mimalloc}: {@code current_commit} of {@code mi_process_info}, its growth since before
 *     the run (only the workload uses mimalloc in the fork); trim is {@code mi_collect(true)}.
 * <li>{@code pooled}: a fresh {@code PooledAllocator} (debug OFF) per run,
 *     {@code allocateUninitialized} and {@code free}; its own {@code footprintBytes()} over its
 *     {@code allocatedBytes()}, before and after {@code trim()}.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
public class FragmentationBenchmark {

    /** Blocks allocated per run. */
    @Param({"20000", "100000"})
    public int allocations;

    /** Seed of the sizes and of the order of the frees. */
    @Param({"42"})
    public long seed;

    FragmentationWorkload workload;

    /** Draws the workload. */
    @Setup(Level.Trial)
    public void draw() {
        workload = FragmentationWorkload.create(allocations, seed);
    }

    /**
     * The results, as JMH secondary metrics. JMH sums {@code EVENTS} counters over all measured
     * iterations of all forks, so each iteration records the fork's first run divided by that count:
     * the reported score is the mean of the forks' first runs.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Footprint {
        public double liveBytes;
        public double footprintRatio;
        public double trimmedFootprintRatio;
        public double rssRatio;
        public double trimmedRssRatio;

        private double measurements = 1;
        private FragmentationWorkload.Outcome first;

        /**
         * @param params the run's settings
         * @throws IllegalStateException unless each iteration is exactly one invocation
         */
        @Setup(Level.Trial)
        public void countMeasurements(BenchmarkParams params) {
            if (params.getMode() != Mode.SingleShotTime || params.getMeasurement().getBatchSize() != 1) {
                throw new IllegalStateException("the fragmentation experiment needs one invocation per iteration: "
                        + "SingleShotTime with batch size 1, not " + params.getMode() + " with batch size "
                        + params.getMeasurement().getBatchSize());
            }
            measurements = (double) params.getMeasurement().getCount() * Math.max(1, params.getForks());
        }

        /** Clears the previous iteration's values. */
        @Setup(Level.Iteration)
        public void reset() {
            liveBytes = 0;
            footprintRatio = 0;
            trimmedFootprintRatio = 0;
            rssRatio = 0;
            trimmedRssRatio = 0;
        }

        void record(FragmentationWorkload.Outcome run) {
            if (first == null) {
                first = run;
            }
            FragmentationWorkload.Outcome outcome = first;
            double live = outcome.liveBytes();
            liveBytes = live / measurements;
            footprintRatio = outcome.footprintBytes() / live / measurements;
            trimmedFootprintRatio = outcome.trimmedFootprintBytes() / live / measurements;
            rssRatio = outcome.residentBytes() / live / measurements;
            trimmedRssRatio = outcome.trimmedResidentBytes() / live / measurements;
        }
    }

    @Benchmark
    @Baseline
    public long malloc(Footprint footprint) {
        try (CAllocatorHeap heap = new CAllocatorHeap(Libc.HEAP, Libc::mallocFootprint, Libc::mallocTrim)) {
            footprint.record(workload.run(heap));
        }
        return workload.allocations();
    }

    @Benchmark
    @Requires(Mimalloc.Installed.class)
    public long mimalloc(AllocStates.MimallocLoaded loaded, Footprint footprint) {
        try (CAllocatorHeap heap = new CAllocatorHeap(Mimalloc.HEAP, Mimalloc::committedBytes, Mimalloc::collect)) {
            footprint.record(workload.run(heap));
        }
        return workload.allocations();
    }

    /**
     * A C allocator (malloc or mimalloc) as the workload's heap. It counts requested bytes itself: neither
     * C allocator reports them.
     */
    private static final class CAllocatorHeap implements FragmentationWorkload.Heap {
        private final CHeap heap;
        private final LongSupplier footprint;
        private final Runnable trim;
        private final long before;
        private long allocated;

        /**
         * @param heap the allocator's downcalls
         * @param footprint the bytes the allocator holds from the system, process-wide
         * @param trim returns what the allocator caches to the system
         */
        CAllocatorHeap(CHeap heap, LongSupplier footprint, Runnable trim) {
            this.heap = heap;
            this.footprint = footprint;
            this.trim = trim;
            this.before = footprint.getAsLong();
        }

        @Override
        public MemorySegment allocate(long bytes) {
            allocated += bytes;
            return heap.allocate(bytes);
        }

        @Override
        public void free(MemorySegment segment) {
            allocated -= segment.byteSize();
            heap.release(segment);
        }

        @Override
        public long footprintBytes() {
            return footprint.getAsLong() - before;
        }

        @Override
        public long allocatedBytes() {
            return allocated;
        }

        @Override
        public void trim() {
            trim.run();
        }

        @Override
        public void close() {
        }
    }

    @Benchmark
    public long pooled(Footprint footprint) {
        try (PooledHeap heap = new PooledHeap()) {
            footprint.record(workload.run(heap));
        }
        return workload.allocations();
    }

    private static final class PooledHeap implements FragmentationWorkload.Heap {
        // one allocator per measured call: no MBean, whose registration would be timed with the workload
        private final PooledAllocator allocator = PooledAllocator.builder().debug(DebugMode.OFF).registerMBean(false)
                .build();

        @Override
        public MemorySegment allocate(long bytes) {
            return allocator.allocateUninitialized(bytes);
        }

        @Override
        public void free(MemorySegment segment) {
            allocator.free(segment);
        }

        @Override
        public long footprintBytes() {
            return allocator.footprintBytes();
        }

        @Override
        public long allocatedBytes() {
            return allocator.allocatedBytes();
        }

        @Override
        public void trim() {
            allocator.trim();
        }

        @Override
        public void close() {
            allocator.close();
        }
    }
}
