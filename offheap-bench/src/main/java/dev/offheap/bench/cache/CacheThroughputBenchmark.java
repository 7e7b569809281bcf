package dev.offheap.bench.cache;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The JMH settings that the cache throughput benchmarks ({@link CacheGetBenchmark},
 * {@link CachePutBenchmark}, {@link CacheMixBenchmark}, {@link CacheBandwidthBenchmark}) share, so
 * that their numbers stay comparable: {@link Mode#Throughput} in operations per second, one thread
 * unless a subclass says otherwise, the same iterations and the same forks and heap.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = Forks.COUNT, jvmArgsAppend = {Forks.HEAP_MIN, Forks.HEAP_MAX})
public abstract class CacheThroughputBenchmark {

    /** Only subclasses, which JMH instantiates, create one. */
    protected CacheThroughputBenchmark() {
    }
}
