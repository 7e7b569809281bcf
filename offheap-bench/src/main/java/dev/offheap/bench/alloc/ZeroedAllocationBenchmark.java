package dev.offheap.bench.alloc;

import dev.offheap.bench.Baseline;
import dev.offheap.bench.Requires;
import dev.offheap.memory.alloc.Allocator;
import dev.offheap.memory.alloc.StackAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Threads;

/**
 * Allocate + touch + free of {@code bytes} of zeroed memory, on one thread;
 * {@link ZeroedAllocationTwoThreadsBenchmark} runs the same on two threads. What
 * {@code Arena.allocate} promises (zeroed contents) is what these variants all deliver, so they
 * compare fairly; {@link UninitializedAllocationBenchmark} measures allocation without zeroing.
 *
 * <p>Mode: {@link Mode#AverageTime}, nanoseconds per allocate + touch + free, lower is better (at
 * two threads: per thread). Touch: the first and the last 8-byte word are written.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code calloc} (baseline): glibc {@code calloc(1, bytes)} / {@code free} as critical downcalls.
 * <li>{@code mimallocCalloc}: {@code mi_calloc} / {@code mi_free}; left out where mimalloc is missing.
 * <li>{@code arenaConfined}, {@code arenaShared}: one {@code Arena.ofConfined()} /
 *     {@code Arena.ofShared()} per allocation, {@code allocate(bytes)}, {@code close()}; closing a
 *     shared arena costs a handshake with every Java thread.
 * <li>{@code directByteBuffer}: {@code ByteBuffer.allocateDirect(bytes)}, two {@code putLong}, then
 *     dropped: freed by a Cleaner after the GC finds it unreachable (run with {@code --prof gc} to
 *     see the heap it costs).
 * <li>{@code bumpZeroed}: the bump region's slice, zeroed with {@code fill(0)}: the upper bound.
 * <li>{@code pooled}: the library's {@code PooledAllocator} (debug OFF), {@code allocate(bytes)},
 *     {@code free(segment)}.
 * <li>{@code stack}: the library's {@code StackAllocator} (1 MiB per thread, OFF):
 *     {@code pushFrame()}, {@code allocate(bytes)}, touch, close the frame.
 * <li>{@code nativeMalloc}, {@code nativeMimalloc}: the library's {@code NativeAllocator} over
 *     malloc and mimalloc (OFF), {@code allocate(bytes)}, {@code free(segment)}.
 * </ul>
 * Goal checked in the report: the pooled allocator at least 3x faster than {@code Arena.ofConfined()}.
 */
@Threads(1)
public class ZeroedAllocationBenchmark extends AllocationSizeBenchmark {

    @Benchmark
    @Baseline
    public long calloc() {
        MemorySegment segment = Libc.calloc(bytes);
        long address = Touch.firstAndLast(segment);
        Libc.free(segment);
        return address;
    }

    @Benchmark
    @Requires(Mimalloc.Installed.class)
    public long mimallocCalloc(AllocStates.MimallocLoaded loaded) {
        MemorySegment segment = Mimalloc.calloc(bytes);
        long address = Touch.firstAndLast(segment);
        Mimalloc.free(segment);
        return address;
    }

    @Benchmark
    public long arenaConfined() {
        try (Arena arena = Arena.ofConfined()) {
            return Touch.firstAndLast(arena.allocate(bytes));
        }
    }

    @Benchmark
    public long arenaShared() {
        try (Arena arena = Arena.ofShared()) {
            return Touch.firstAndLast(arena.allocate(bytes));
        }
    }

    @Benchmark
    public ByteBuffer directByteBuffer() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(bytes);
        int last = bytes - Long.BYTES;
        buffer.putLong(0, last);
        buffer.putLong(last, 1L);
        return buffer;
    }

    @Benchmark
    public long bumpZeroed(AllocStates.Bump bump) {
        return Touch.firstAndLast(bump.region.allocate(bytes).fill((byte) 0));
    }

    @Benchmark
    public long pooled(AllocStates.Pooled pooled) {
        return zeroed(pooled.allocator);
    }

    @Benchmark
    public long stack(AllocStates.Stack stack) {
        try (StackAllocator.Frame frame = stack.allocator.pushFrame()) {
            return Touch.firstAndLast(frame.allocate(bytes));
        }
    }

    @Benchmark
    public long nativeMalloc(AllocStates.NativeMalloc allocator) {
        return zeroed(allocator.allocator);
    }

    @Benchmark
    @Requires(Mimalloc.Installed.class)
    public long nativeMimalloc(AllocStates.NativeMimalloc allocator) {
        return zeroed(allocator.allocator);
    }

    private long zeroed(Allocator allocator) {
        MemorySegment segment = allocator.allocate(bytes);
        long address = Touch.firstAndLast(segment);
        allocator.free(segment);
        return address;
    }
}
