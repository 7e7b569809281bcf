package dev.offheap.bench.segments;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link SingleByteWriteBenchmark} with C2's auto-vectorizer off ({@code -XX:-UseSuperWord}):
 * if the {@code byte[]} loop loses its lead here, the lead was vectorization.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:-UseSuperWord"})
public class SingleByteWriteNoSuperWordBenchmark extends SingleByteWriteBenchmark {
}
