package dev.offheap.bench.manager;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.Budget;
import org.apache.arrow.memory.AccountantAccess;
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

import java.util.concurrent.TimeUnit;

/**
 * Budget against Arrow's {@code Accountant} (the lock-free hierarchical accounting under Arrow's
 * allocators): reserve + release of 4 KiB at the request level of a three-level tree
 * (process, component, request), at one and two threads.
 *
 * <p>Mode: {@link Mode#AverageTime}, nanoseconds per reserve + release, lower is better. With
 * {@code reservation = 0} every request walks to the root; with a 1 MiB reservation at the request
 * level it stays within the request's reservation and touches no ancestor. The two-thread variants
 * give each thread its own request budget under a shared component and process, so the ancestors'
 * counters are contended.
 *
 * <p>Variants: {@code arrowAccountant} (baseline; {@code allocateBytes} + {@code releaseBytes}),
 * {@code budgetReserve} ({@code reserve} + {@code release}, the throwing API), {@code budgetTryReserve}.
 * Semantics differ in one way that costs Budget an atomic per level: Arrow adds first and undoes a
 * refused request, so its counters can read above the limit while that happens; a Budget's
 * {@code used()} never reads above its limit.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(PageOps.FORKS)
public class BudgetBenchmark {
    static final long REQUEST_BYTES = 4096;
    static final long PLENTY = 1L << 40;

    /** Process and component levels, shared by all threads of a run. */
    @State(Scope.Benchmark)
    public static class Tree {
        Budget process;
        Budget component;
        AutoCloseable arrowProcess;
        AutoCloseable arrowComponent;

        @Setup(Level.Trial)
        public void open() {
            process = Budget.root("process", PLENTY);
            component = process.child("component", PLENTY);
            arrowProcess = AccountantAccess.create(null, "process", 0, PLENTY);
            arrowComponent = AccountantAccess.create(arrowProcess, "component", 0, PLENTY);
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            component.close();
            process.close();
            arrowComponent.close();
            arrowProcess.close();
        }
    }

    /** One request level per thread. */
    @State(Scope.Thread)
    public static class Request {
        @Param({"0", "1048576"})
        public long reservation;

        Budget budget;
        AutoCloseable arrow;

        @Setup(Level.Trial)
        public void open(Tree tree) {
            budget = tree.component.child("request-" + Thread.currentThread().threadId(), PLENTY, reservation);
            arrow = AccountantAccess.create(tree.arrowComponent, "request", reservation, PLENTY);
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            if (budget.used() != 0 || AccountantAccess.allocated(arrow) != 0) {
                throw new IllegalStateException("accounting did not return to zero");
            }
            budget.close();
            arrow.close();
        }
    }

    @Benchmark
    @Baseline
    public boolean arrowAccountant(Request request) {
        boolean ok = AccountantAccess.allocate(request.arrow, REQUEST_BYTES);
        AccountantAccess.release(request.arrow, REQUEST_BYTES);
        return ok;
    }

    @Benchmark
    public long budgetReserve(Request request) {
        request.budget.reserve(REQUEST_BYTES);
        request.budget.release(REQUEST_BYTES);
        return REQUEST_BYTES;
    }

    @Benchmark
    public boolean budgetTryReserve(Request request) {
        boolean ok = request.budget.tryReserve(REQUEST_BYTES);
        if (ok) {
            request.budget.release(REQUEST_BYTES);
        }
        return ok;
    }

    /** The same at two threads, each with its own request under the shared component and process. */
    @Threads(2)
    public static class TwoThreads extends BudgetBenchmark {
    }
}
