package dev.offheap.cli.testbench;

import dev.offheap.bench.Baseline;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A tiny benchmark that only the CLI's tests run, through the real JMH runner in smoke mode. Its
 * fork checks what the CLI promises forks get: native access, and the class's own
 * {@code @Fork(jvmArgsAppend)} even though the mode overrides the fork count.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = "-Doffheap.test.marker=from-annotation")
public class TinyBench {
    /** Bytes summed per operation; smoke mode narrows it to the smallest. */
    @Param({"16", "4096"})
    public int size;

    private byte[] array;
    private MemorySegment segment;

    /** Checks the fork's flags and fills the data. */
    @Setup
    public void setup() {
        if (!"from-annotation".equals(System.getProperty("offheap.test.marker"))) {
            throw new IllegalStateException("the class's @Fork(jvmArgsAppend) did not reach the fork");
        }
        if (!TinyBench.class.getModule().isNativeAccessEnabled()) {
            throw new IllegalStateException("the fork has no native access");
        }
        array = new byte[size];
        for (int i = 0; i < size; i++) {
            array[i] = (byte) i;
        }
        segment = MemorySegment.ofArray(array.clone());
    }

    /** @return the sum of the array's bytes */
    @Benchmark
    @Baseline
    public long sumArray() {
        long sum = 0;
        for (byte b : array) {
            sum += b;
        }
        return sum;
    }

    /** @return the sum of the segment's bytes */
    @Benchmark
    public long sumSegment() {
        long sum = 0;
        for (long i = 0; i < segment.byteSize(); i++) {
            sum += segment.get(ValueLayout.JAVA_BYTE, i);
        }
        return sum;
    }
}
