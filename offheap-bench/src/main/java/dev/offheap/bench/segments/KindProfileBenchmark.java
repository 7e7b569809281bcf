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
 * Loops over 32 KiB segments whose speed depends on how many segment classes their call sites
 * have seen; {@link ExclusiveKindBenchmark} runs them where only {@link #kind} was ever seen,
 * {@link MixedKindBenchmark} after running every loop on heap, native and mapped segments.
 * Compare a method's time between the two classes for the same {@code kind}.
 *
 * <p>{@code sumLongs} and {@code sumBytes} are plain loops over {@code MemorySegment} accessors
 * (the Flink seeds' experiment). The others loop over the library's {@code Segments} helpers:
 * {@code compareKeys} (1024 pairs of 16-byte keys), {@code compareRegion} (two 32 KiB regions that differ in
 * the last byte: the {@code mismatch} path), {@code swapRecords} (1024 swaps of 16 bytes), {@code hashKeys} (1024
 * hashes of 32 bytes) and {@code bigEndianKeys} (4096 big-endian long writes and reads).
 */
@State(Scope.Benchmark)
public abstract class KindProfileBenchmark {

    static final int BYTES = 32 * 1024;

    /** The segment kind measured. */
    @Param({"heap", "native", "mapped"})
    public String kind;

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
        for (long i = 0; i < BYTES; i += 8) {
            long v = rnd.nextLong();
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
            other.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i % 64 == 0 ? v + 1 : v);
        }
        MemorySegment.copy(seg, 0, same, 0, BYTES);
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
            case "heap" -> MemorySegment.ofArray(new byte[BYTES]);
            case "native" -> arena.allocate(BYTES, 64);
            case "mapped" -> {
                Path f = Files.createTempFile(Path.of("/tmp"), "offheap-kinds", ".bin");
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.DELETE_ON_CLOSE)) {
                    yield ch.map(FileChannel.MapMode.READ_WRITE, 0, BYTES, arena);
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

    /** Runs every measured loop once on the given segments. */
    static long runAll(MemorySegment a, MemorySegment b) {
        return sumLongs(a) + sumBytes(a) + compareKeys(a, b) + compareRegion(a, b) + swapRecords(b)
                + hashKeys(a) + bigEndianKeys(b);
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

    static long compareKeys(MemorySegment a, MemorySegment b) {
        long sum = 0;
        for (long i = 0; i < BYTES; i += 32) {
            sum += Segments.compareUnsigned(a, i, b, i + 16, 16);
        }
        return sum;
    }

    static long compareRegion(MemorySegment a, MemorySegment b) {
        return Segments.compareUnsigned(a, 0, b, 0, BYTES);
    }

    static long swapRecords(MemorySegment s) {
        for (long i = 0; i < BYTES / 2; i += 16) {
            Segments.swap(s, i, s, i + BYTES / 2, 16);
        }
        return s.get(ValueLayout.JAVA_BYTE, 0);
    }

    static long hashKeys(MemorySegment s) {
        long h = 0;
        for (long i = 0; i < BYTES; i += 32) {
            h ^= Segments.hash64(s, i, 32);
        }
        return h;
    }

    static long bigEndianKeys(MemorySegment s) {
        long sum = 0;
        for (long i = 0; i < BYTES; i += 8) {
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
    public long compareKeys() {
        return compareKeys(seg, other);
    }

    @Benchmark
    public long compareRegion() {
        return compareRegion(seg, same);
    }

    @Benchmark
    public long swapRecords() {
        return swapRecords(other);
    }

    @Benchmark
    public long hashKeys() {
        return hashKeys(seg);
    }

    @Benchmark
    public long bigEndianKeys() {
        return bigEndianKeys(other);
    }
}
