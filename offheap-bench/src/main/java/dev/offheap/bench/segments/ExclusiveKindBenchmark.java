package dev.offheap.bench.segments;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The loops of {@link KindProfileBenchmark} in forks that only ever see one segment kind
 * ({@code kind}). The trial setup runs the same warm-up as {@link MixedKindBenchmark}'s with that kind
 * alone: every loop {@value MixedKindBenchmark#ROUNDS} times with both region lengths, and the
 * two-segment helpers on two segments. The two classes then differ only in the segment kinds their
 * call sites saw; a warm-up of one length alone would let the JIT drop the other length's paths here
 * and not there, and the comparison would charge that to the mix of kinds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class ExclusiveKindBenchmark extends KindProfileBenchmark {

    @Override
    void prepare() throws IOException {
        MemorySegment a = create(kind);
        MemorySegment b = create(kind);
        long sink = 0;
        for (int r = 0; r < MixedKindBenchmark.ROUNDS; r++) {
            sink += runAll(a, b);
            sink += runPair(a, b);
        }
        if (sink == 42) {
            System.out.println("unlikely");
        }
    }
}
