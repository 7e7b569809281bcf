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
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * Seed 003 on the FFM API: the time of one round of creating blocks that add up to 96 MiB,
 * writing the whole 96 MiB with ints from the first block to the last, and releasing the blocks
 * (or, for ByteBuffers, dropping them to the garbage collector). Blocks of 4 KiB and of 4 MiB
 * ({@code blockSize}); the baseline is heap ByteBuffers, as in the seed.
 *
 * <p>Mode: {@link Mode#SingleShotTime}, one round per iteration, 24 measured rounds as in the seed
 * (their distribution is in the JSON, so the seed's 95th percentile can be read off), after 10
 * warm-up rounds, when run with the class's own settings; {@code offheap bench} sets the rounds
 * from its mode ({@code --full}: 3 warm-up and 5 measured, quick: 1 and 2). A round is long (tens to
 * hundreds of milliseconds), so timer overhead is irrelevant and the GC work that dropped
 * ByteBuffers cause lands in the rounds that pay for it.
 * The forks run with a fixed 1 GiB heap ({@code -Xms1g -Xmx1g}), so direct-memory and GC
 * behaviour do not depend on the machine's RAM, and with the seed's direct-memory limit of 256 MiB
 * ({@code -XX:MaxDirectMemorySize=256m}; the seed ran with a 256 MB heap, whose default limit that
 * is): two rounds of direct buffers fit, the third reclaims, so every mode's rounds include reclaims.
 * (With the default limit, the 1 GiB heap, ten rounds fitted: the 8 rounds of a full run allocated
 * 768 MiB of direct buffers and none was ever reclaimed, not even by a young collection.)
 *
 * <p>The variants:
 * <ul>
 * <li>{@code heapByteBuffers}: {@code ByteBuffer.allocate} per block (baseline).
 * <li>{@code directByteBuffers}: {@code ByteBuffer.allocateDirect} per block; dropped, so their
 *     native memory comes back only when the GC runs their cleaners (when the 256 MiB direct-memory
 *     limit is hit, {@code allocateDirect} itself calls {@code System.gc()} and waits).
 * <li>{@code nativeSegmentsOneArenaPerRound}: one {@code Arena.ofConfined()} per round, one
 *     {@code allocate} per block (malloc and zeroing per block), all freed by one {@code close()}.
 * <li>{@code nativeSlicesOfOneSegment}: one {@code Arena.ofConfined()} per round, one 96 MiB
 *     {@code allocate}, cut into blocks with {@code asSlice}: the least an FFM program can
 *     spend, in time and in heap, on blocks that are segments of their own.
 * <li>{@code nativeSegmentsArenaPerBlock}: one {@code Arena.ofConfined()} per block, each closed
 *     at the end of the round; the FFM equivalent of owning each block separately.
 *     ({@code Arena.ofShared()} per block is left out: its close costs tens of microseconds, so
 *     24576 of them per round would take over a second; the manager benchmarks measure it.)
 * <li>{@code managerPages}: a NATIVE {@link MemoryManager} with {@code pageSize = blockSize} and
 *     96 MiB in total, built once per trial with pre-allocation; each round allocates all pages
 *     for one owner with {@code allocatePages(owner, n)} and gives them back with
 *     {@code releaseAll(owner)}. Pages are pooled, so rounds after the first reuse memory (the
 *     design), and CONFINED (the default).
 * <li>{@code mappedFileByteBuffers} / {@code shmFileByteBuffers}: seed 003's way: a 96 MiB file
 *     (on disk in {@code -Doffheap.bench.dir}, default java.io.tmpdir; or in /dev/shm, tmpfs),
 *     one {@code FileChannel.map} per block per round, the buffers dropped to the GC (which is
 *     what unmaps them; with 4 KiB blocks, 24576 mappings per round run into the kernel's
 *     {@code vm.max_map_count} (65530 by default), and the JDK then calls {@code System.gc()} and
 *     retries; meanwhile the process cannot map anything else, so the JVM log shows
 *     {@code pthread_create failed (EAGAIN)} for GC worker threads: part of the result, not a
 *     fault of the harness).
 * <li>{@code mappedFileSegments} / {@code shmFileSegments}: the same file, one
 *     {@code FileChannel.map(..., arena)} per block into one confined arena per round, unmapped
 *     deterministically by {@code close()}.
 * </ul>
 * The file is created and sized once per trial, so rounds measure mapping and page faults, not
 * file growth; the disk file's dirty pages are written back by the kernel in the background.
 *
 * <p>Goal context: the seed found 4 KiB off-heap blocks slow to create and costly in heap; the
 * heap side is measured by {@link BufferHeapCostBenchmark}. This class gives the time side of the
 * same comparison, with MemoryManager pages next to the JDK's ways.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 10)
@Measurement(iterations = 24)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", BufferRoundBenchmark.DIRECT_MEMORY_LIMIT})
public class BufferRoundBenchmark {

    /** The seed's direct-memory limit: the third round of direct buffers has to reclaim the first's. */
    static final String DIRECT_MEMORY_LIMIT = "-XX:MaxDirectMemorySize=256m";

    @Param({"4096", "4194304"})
    public int blockSize;

    private int next;

    @Benchmark
    @Baseline
    public void heapByteBuffers(Blackhole bh) {
        ByteBuffer[] blocks = BufferExperiment.heapBuffers(blockSize);
        next = BufferExperiment.writeInts(blocks, next);
        bh.consume(blocks);
    }

    @Benchmark
    public void directByteBuffers(Blackhole bh) {
        ByteBuffer[] blocks = BufferExperiment.directBuffers(blockSize);
        next = BufferExperiment.writeInts(blocks, next);
        bh.consume(blocks);
    }

    @Benchmark
    public void nativeSegmentsOneArenaPerRound(Blackhole bh) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.nativeSegments(arena, blockSize);
            next = BufferExperiment.writeInts(blocks, next);
            bh.consume(blocks);
        }
    }

    @Benchmark
    public void nativeSlicesOfOneSegment(Blackhole bh) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.slicesOfOneSegment(arena, blockSize);
            next = BufferExperiment.writeInts(blocks, next);
            bh.consume(blocks);
        }
    }

    @Benchmark
    public void nativeSegmentsArenaPerBlock(Blackhole bh) {
        int count = BufferExperiment.blockCount(blockSize);
        Arena[] arenas = new Arena[count];
        MemorySegment[] blocks = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            arenas[i] = Arena.ofConfined();
            blocks[i] = arenas[i].allocate(blockSize, Long.BYTES);
        }
        next = BufferExperiment.writeInts(blocks, next);
        bh.consume(blocks);
        for (Arena arena : arenas) {
            arena.close();
        }
    }

    @Benchmark
    public void managerPages(ManagerState manager, Blackhole bh) {
        List<MemorySegment> pages = manager.manager.allocatePages(manager, manager.pageCount);
        next = BufferExperiment.writeInts(pages, next);
        bh.consume(pages);
        manager.manager.releaseAll(manager);
    }

    @Benchmark
    public void mappedFileByteBuffers(DiskFile file, Blackhole bh) throws IOException {
        next = writeMappedBuffers(file.path, next, bh);
    }

    @Benchmark
    public void mappedFileSegments(DiskFile file, Blackhole bh) throws IOException {
        next = writeMappedSegments(file.path, next, bh);
    }

    @Benchmark
    public void shmFileByteBuffers(ShmFile file, Blackhole bh) throws IOException {
        next = writeMappedBuffers(file.path, next, bh);
    }

    @Benchmark
    public void shmFileSegments(ShmFile file, Blackhole bh) throws IOException {
        next = writeMappedSegments(file.path, next, bh);
    }

    private int writeMappedBuffers(Path file, int first, Blackhole bh) throws IOException {
        try (FileChannel channel = BufferExperiment.openReadWrite(file)) {
            ByteBuffer[] blocks = BufferExperiment.mappedBuffers(channel, blockSize);
            int after = BufferExperiment.writeInts(blocks, first);
            bh.consume(blocks);
            return after;
        }
    }

    private int writeMappedSegments(Path file, int first, Blackhole bh) throws IOException {
        try (FileChannel channel = BufferExperiment.openReadWrite(file); Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.mappedSegments(channel, arena, blockSize);
            int after = BufferExperiment.writeInts(blocks, first);
            bh.consume(blocks);
            return after;
        }
    }

    /** A NATIVE manager of 96 MiB with {@code pageSize = blockSize}; the state itself is the owner. */
    @State(Scope.Thread)
    public static class ManagerState {
        MemoryManager manager;
        int pageCount;

        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            int pageSize = Integer.parseInt(params.getParam("blockSize"));
            pageCount = BufferExperiment.blockCount(pageSize);
            manager = MemoryManager.builder()
                    .name("buffers-round")
                    .totalSize(BufferExperiment.TOTAL_BYTES)
                    .pageSize(pageSize)
                    .type(MemoryType.NATIVE)
                    .pageAccess(PageAccess.CONFINED)
                    .preallocate(true)
                    .registerMBean(false)
                    .build();
        }

        @TearDown(Level.Trial)
        public void close() {
            manager.close();
        }
    }

    /** The 96 MiB file on disk. */
    @State(Scope.Thread)
    public static class DiskFile {
        Path path;

        @Setup(Level.Trial)
        public void create() {
            path = BufferExperiment.createFile(BufferExperiment.diskDirectory(), "offheap-buffers-");
        }

        @TearDown(Level.Trial)
        public void delete() {
            BufferExperiment.deleteQuietly(path);
        }
    }

    /** The 96 MiB file in /dev/shm. */
    @State(Scope.Thread)
    public static class ShmFile {
        Path path;

        @Setup(Level.Trial)
        public void create() {
            path = BufferExperiment.createFile(BufferExperiment.SHM_DIR, "offheap-buffers-");
        }

        @TearDown(Level.Trial)
        public void delete() {
            BufferExperiment.deleteQuietly(path);
        }
    }
}
