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
 * Writes a {@code byte[1024]} 32 times (or 2^20 times) back to back, covering the region.
 *
 * <p>Variants: {@code byteArray} (plain Java array, the baseline), heap and direct {@code ByteBuffer}
 * (absolute, native byte order), heap ({@code ofArray(byte[])}), native and mapped (a file in
 * {@code /tmp}) {@code MemorySegment}, a {@code MemoryManager} page, and {@code library}: {@code Segments.writeBytes} on a native segment.
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
public class WriteChunksBenchmark {

    @Benchmark
    @Baseline
    public Object byteArray(Regions r) {
        Loops.writeChunks(r.array, r.chunk);
        return r.array;
    }

    @Benchmark
    public Object heapByteBuffer(Regions r) {
        Loops.writeChunks(r.heapBuffer, r.chunk);
        return r.heapBuffer;
    }

    @Benchmark
    public Object directByteBuffer(Regions r) {
        Loops.writeChunks(r.directBuffer, r.chunk);
        return r.directBuffer;
    }

    @Benchmark
    public MemorySegment heapSegment(Regions r) {
        Loops.writeChunks(r.heapSegment, r.chunk);
        return r.heapSegment;
    }

    @Benchmark
    public MemorySegment nativeSegment(Regions r) {
        Loops.writeChunks(r.nativeSegment, r.chunk);
        return r.nativeSegment;
    }

    @Benchmark
    public MemorySegment mappedSegment(Regions r) {
        Loops.writeChunks(r.mappedSegment, r.chunk);
        return r.mappedSegment;
    }

    @Benchmark
    public MemorySegment managerPage(Regions r) {
        for (MemorySegment page : r.pages) {
            Loops.writeChunks(page, r.chunk);
        }
        return r.pages[0];
    }

    @Benchmark
    public MemorySegment library(Regions r) {
        Loops.writeChunksLibrary(r.nativeSegment, r.chunk);
        return r.nativeSegment;
    }
}
