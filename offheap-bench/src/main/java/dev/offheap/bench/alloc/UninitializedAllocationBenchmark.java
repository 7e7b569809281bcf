package dev.offheap.bench.alloc;

import dev.offheap.bench.Baseline;
import dev.offheap.bench.Requires;
import dev.offheap.memory.alloc.Allocator;
import dev.offheap.memory.alloc.StackAllocator;
import io.netty.buffer.ByteBuf;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Threads;

/**
 * Allocate + touch + free of {@code bytes} whose contents may be anything (no zeroing), on one
 * thread; {@link UninitializedAllocationTwoThreadsBenchmark} runs the same on two threads.
 * {@link ZeroedAllocationBenchmark} measures the allocations that zero.
 *
 * <p>Mode: {@link Mode#AverageTime}, nanoseconds per allocate + touch + free, lower is better (at
 * two threads: per thread). Touch: the first and the last 8-byte word are written
 * ({@link Touch}).
 *
 * <p>The variants:
 * <ul>
 * <li>{@code malloc} (baseline): glibc {@code malloc} / {@code free} as critical downcalls, the
 *     result reinterpreted to a segment of {@code bytes}.
 * <li>{@code mimalloc}: {@code mi_malloc} / {@code mi_free} the same way, from Debian's
 *     libmimalloc2.0; left out with a message where it is not installed.
 * <li>{@code nettyPooled}: Netty 4.2's {@code PooledByteBufAllocator}, {@code directBuffer(bytes,
 *     bytes)}, two {@code setLong}, {@code release()}; thread caches for all threads, no leak
 *     detection ({@link AllocStates.Netty}). On JDK 25 Netty's buffers are ByteBuffer-backed by
 *     default.
 * <li>{@code nettyPooledUnsafe}: the same in the fork where Netty uses raw-address buffers
 *     ({@link dev.offheap.bench.baseline.ThirdPartyForks}), Netty's fastest configuration.
 * <li>{@code bump}: a slice of a per-thread 1 MiB segment by bumping an offset, nothing freed,
 *     back to the start when full ({@link BumpRegion}): the upper bound of any allocator.
 * <li>{@code pooled}, {@code pooledSampled}, {@code pooledFull}: the library's
 *     {@code PooledAllocator} in debug mode OFF, SAMPLED (1 in 4096 tracked by default) and FULL, one allocator
 *     shared by the threads; {@code allocateUninitialized(bytes)}, {@code free(segment)}.
 * <li>{@code stack}: the library's {@code StackAllocator} (1 MiB per thread, OFF):
 *     {@code pushFrame()}, {@code allocateUninitialized(bytes)}, touch, close the frame.
 * <li>{@code nativeMalloc}, {@code nativeMimalloc}: the library's {@code NativeAllocator} over
 *     malloc and mimalloc (OFF): {@code allocateUninitialized(bytes)}, {@code free(segment)}.
 * </ul>
 * Goals checked in the report: the pooled allocator at least 1.5x faster than the faster of malloc
 * and mimalloc at every size and at least 5x faster than Netty; the stack allocator within 1.5x of
 * bump and at least 3x faster than malloc; SAMPLED debug at most 1.15x plain pooled; two threads at
 * most 1.25x the one-thread time per operation.
 */
@Threads(1)
public class UninitializedAllocationBenchmark extends AllocationSizeBenchmark {

    @Benchmark
    @Baseline
    public long malloc() {
        MemorySegment segment = Libc.malloc(bytes);
        long address = Touch.firstAndLast(segment);
        Libc.free(segment);
        return address;
    }

    @Benchmark
    @Requires(Mimalloc.Installed.class)
    public long mimalloc(AllocStates.MimallocLoaded loaded) {
        MemorySegment segment = Mimalloc.malloc(bytes);
        long address = Touch.firstAndLast(segment);
        Mimalloc.free(segment);
        return address;
    }

    @Benchmark
    @Fork(value = AllocStates.FORKS, jvmArgsAppend = AllocStates.NETTY_NO_LEAK_DETECTION)
    public long nettyPooled(AllocStates.Netty netty) {
        return netty(netty);
    }

    @Benchmark
    @Fork(value = AllocStates.FORKS,
            jvmArgsAppend = {AllocStates.NETTY_NO_LEAK_DETECTION, AllocStates.UNSAFE_ALLOWED})
    public long nettyPooledUnsafe(AllocStates.NettyUnsafe netty) {
        return netty(netty);
    }

    private long netty(AllocStates.Netty netty) {
        ByteBuf buffer = netty.allocator.directBuffer(bytes, bytes);
        long last = bytes - Long.BYTES;
        buffer.setLongLE(0, last);
        buffer.setLongLE((int) last, 1L);
        buffer.release();
        return last;
    }

    @Benchmark
    public long bump(AllocStates.Bump bump) {
        return Touch.firstAndLast(bump.region.allocate(bytes));
    }

    @Benchmark
    public long pooled(AllocStates.Pooled pooled) {
        return uninitialized(pooled.allocator);
    }

    @Benchmark
    public long pooledSampled(AllocStates.PooledSampled pooled) {
        return uninitialized(pooled.allocator);
    }

    @Benchmark
    public long pooledFull(AllocStates.PooledFull pooled) {
        return uninitialized(pooled.allocator);
    }

    @Benchmark
    public long stack(AllocStates.Stack stack) {
        try (StackAllocator.Frame frame = stack.allocator.pushFrame()) {
            return Touch.firstAndLast(frame.allocateUninitialized(bytes));
        }
    }

    @Benchmark
    public long nativeMalloc(AllocStates.NativeMalloc allocator) {
        return uninitialized(allocator.allocator);
    }

    @Benchmark
    @Requires(Mimalloc.Installed.class)
    public long nativeMimalloc(AllocStates.NativeMimalloc allocator) {
        return uninitialized(allocator.allocator);
    }

    private long uninitialized(Allocator allocator) {
        MemorySegment segment = allocator.allocateUninitialized(bytes);
        long address = Touch.firstAndLast(segment);
        allocator.free(segment);
        return address;
    }
}
