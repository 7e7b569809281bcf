package dev.offheap.bench.segments;

import dev.offheap.bench.Baseline;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reads 8192 (or 2^28) ints and returns their sum; the baseline reads an {@code int[]}.
 *
 * <p>Variants: {@code intArray} (plain Java array, the baseline), heap and direct {@code ByteBuffer}
 * (absolute, native byte order), heap ({@code ofArray(byte[])}), native and mapped (a file in
 * {@code /tmp}) {@code MemorySegment}, a {@code MemoryManager} page, and {@code library}: the documented way for reads (docs/segment-access.md, recommendations), a
 * plain loop over the native segment: the same code as {@code nativeSegment}, judged by the report's goals.
 * Every variant covers the whole region: 32 KiB, and 1 GiB ({@link Regions#bytes}); the
 * {@code managerPage} variant covers it with pages of at most 64 MiB (16 pages for 1 GiB), the
 * largest page a MemoryManager hands out. Each method runs in its own fork, so every loop sees
 * one segment class (the 'exclusive' case).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "--enable-native-access=ALL-UNNAMED"})
public class ReadIntsBenchmark {

    @Benchmark
    @Baseline
    public long intArray(Regions r) {
        return Loops.readInts(r.intArray);
    }

    @Benchmark
    public long heapByteBuffer(Regions r) {
        return Loops.readInts(r.heapBuffer);
    }

    @Benchmark
    public long directByteBuffer(Regions r) {
        return Loops.readInts(r.directBuffer);
    }

    @Benchmark
    public long heapSegment(Regions r) {
        return Loops.readInts(r.heapSegment);
    }

    @Benchmark
    public long nativeSegment(Regions r) {
        return Loops.readInts(r.nativeSegment);
    }

    @Benchmark
    public long mappedSegment(Regions r) {
        return Loops.readInts(r.mappedSegment);
    }

    @Benchmark
    public long managerPage(Regions r) {
        long sum = 0;
        for (MemorySegment page : r.pages) {
            sum += Loops.readInts(page);
        }
        return sum;
    }

    /** The way docs/segment-access.md recommends for reads: a plain loop over the segment, as {@link #nativeSegment}. */
    @Benchmark
    public long library(Regions r) {
        return Loops.readInts(r.nativeSegment);
    }
}
