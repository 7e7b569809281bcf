package dev.offheap.bench.segments;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;
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
 * Two native segments of 256 MiB and {@code memcpy}/{@code memset} downcalls, for
 * {@link BulkCopyBenchmark} and {@link BulkFillBenchmark}. Bandwidth in GB/s is 268,435,456 bytes
 * divided by the time per operation: 268.4 / (ms per op).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public abstract class BulkMemoryBenchmark {

    static final long BYTES = 256L * 1024 * 1024;

    static final MethodHandle MEMCPY;
    static final MethodHandle MEMSET;

    static {
        MEMCPY = downcall("memcpy", ValueLayout.ADDRESS);
        MEMSET = downcall("memset", ValueLayout.JAVA_INT);
    }

    /** {@code void *name(void *, second, size_t)} from the C library. */
    @SuppressWarnings("restricted")
    private static MethodHandle downcall(String name, ValueLayout second) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, second, ValueLayout.JAVA_LONG));
    }

    private Arena arena;
    MemorySegment src;
    MemorySegment dst;
    byte fillValue;

    @Setup(Level.Trial)
    public void setUp() throws Throwable {
        arena = Arena.ofShared();
        src = arena.allocate(BYTES, 4096);
        dst = arena.allocate(BYTES, 4096);
        src.fill((byte) 7);
        dst.fill((byte) 0);
        src.set(ValueLayout.JAVA_BYTE, BYTES - 1, (byte) 9);
        MemorySegment unused = (MemorySegment) MEMCPY.invokeExact(dst, src, BYTES);
        if (dst.get(ValueLayout.JAVA_BYTE, BYTES - 1) != 9 || dst.get(ValueLayout.JAVA_BYTE, 0) != 7) {
            throw new IllegalStateException("memcpy read-back differs");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }
}
