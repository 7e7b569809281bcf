package dev.offheap.bench.manager;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
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

/**
 * What the manager's page safety costs per allocate + release, on one thread: the manager's
 * CONFINED and SHARED pages against a pool that has no safety at all.
 *
 * <p>Mode: {@link Mode#AverageTime}, nanoseconds per allocate + touch + release of one page of
 * {@code pageSize} bytes; lower is better.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code unsafeSlicePool} (baseline): slices of one native segment in an
 *     {@link ArrayDeque}; allocate pops a slice, release pushes it back. No owner, no
 *     accounting, no revocation: a released slice still reads and writes the next user's bytes.
 *     This is the floor that any pool can reach; the manager's extra time over it is what
 *     ownership tracking, accounting and revocation cost.
 * <li>{@code managerConfined}: {@code allocatePage(owner)} + {@code release(page)}, CONFINED
 *     pages (release revokes the page's confined scope).
 * <li>{@code managerShared}: the same with SHARED pages (release closes a shared scope: a
 *     JVM-wide handshake).
 * </ul>
 * Goal context: the issue asks to measure what safety costs per allocate/release and to say so.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(PageOps.FORKS)
public class PageRecyclingBenchmark {

    private static final int POOLED_PAGES = 64;

    @Param({"32768"})
    public int pageSize;

    private Arena arena;
    private ArrayDeque<MemorySegment> pool;
    private MemoryManager confined;
    private MemoryManager shared;

    @Setup(Level.Trial)
    public void open(org.openjdk.jmh.infra.BenchmarkParams params) {
        String variant = params.getBenchmark();
        variant = variant.substring(variant.lastIndexOf('.') + 1);
        switch (variant) {
            case "unsafeSlicePool" -> {
                arena = Arena.ofConfined();
                MemorySegment all = arena.allocate((long) POOLED_PAGES * pageSize, Long.BYTES);
                pool = new ArrayDeque<>(POOLED_PAGES);
                for (int i = 0; i < POOLED_PAGES; i++) {
                    pool.push(all.asSlice((long) i * pageSize, pageSize));
                }
            }
            case "managerConfined" -> confined = PageOps.nativeManager("recycle-confined",
                    (long) POOLED_PAGES * pageSize, pageSize, PageAccess.CONFINED);
            case "managerShared" -> shared = PageOps.nativeManager("recycle-shared",
                    (long) POOLED_PAGES * pageSize, pageSize, PageAccess.SHARED);
            default -> throw new IllegalStateException("no pool for benchmark " + variant);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        if (confined != null) {
            confined.close();
        }
        if (shared != null) {
            shared.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    @Benchmark
    @Baseline
    public long unsafeSlicePool() {
        MemorySegment page = pool.pop();
        long sum = PageOps.touch(page, 1L);
        pool.push(page);
        return sum;
    }

    @Benchmark
    public long managerConfined() {
        return PageOps.manager(confined, 1, this);
    }

    @Benchmark
    public long managerShared() {
        return PageOps.manager(shared, 1, this);
    }
}
