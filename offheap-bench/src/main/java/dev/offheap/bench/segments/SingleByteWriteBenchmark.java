package dev.offheap.bench.segments;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.Segments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Why writing 32768 single bytes to a {@code MemorySegment} is slower than to a {@code byte[]},
 * and which way of writing them is not: the same {@code (byte) i} store loop with an {@code int}
 * or a {@code long} induction variable, on heap and native segments, a loop storing a constant,
 * and the library's staging array plus {@code Segments.writeBytes}
 * ({@code nativeStaged}). {@link SingleByteWriteNoSuperWordBenchmark} runs the same methods with
 * the JIT's auto-vectorizer off ({@code -XX:-UseSuperWord}), which shows whether the gap is
 * vectorization. Each method returns its target, which JMH consumes; setup checks a read-back.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class SingleByteWriteBenchmark {

    static final int BYTES = 32 * 1024;

    private Arena arena;
    private byte[] array;
    private MemorySegment heap;
    private MemorySegment offHeap;
    private byte[] staging;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        array = new byte[BYTES];
        heap = MemorySegment.ofArray(new byte[BYTES]);
        offHeap = arena.allocate(BYTES, 64);
        staging = new byte[Regions.STAGING_BYTES];
        nativeStaged();
        nativeIntIndex();
        byteArray();
        if (!java.util.Arrays.equals(array, offHeap.toArray(ValueLayout.JAVA_BYTE))) {
            throw new IllegalStateException("staged write differs from the byte[] loop");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    @Baseline
    public byte[] byteArray() {
        byte[] a = array;
        for (int i = 0; i < a.length; i++) {
            a[i] = (byte) i;
        }
        return a;
    }

    @Benchmark
    public byte[] byteArrayConstant() {
        byte[] a = array;
        for (int i = 0; i < a.length; i++) {
            a[i] = 42;
        }
        return a;
    }

    @Benchmark
    public MemorySegment heapIntIndex() {
        return writeIntIndex(heap);
    }

    @Benchmark
    public MemorySegment nativeIntIndex() {
        return writeIntIndex(offHeap);
    }

    @Benchmark
    public MemorySegment nativeLongIndex() {
        MemorySegment s = offHeap;
        for (long i = 0; i < BYTES; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        return s;
    }

    @Benchmark
    public MemorySegment nativeConstant() {
        MemorySegment s = offHeap;
        for (int i = 0; i < BYTES; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) 42);
        }
        return s;
    }

    @Benchmark
    public MemorySegment nativeStaged() {
        MemorySegment s = offHeap;
        byte[] buf = staging;
        for (int base = 0; base < BYTES; base += buf.length) {
            for (int i = 0; i < buf.length; i++) {
                buf[i] = (byte) (base + i);
            }
            Segments.writeBytes(s, base, buf, 0, buf.length);
        }
        return s;
    }

    private static MemorySegment writeIntIndex(MemorySegment s) {
        for (int i = 0; i < BYTES; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        return s;
    }
}
