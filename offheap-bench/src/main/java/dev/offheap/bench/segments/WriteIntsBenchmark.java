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
 * Writes 8192 (or 2^28) ints, {@code i} at index {@code i}; the baseline writes an {@code int[]}
 * of the same byte size.
 *
 * <p>Variants: {@code intArray} (plain Java array, the baseline), heap and direct {@code ByteBuffer}
 * (absolute, native byte order), heap ({@code ofArray(byte[])}), native and mapped (a file in
 * {@code /tmp}) {@code MemorySegment}, a {@code MemoryManager} page, and {@code library}: the documented way, a loop over a typed buffer view of the native segment
 * ({@code asByteBuffer()} in native order, and its {@code asIntBuffer()}/{@code asLongBuffer()}).
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
public class WriteIntsBenchmark {

    @Benchmark
    @Baseline
    public Object intArray(Regions r) {
        Loops.writeInts(r.intArray);
        return r.intArray;
    }

    @Benchmark
    public Object heapByteBuffer(Regions r) {
        Loops.writeInts(r.heapBuffer);
        return r.heapBuffer;
    }

    @Benchmark
    public Object directByteBuffer(Regions r) {
        Loops.writeInts(r.directBuffer);
        return r.directBuffer;
    }

    @Benchmark
    public MemorySegment heapSegment(Regions r) {
        Loops.writeInts(r.heapSegment);
        return r.heapSegment;
    }

    @Benchmark
    public MemorySegment nativeSegment(Regions r) {
        Loops.writeInts(r.nativeSegment);
        return r.nativeSegment;
    }

    @Benchmark
    public MemorySegment mappedSegment(Regions r) {
        Loops.writeInts(r.mappedSegment);
        return r.mappedSegment;
    }

    @Benchmark
    public MemorySegment managerPage(Regions r) {
        for (MemorySegment page : r.pages) {
            Loops.writeInts(page);
        }
        return r.pages[0];
    }

    @Benchmark
    public MemorySegment library(Regions r) {
        Loops.writeInts(Loops.byteView(r.nativeSegment).asIntBuffer());
        return r.nativeSegment;
    }
}
