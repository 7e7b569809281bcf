package dev.offheap.bench.segments;

import dev.offheap.bench.Baseline;
import dev.offheap.memory.Segments;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Loops whose speed depends on how many segment classes their call sites have seen;
 * {@link ExclusiveKindBenchmark} runs them where only {@link #kind} was ever seen,
 * {@link MixedKindBenchmark} after running every loop on heap, native and mapped segments.
 * Compare a method's time between the two classes for the same {@code kind} and {@code len}.
 *
 * <p>{@code sumLongs} and {@code sumBytes} are plain loops over 32 KiB with {@code MemorySegment}
 * accessors (the Flink seeds' experiment; {@code len} does not apply). The others call the library's
 * {@code Segments} helpers on regions of {@code len} bytes covering 32 KiB (2,048 calls for 16
 * bytes, one for 32 KiB): {@code compare} (equal regions but the very last byte, so every byte
 * is read), {@code swap} (two halves of a 64 KiB segment), {@code hash}, and
 * {@code bigEndian} (one big-endian long written and read back per region, at its end).
 */
@State(Scope.Benchmark)
public abstract class KindProfileBenchmark {

    /** Bytes covered per operation. */
    static final int BYTES = 32 * 1024;
    /** Bytes per segment: two halves of {@link #BYTES} for {@code swap}. */
    static final int SEGMENT_BYTES = 2 * BYTES;
    /** The region lengths measured; the mixed setup runs both. */
    static final int[] LENGTHS = {16, BYTES};

    /** The segment kind measured. */
    @Param({"heap", "native", "mapped"})
    public String kind;

    /** Bytes per helper call: a short key or record, or the whole 32 KiB. */
    @Param({"16", "32768"})
    public int len;

    private Arena arena;
    private Path file;
    MemorySegment seg;
    MemorySegment same;
    MemorySegment other;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        file = Files.createTempFile(Path.of("/tmp"), "offheap-kinds", ".bin");
        seg = create(kind);
        same = create(kind);
        other = create(kind);
        Random rnd = new Random(1);
        for (long i = 0; i < SEGMENT_BYTES; i += 8) {
            long v = rnd.nextLong();
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
            other.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i % 64 == 0 ? v + 1 : v);
        }
        MemorySegment.copy(seg, 0, same, 0, SEGMENT_BYTES);
        same.set(ValueLayout.JAVA_BYTE, BYTES - 1, (byte) ~seg.get(ValueLayout.JAVA_BYTE, BYTES - 1));
        if (sumLongs(seg) != sumLongs(MemorySegment.ofArray(seg.toArray(ValueLayout.JAVA_BYTE)))) {
            throw new IllegalStateException("read-back differs");
        }
        prepare();
    }

    /** Runs before measurement: nothing here ('exclusive'), all loops on all kinds in 'mixed'. */
    abstract void prepare() throws IOException;

    MemorySegment create(String k) throws IOException {
        return switch (k) {
            case "heap" -> MemorySegment.ofArray(new byte[SEGMENT_BYTES]);
            case "native" -> arena.allocate(SEGMENT_BYTES, 64);
            case "mapped" -> {
                Path f = Files.createTempFile(Path.of("/tmp"), "offheap-kinds", ".bin");
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.DELETE_ON_CLOSE)) {
                    yield ch.map(FileChannel.MapMode.READ_WRITE, 0, SEGMENT_BYTES, arena);
                }
            }
            default -> throw new IllegalArgumentException(k);
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        arena.close();
        Files.deleteIfExists(file);
    }

    /** Runs every measured loop once on the given segments, with every region length. */
    static long runAll(MemorySegment a, MemorySegment b) {
        long sum = sumLongs(a) + sumBytes(a);
        for (int len : LENGTHS) {
            sum += compare(a, b, len) + swap(b, len) + hash(a, len) + bigEndian(b, len);
        }
        return sum;
    }

    /** Runs the two-segment helpers on segments of two different kinds. */
    static long runPair(MemorySegment a, MemorySegment b) {
        long sum = 0;
        for (int len : LENGTHS) {
            sum += compare(a, b, len);
            for (long i = 0; i < BYTES; i += len) {
                Segments.swap(a, i, b, i, len);
            }
        }
        return sum;
    }

    static long sumLongs(MemorySegment s) {
        long sum = 0;
        for (long i = 0; i < BYTES; i += 8) {
            sum += s.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
        }
        return sum;
    }

    static long sumBytes(MemorySegment s) {
        long sum = 0;
        for (long i = 0; i < BYTES; i++) {
            sum += s.get(ValueLayout.JAVA_BYTE, i);
        }
        return sum;
    }

    static long compare(MemorySegment a, MemorySegment b, int len) {
        long sum = 0;
        for (long i = 0; i < BYTES; i += len) {
            sum += Segments.compareUnsigned(a, i, b, i, len);
        }
        return sum;
    }

    static long swap(MemorySegment s, int len) {
        for (long i = 0; i < BYTES; i += len) {
            Segments.swap(s, i, s, i + BYTES, len);
        }
        return s.get(ValueLayout.JAVA_BYTE, 0);
    }

    static long hash(MemorySegment s, int len) {
        long h = 0;
        for (long i = 0; i < BYTES; i += len) {
            h ^= Segments.hash64(s, i, len);
        }
        return h;
    }

    static long bigEndian(MemorySegment s, int len) {
        long sum = 0;
        for (long i = len - Long.BYTES; i < BYTES; i += len) {
            Segments.putLongBE(s, i, i ^ Long.MIN_VALUE);
            sum += Segments.getLongBE(s, i);
        }
        return sum;
    }

    @Benchmark
    @Baseline
    public long sumLongs() {
        return sumLongs(seg);
    }

    @Benchmark
    public long sumBytes() {
        return sumBytes(seg);
    }

    @Benchmark
    public long compare() {
        return compare(seg, same, len);
    }

    @Benchmark
    public long swap() {
        return swap(other, len);
    }

    @Benchmark
    public long hash() {
        return hash(seg, len);
    }

    @Benchmark
    public long bigEndian() {
        return bigEndian(other, len);
    }
}
