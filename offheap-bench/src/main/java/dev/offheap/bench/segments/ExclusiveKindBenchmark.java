package dev.offheap.bench.segments;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The loops of {@link KindProfileBenchmark} in forks that only ever see one segment kind
 * ({@code kind}): every call site is monomorphic, the best case.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class ExclusiveKindBenchmark extends KindProfileBenchmark {

    @Override
    void prepare() {
        // nothing: the measured kind is the only one this fork sees
    }
}
