package dev.offheap.bench.segments;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.Segments;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fills 256 MiB of a native segment: {@code memset} through a {@code Linker} downcall (the
 * bandwidth reference, baseline), {@code MemorySegment.fill}, and {@code Segments.fill}. Each
 * returns the last byte written. GB/s = 268.4 / (ms per op).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class BulkFillBenchmark extends BulkMemoryBenchmark {

    @Benchmark
    @Baseline
    public byte memset() throws Throwable {
        MemorySegment unused = (MemorySegment) MEMSET.invokeExact(dst, (int) ++fillValue, BYTES);
        return dst.get(ValueLayout.JAVA_BYTE, BYTES - 1);
    }

    @Benchmark
    public byte segmentFill() {
        dst.fill(++fillValue);
        return dst.get(ValueLayout.JAVA_BYTE, BYTES - 1);
    }

    @Benchmark
    public byte segmentsFill() {
        Segments.fill(dst, 0, BYTES, ++fillValue);
        return dst.get(ValueLayout.JAVA_BYTE, BYTES - 1);
    }
}
