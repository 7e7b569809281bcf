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
 * The loops of {@link KindProfileBenchmark} after the trial setup ran all of them 2,000 times
 * on heap, native and mapped segments, interleaved, with both region lengths, through the same
 * public {@code Segments} entry points, before the JIT compiled them: their call sites (and the
 * JDK's shared accessor code) are megamorphic, as in a program that uses all three kinds. The
 * two-segment helpers run on pairs of the same kind and on pairs of two kinds (heap-native,
 * native-mapped, mapped-heap). Then {@code kind} alone is measured. The library's helpers aim to stay within
 * 1.20x of {@link ExclusiveKindBenchmark}; plain loops do not.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class MixedKindBenchmark extends KindProfileBenchmark {

    static final int ROUNDS = 2_000;

    @Override
    void prepare() throws IOException {
        MemorySegment[] as = {create("heap"), create("native"), create("mapped")};
        MemorySegment[] bs = {create("heap"), create("native"), create("mapped")};
        long sink = 0;
        for (int r = 0; r < ROUNDS; r++) {
            for (int k = 0; k < as.length; k++) {
                sink += runAll(as[k], bs[k]);
                sink += runPair(as[k], bs[(k + 1) % bs.length]);
            }
        }
        if (sink == 42) {
            System.out.println("unlikely");
        }
    }
}
