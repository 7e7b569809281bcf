package dev.offheap.bench.manager;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * What the manager's page safety costs on access: a loop reading every long of one page
 * ({@code pageSize} bytes), through a MemoryManager page against a plain native segment of the
 * same size. A page can be revoked (released pages throw {@link IllegalStateException}), so its
 * segment carries a scope that the JIT has to check; this shows whether those checks stay out of
 * the loop. Each variant runs in its own fork, so every call site sees one segment kind.
 *
 * <p>Mode: {@link Mode#AverageTime}, nanoseconds per pass over the page; lower is better.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code plainNativeSegment} (baseline): {@code Arena.ofConfined().allocate(pageSize)}, held
 *     for the whole trial.
 * <li>{@code sharedArenaSegment}: the same from {@code Arena.ofShared()}.
 * <li>{@code globalArenaSegment}: the same from {@code Arena.global()} (never freed).
 * <li>{@code managerConfinedPage}, {@code managerSharedPage}: one page of a NATIVE manager with
 *     CONFINED / SHARED pages, allocated once per trial by the reading thread.
 * </ul>
 * Goal context: the issue asks to measure what safety costs per access and to say so; the
 * {@code segments} suite's goal (within 1.10x of byte[]) assumes manager pages read as fast as
 * native segments.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(PageOps.FORKS)
public class PageAccessBenchmark {

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    @Param({"32768"})
    public int pageSize;

    private Arena arena;
    private MemoryManager manager;
    private MemorySegment segment;

    @Setup(Level.Trial)
    public void open(org.openjdk.jmh.infra.BenchmarkParams params) {
        String variant = params.getBenchmark();
        variant = variant.substring(variant.lastIndexOf('.') + 1);
        switch (variant) {
            case "plainNativeSegment" -> segment = fill((arena = Arena.ofConfined()).allocate(pageSize, Long.BYTES));
            case "sharedArenaSegment" -> segment = fill((arena = Arena.ofShared()).allocate(pageSize, Long.BYTES));
            case "globalArenaSegment" -> segment = fill(Arena.global().allocate(pageSize, Long.BYTES));
            case "managerConfinedPage" -> segment = fill(managerPage(PageAccess.CONFINED));
            case "managerSharedPage" -> segment = fill(managerPage(PageAccess.SHARED));
            default -> throw new IllegalStateException("no segment for benchmark " + variant);
        }
    }

    private MemorySegment managerPage(PageAccess access) {
        manager = PageOps.nativeManager("access-" + access, 64L * pageSize, pageSize, access);
        return manager.allocatePage(this);
    }

    private static MemorySegment fill(MemorySegment page) {
        for (long offset = 0; offset < page.byteSize(); offset += Long.BYTES) {
            page.set(LONG, offset, offset);
        }
        return page;
    }

    @TearDown(Level.Trial)
    public void close() {
        if (manager != null) {
            manager.releaseAll(this);
            manager.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    private static long sumLongs(MemorySegment page) {
        long sum = 0;
        long size = page.byteSize();
        for (long offset = 0; offset < size; offset += Long.BYTES) {
            sum += page.get(LONG, offset);
        }
        return sum;
    }

    @Benchmark
    @Baseline
    public long plainNativeSegment() {
        return sumLongs(segment);
    }

    @Benchmark
    public long sharedArenaSegment() {
        return sumLongs(segment);
    }

    @Benchmark
    public long globalArenaSegment() {
        return sumLongs(segment);
    }

    @Benchmark
    public long managerConfinedPage() {
        return sumLongs(segment);
    }

    @Benchmark
    public long managerSharedPage() {
        return sumLongs(segment);
    }
}
