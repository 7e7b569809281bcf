package dev.offheap.bench.manager;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Allocate + touch + release of {@code pageCount} pages of {@code pageSize} bytes, on one thread.
 * {@link PageAllocationTwoThreadsBenchmark} runs the same code on two threads.
 *
 * <p>Mode: {@link Mode#Throughput} in operations (one operation = all {@code pageCount} pages
 * allocated, touched and released) per millisecond, summed over the threads; higher is better,
 * so "N times faster than the baseline" is a score ratio of N. Touching writes the first and the
 * last long of every page.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code flinkUnsafe} (baseline): Flink 1.20's off-heap page,
 *     {@code MemorySegmentFactory.allocateOffHeapUnsafeMemory(pageSize, owner, cleanup)} and
 *     {@code free()}: {@code Unsafe.allocateMemory} / {@code freeMemory} plus a DirectByteBuffer
 *     wrapper. Flink's own MemoryManager adds budget bookkeeping on top; this is its floor.
 *     Works on JDK 25 as is; its fork adds {@link PageOps#FLINK_JVM_ARG} only to silence the
 *     Unsafe deprecation warning.
 * <li>{@code managerConfined}: a NATIVE {@link MemoryManager} with CONFINED pages (pre-allocated,
 *     16 MiB); {@code allocatePage(owner)} + {@code release(page)} for one page,
 *     {@code allocatePages(owner, n)} + {@code release(list)} for more.
 * <li>{@code managerShared}: the same with SHARED pages; each release closes a shared scope,
 *     which costs a JVM-wide handshake.
 * <li>{@code groupConfined}, {@code groupShared}: the same managers, the pages allocated as one
 *     {@code PageGroup} ({@code allocateGroup(owner, n)}), each page's segment made by
 *     {@code page(i)}, the group closed: one scope for all pages, one handshake for a SHARED group.
 * <li>{@code arenaConfined}, {@code arenaShared}: one {@code Arena.ofConfined()} /
 *     {@code Arena.ofShared()} per page, {@code allocate(pageSize)} and {@code close()}.
 * <li>{@code revocableFloor} (a reference, not a goal): what a revocable page costs with no
 *     bookkeeping at all. One {@code Arena.ofConfined()} per page over memory allocated once, the
 *     page a {@code reinterpret} of a slice of it, the arena closed on release. The arenas and pages
 *     are stored in the benchmark's state so that they escape, as a manager's pages do; the manager's
 *     time beyond this is its bookkeeping (pool, per-thread cache, owners, double-release checks).
 * </ul>
 * Goals checked: manager allocate+release of one page at least 5x Flink's and at least 100x
 * {@code Arena.ofShared()} per page; at two threads at least 1.6x the one-thread throughput.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(PageOps.FORKS)
public class PageAllocationBenchmark {

    @Param({"32768"})
    public int pageSize;

    @Param({"1", "64"})
    public int pageCount;

    @Benchmark
    @Baseline
    @Fork(value = PageOps.FORKS, jvmArgsAppend = PageOps.FLINK_JVM_ARG)
    public long flinkUnsafe() {
        return PageOps.flink(pageSize, pageCount, this);
    }

    @Benchmark
    public long managerConfined(ConfinedManager manager) {
        return PageOps.manager(manager.manager, pageCount, this);
    }

    @Benchmark
    public long managerShared(SharedManager manager) {
        return PageOps.manager(manager.manager, pageCount, this);
    }

    @Benchmark
    public long groupConfined(ConfinedManager manager) {
        return PageOps.managerGroup(manager.manager, pageCount, this);
    }

    @Benchmark
    public long groupShared(SharedManager manager) {
        return PageOps.managerGroup(manager.manager, pageCount, this);
    }

    @Benchmark
    public long revocableFloor(FloorPages floor) {
        return PageOps.revocableFloor(floor, pageSize, pageCount);
    }

    @Benchmark
    public long arenaConfined() {
        return PageOps.confinedArenas(pageSize, pageCount);
    }

    @Benchmark
    public long arenaShared() {
        return PageOps.sharedArenas(pageSize, pageCount);
    }

    /** The memory {@link #revocableFloor} cuts its pages from, and where they escape to; one per thread. */
    @State(Scope.Thread)
    public static class FloorPages extends PageOps.FloorPages {
        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            allocate(Integer.parseInt(params.getParam("pageSize")), Integer.parseInt(params.getParam("pageCount")));
        }

        @TearDown(Level.Trial)
        public void close() {
            free();
        }
    }

    /** Room for every thread's pages several times over; each thread's state is its owner. */
    static final long MANAGER_BYTES = 16L << 20;

    @State(Scope.Benchmark)
    public static class ConfinedManager {
        MemoryManager manager;

        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            manager = PageOps.nativeManager("alloc-confined", MANAGER_BYTES,
                    Integer.parseInt(params.getParam("pageSize")), PageAccess.CONFINED);
        }

        @TearDown(Level.Trial)
        public void close() {
            manager.close();
        }
    }

    @State(Scope.Benchmark)
    public static class SharedManager {
        MemoryManager manager;

        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            manager = PageOps.nativeManager("alloc-shared", MANAGER_BYTES,
                    Integer.parseInt(params.getParam("pageSize")), PageAccess.SHARED);
        }

        @TearDown(Level.Trial)
        public void close() {
            manager.close();
        }
    }
}
