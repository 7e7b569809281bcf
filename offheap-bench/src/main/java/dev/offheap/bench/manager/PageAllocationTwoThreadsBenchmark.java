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
 * Allocate + touch + release of {@code pageCount} pages of {@code pageSize} bytes, on two threads at once, each with its own owner.
 * The same code as {@link PageAllocationBenchmark}, on two threads: JMH sums the threads' throughput, so this class's {@code managerConfined} score divided by that class's is the scaling the goal asks for (at least 1.6).
 *
 * <p>The scaling only means something on a machine with two otherwise idle cores.
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
 * <li>{@code arenaConfined}, {@code arenaShared}: one {@code Arena.ofConfined()} /
 *     {@code Arena.ofShared()} per page, {@code allocate(pageSize)} and {@code close()}.
 * </ul>
 * Goals checked: manager allocate+release of one page at least 5x Flink's and at least 100x
 * {@code Arena.ofShared()} per page; at two threads at least 1.6x the one-thread throughput.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(2)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(PageOps.FORKS)
public class PageAllocationTwoThreadsBenchmark {

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
    public long arenaConfined() {
        return PageOps.confinedArenas(pageSize, pageCount);
    }

    @Benchmark
    public long arenaShared() {
        return PageOps.sharedArenas(pageSize, pageCount);
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
