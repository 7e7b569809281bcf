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
 * Copies 256 MiB between native segments: {@code memcpy} through a {@code Linker} downcall (the
 * bandwidth reference, baseline), {@code MemorySegment.copy}, and {@code Segments.copy}. Each
 * returns the last byte of the destination. GB/s = 268.4 / (ms per op).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class BulkCopyBenchmark extends BulkMemoryBenchmark {

    @Benchmark
    @Baseline
    public byte memcpy() throws Throwable {
        MemorySegment unused = (MemorySegment) MEMCPY.invokeExact(dst, src, BYTES);
        return dst.get(ValueLayout.JAVA_BYTE, BYTES - 1);
    }

    @Benchmark
    public byte segmentCopy() {
        MemorySegment.copy(src, 0, dst, 0, BYTES);
        return dst.get(ValueLayout.JAVA_BYTE, BYTES - 1);
    }

    @Benchmark
    public byte segmentsCopy() {
        Segments.copy(src, 0, dst, 0, BYTES);
        return dst.get(ValueLayout.JAVA_BYTE, BYTES - 1);
    }
}
