package dev.offheap.bench.alloc;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The settings and the {@code bytes} parameter that {@link UninitializedAllocationBenchmark} and
 * {@link ZeroedAllocationBenchmark} share, so that their numbers stay comparable: the same sizes,
 * mode, units, iterations and forks.
 *
 * <p>Mode: {@link Mode#AverageTime}, nanoseconds per operation, lower is better. Threading: JMH
 * gives each benchmark thread its own instance ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(AllocStates.FORKS)
public abstract class AllocationSizeBenchmark {

    /** Bytes per allocation. */
    @Param({"16", "256", "4096", "65536"})
    public int bytes;

    /** Only subclasses, which JMH instantiates, create one. */
    protected AllocationSizeBenchmark() {
    }

    /** @throws IllegalArgumentException if {@code bytes} is too small to touch */
    @Setup
    public void checkSize() {
        Touch.checkSize(bytes);
    }
}
