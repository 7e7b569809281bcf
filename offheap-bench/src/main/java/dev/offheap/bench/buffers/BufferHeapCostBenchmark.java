package dev.offheap.bench.buffers;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.PageAccess;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Seed 003's other column: how many bytes of Java heap the blocks holding 96 MiB cost, for the
 * same block kinds and sizes as {@link BufferRoundBenchmark} (heap ByteBuffers are the baseline
 * and cost the 96 MiB themselves). This checks the goal <em>heap cost of the manager and its pages
 * at most 1% of the managed memory with 4 KiB pages</em> (seed 003: 4 KiB direct buffers cost
 * 3 MB of heap for 96 MB).
 *
 * <p>How: each invocation is one measurement. It reads the heap in use after two
 * {@code System.gc()} calls, creates all blocks (kept strongly reachable), reads it again the
 * same way, and reports the difference through {@link HeapCost} (JMH secondary metrics, one
 * invocation per iteration in {@link Mode#SingleShotTime}; the score is the mean of the
 * measurements); then it releases or drops the blocks. Dropped direct and mapped ByteBuffers are
 * waited for until the JDK's cleaner thread has freed them, so that their cleanup objects are not
 * in the next invocation's first reading (they were: every measurement after the first counted
 * about half of those buffers' heap cost). The primary
 * score, time, includes the collections and means nothing here. Only Java heap is counted: the
 * blocks' native memory, the JDK's malloc headers and page tables are not.
 *
 * <p>Secondary metrics:
 * <ul>
 * <li>{@code heapBytes}: the heap cost of everything that holds the 96 MiB: the blocks, their
 *     arenas, and for the manager variants the manager itself plus the pages the owner holds.
 * <li>{@code heapPercentOfData}: {@code heapBytes} as a percentage of the 96 MiB held; the
 *     goal is at most 1.0 for {@code managerPages*} with {@code blockSize = 4096}.
 * <li>{@code managerBytes}, {@code pageBytes} (manager variants only): the manager's own
 *     bookkeeping (heap after {@code build()} minus before) and what allocating all pages to one
 *     owner added (the segment objects the owner holds, the list, the manager's per-owner and
 *     per-page tracking).
 * </ul>
 * <p>Scale of the goal: 1% of a 4 KiB page is 41 bytes of heap per page, everything included.
 * {@code nativeSlicesOfOneSegment} is the floor for any design that hands out one
 * {@code MemorySegment} object per block: the segment objects and the array holding them, nothing
 * else (every block shares one scope, so none can be revoked alone).
 *
 * <p> * {@code managerPagesPreallocated} builds the manager with {@code preallocate(true)},
 * {@code managerPagesOnDemand} with {@code preallocate(false)}; both 96 MiB, NATIVE, CONFINED,
 * {@code pageSize = blockSize}, no MBean. {@code managerPageGroupOnDemand} is the on-demand manager with
 * the pages allocated as one {@code PageGroup} ({@code allocateGroup}): what it keeps is the group and
 * each page's number, no segment per page (a segment is made when a page is asked for).
 * The other variants are as in {@link BufferRoundBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class BufferHeapCostBenchmark {

    @Param({"4096", "4194304"})
    public int blockSize;

    /**
     * Secondary metrics. JMH sums {@code EVENTS} counters over all measured iterations of all
     * forks, so each measurement is recorded divided by that count: the reported score is then
     * the mean of the measurements (each iteration's raw value is its measurement divided by the
     * count). Warm-up iterations are not reported.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class HeapCost {
        public double heapBytes;
        public double heapPercentOfData;
        public double managerBytes;
        public double pageBytes;

        private double measurements = 1;

        @Setup(Level.Trial)
        public void countMeasurements(BenchmarkParams params) {
            if (params.getMode() != Mode.SingleShotTime || params.getMeasurement().getBatchSize() != 1) {
                throw new IllegalStateException("heap cost needs one invocation per iteration: "
                        + "SingleShotTime with batch size 1, not " + params.getMode() + " with batch size "
                        + params.getMeasurement().getBatchSize());
            }
            measurements = (double) params.getMeasurement().getCount() * Math.max(1, params.getForks());
        }

        @Setup(Level.Iteration)
        public void reset() {
            heapBytes = 0;
            heapPercentOfData = 0;
            managerBytes = 0;
            pageBytes = 0;
        }

        void record(long bytes) {
            heapBytes = bytes / measurements;
            heapPercentOfData = 100.0 * bytes / BufferExperiment.TOTAL_BYTES / measurements;
        }

        void recordManager(long manager, long pages) {
            managerBytes = manager / measurements;
            pageBytes = pages / measurements;
        }
    }

    @Benchmark
    @Baseline
    public void heapByteBuffers(HeapCost cost, Blackhole bh) {
        long before = BufferExperiment.usedHeapAfterGc();
        ByteBuffer[] blocks = BufferExperiment.heapBuffers(blockSize);
        cost.record(BufferExperiment.usedHeapAfterGc() - before);
        bh.consume(blocks);
    }

    @Benchmark
    public void directByteBuffers(HeapCost cost, Blackhole bh) {
        long buffers = BufferExperiment.byteBuffersNotFreed();
        measureDirectBuffers(cost, bh);
        // dropped, as in the round benchmark; freed here, so that the next invocation's first reading
        // does not count their cleanup objects (see BufferExperiment.awaitByteBuffersFreed)
        BufferExperiment.awaitByteBuffersFreed(buffers);
    }

    private void measureDirectBuffers(HeapCost cost, Blackhole bh) {
        long before = BufferExperiment.usedHeapAfterGc();
        ByteBuffer[] blocks = BufferExperiment.directBuffers(blockSize);
        cost.record(BufferExperiment.usedHeapAfterGc() - before);
        bh.consume(blocks);
    }

    @Benchmark
    public void nativeSegmentsOneArenaPerRound(HeapCost cost, Blackhole bh) {
        long before = BufferExperiment.usedHeapAfterGc();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.nativeSegments(arena, blockSize);
            cost.record(BufferExperiment.usedHeapAfterGc() - before);
            bh.consume(blocks);
        }
    }

    @Benchmark
    public void nativeSlicesOfOneSegment(HeapCost cost, Blackhole bh) {
        long before = BufferExperiment.usedHeapAfterGc();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.slicesOfOneSegment(arena, blockSize);
            cost.record(BufferExperiment.usedHeapAfterGc() - before);
            bh.consume(blocks);
        }
    }

    @Benchmark
    public void nativeSegmentsArenaPerBlock(HeapCost cost, Blackhole bh) {
        long before = BufferExperiment.usedHeapAfterGc();
        int count = BufferExperiment.blockCount(blockSize);
        Arena[] arenas = new Arena[count];
        MemorySegment[] blocks = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            arenas[i] = Arena.ofConfined();
            blocks[i] = arenas[i].allocate(blockSize, Long.BYTES);
        }
        cost.record(BufferExperiment.usedHeapAfterGc() - before);
        bh.consume(blocks);
        for (Arena arena : arenas) {
            arena.close();
        }
    }

    @Benchmark
    public void managerPagesPreallocated(HeapCost cost, Blackhole bh) {
        measureManager(true, false, cost, bh);
    }

    @Benchmark
    public void managerPagesOnDemand(HeapCost cost, Blackhole bh) {
        measureManager(false, false, cost, bh);
    }

    @Benchmark
    public void managerPageGroupOnDemand(HeapCost cost, Blackhole bh) {
        measureManager(false, true, cost, bh);
    }

    private void measureManager(boolean preallocate, boolean grouped, HeapCost cost, Blackhole bh) {
        Object owner = new Object();
        long before = BufferExperiment.usedHeapAfterGc();
        MemoryManager manager = MemoryManager.builder()
                .name("buffers-heap-cost")
                .totalSize(BufferExperiment.TOTAL_BYTES)
                .pageSize(blockSize)
                .type(MemoryType.NATIVE)
                .pageAccess(PageAccess.CONFINED)
                .preallocate(preallocate)
                .registerMBean(false)
                .build();
        try {
            long built = BufferExperiment.usedHeapAfterGc();
            Object pages = grouped ? manager.allocateGroup(owner, BufferExperiment.blockCount(blockSize))
                    : manager.allocatePages(owner, BufferExperiment.blockCount(blockSize));
            long allocated = BufferExperiment.usedHeapAfterGc();
            cost.record(allocated - before);
            cost.recordManager(built - before, allocated - built);
            bh.consume(pages);
            manager.releaseAll(owner);
        } finally {
            manager.close();
        }
    }

    @Benchmark
    public void mappedFileByteBuffers(BufferRoundBenchmark.DiskFile file, HeapCost cost, Blackhole bh)
            throws IOException {
        measureMappedBuffers(file.path, cost, bh);
    }

    @Benchmark
    public void mappedFileSegments(BufferRoundBenchmark.DiskFile file, HeapCost cost, Blackhole bh)
            throws IOException {
        measureMappedSegments(file.path, cost, bh);
    }

    @Benchmark
    public void shmFileByteBuffers(BufferRoundBenchmark.ShmFile file, HeapCost cost, Blackhole bh)
            throws IOException {
        measureMappedBuffers(file.path, cost, bh);
    }

    @Benchmark
    public void shmFileSegments(BufferRoundBenchmark.ShmFile file, HeapCost cost, Blackhole bh)
            throws IOException {
        measureMappedSegments(file.path, cost, bh);
    }

    private void measureMappedBuffers(Path file, HeapCost cost, Blackhole bh) throws IOException {
        long buffers = BufferExperiment.byteBuffersNotFreed();
        measureMappedBuffersOnce(file, cost, bh);
        // dropped to the GC, which is what unmaps them; unmapped here, so that the next invocation's
        // first reading does not count their cleanup objects (see BufferExperiment.awaitByteBuffersFreed)
        BufferExperiment.awaitByteBuffersFreed(buffers);
    }

    private void measureMappedBuffersOnce(Path file, HeapCost cost, Blackhole bh) throws IOException {
        long before = BufferExperiment.usedHeapAfterGc();
        try (FileChannel channel = BufferExperiment.openReadWrite(file)) {
            ByteBuffer[] blocks = BufferExperiment.mappedBuffers(channel, blockSize);
            cost.record(BufferExperiment.usedHeapAfterGc() - before);
            bh.consume(blocks);
        }
    }

    private void measureMappedSegments(Path file, HeapCost cost, Blackhole bh) throws IOException {
        long before = BufferExperiment.usedHeapAfterGc();
        try (FileChannel channel = BufferExperiment.openReadWrite(file); Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.mappedSegments(channel, arena, blockSize);
            cost.record(BufferExperiment.usedHeapAfterGc() - before);
            bh.consume(blocks);
        }
    }
}
