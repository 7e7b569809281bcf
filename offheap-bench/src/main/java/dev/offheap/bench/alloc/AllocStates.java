package dev.offheap.bench.alloc;

import dev.offheap.bench.baseline.ThirdPartyForks;
import dev.offheap.memory.alloc.DebugMode;
import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.PooledAllocator;
import dev.offheap.memory.alloc.StackAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.lang.foreign.Arena;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The allocators the allocation benchmarks share, as JMH states, and the fork settings of the
 * suite. An allocator that threads share in real programs (Netty's, the library's) is one
 * {@link Scope#Benchmark} state that both threads of the two-thread benchmarks use; per-thread
 * structures (the bump region) are {@link Scope#Thread}.
 */
public final class AllocStates {
    /** Forks per benchmark in the committed run (the CLI's modes override it). */
    static final int FORKS = 2;

    /**
     * Netty's forks: no leak detection, so that Netty runs with nothing but its allocator, like the
     * library's allocators in debug mode OFF (Netty's default, SIMPLE, samples 1 buffer in 128 with a
     * stack trace, comparable to the library's SAMPLED mode).
     */
    static final String NETTY_NO_LEAK_DETECTION = "-Dio.netty.leakDetection.level=disabled";

    /** The fork of the Netty variant with raw-address buffers (see {@link ThirdPartyForks}). */
    static final String UNSAFE_ALLOWED = ThirdPartyForks.UNSAFE_MEMORY_ACCESS_ALLOWED;

    /** Size of each thread's bump region: room for 16 of the largest allocations. */
    static final long BUMP_REGION_BYTES = 1L << 20;

    private AllocStates() {
    }

    /** Checks once per fork that mimalloc is there, with a clear message where it is not. */
    @State(Scope.Benchmark)
    public static class MimallocLoaded {
        /** @throws IllegalStateException if mimalloc is not installed */
        @Setup(Level.Trial)
        public void check() {
            Mimalloc.require();
        }
    }

    /**
     * Netty 4.2's {@link PooledByteBufAllocator} with direct buffers and its default arenas, page size
     * and cache sizes, with thread-local caches for every thread (by default Netty gives them only to
     * its own event-loop threads, and the JMH worker threads would take the slower, locked path).
     */
    @State(Scope.Benchmark)
    public static class Netty {
        PooledByteBufAllocator allocator;

        /** Builds the allocator and checks the fork runs it as documented. */
        @Setup(Level.Trial)
        public void build() {
            allocator = new PooledByteBufAllocator(true,
                    PooledByteBufAllocator.defaultNumHeapArena(), PooledByteBufAllocator.defaultNumDirectArena(),
                    PooledByteBufAllocator.defaultPageSize(), PooledByteBufAllocator.defaultMaxOrder(),
                    PooledByteBufAllocator.defaultSmallCacheSize(), PooledByteBufAllocator.defaultNormalCacheSize(),
                    true);
            ByteBuf probe = allocator.directBuffer(16, 16);
            boolean direct = probe.isDirect();
            probe.release();
            if (!direct) {
                throw new IllegalStateException("Netty handed out a heap buffer for directBuffer()");
            }
            checkUnsafe(PlatformDependent.hasUnsafe());
        }

        /**
         * @param unsafe whether Netty uses raw-address buffers in this fork
         * @throws IllegalStateException if that is not what the variant measures
         */
        void checkUnsafe(boolean unsafe) {
            if (unsafe) {
                throw new IllegalStateException("Netty uses Unsafe in this fork, but the variant measures "
                        + "Netty's default on JDK 25 without it");
            }
        }
    }

    /** {@link Netty} in the fork with raw-address buffers ({@link ThirdPartyForks#UNSAFE_MEMORY_ACCESS_ALLOWED}). */
    @State(Scope.Benchmark)
    public static class NettyUnsafe extends Netty {
        @Override
        void checkUnsafe(boolean unsafe) {
            if (!unsafe) {
                throw new IllegalStateException("Netty does not use Unsafe in this fork although "
                        + UNSAFE_ALLOWED + " was given: " + PlatformDependent.getUnsafeUnavailabilityCause());
            }
        }
    }

    /** Each thread's bump region, in a shared arena so that any thread may close it. */
    @State(Scope.Thread)
    public static class Bump {
        Arena arena;
        BumpRegion region;

        /** Allocates the region. */
        @Setup(Level.Trial)
        public void open() {
            arena = Arena.ofShared();
            region = new BumpRegion(arena.allocate(BUMP_REGION_BYTES, BumpRegion.ALIGNMENT));
        }

        /** Frees it. */
        @TearDown(Level.Trial)
        public void close() {
            arena.close();
        }
    }

    /**
     * The library's {@link PooledAllocator} with its defaults and debug mode {@link DebugMode#OFF},
     * shared by all threads; the debug mode is set explicitly so that the
     * {@code offheap.alloc.debug} property cannot change what a variant measures.
     */
    @State(Scope.Benchmark)
    public static class Pooled {
        PooledAllocator allocator;

        DebugMode mode() {
            return DebugMode.OFF;
        }

        /** Builds the allocator. */
        @Setup(Level.Trial)
        public void build() {
            allocator = PooledAllocator.builder().debug(mode()).build();
        }

        /** Frees everything it holds. */
        @TearDown(Level.Trial)
        public void close() {
            allocator.close();
        }
    }

    /** {@link Pooled} in {@link DebugMode#SAMPLED}, tracking its default 1 allocation in {@link DebugMode#DEFAULT_SAMPLE_RATE}. */
    @State(Scope.Benchmark)
    public static class PooledSampled extends Pooled {
        @Override
        DebugMode mode() {
            return DebugMode.SAMPLED;
        }
    }

    /** {@link Pooled} in {@link DebugMode#FULL}: every allocation tracked, with its own scope. */
    @State(Scope.Benchmark)
    public static class PooledFull extends Pooled {
        @Override
        DebugMode mode() {
            return DebugMode.FULL;
        }
    }

    /**
     * The library's {@link StackAllocator} with 1 MiB per thread (so that no size of the suite makes
     * it grow) in debug mode {@link DebugMode#OFF}; each thread pushes frames on its own stack.
     */
    @State(Scope.Benchmark)
    public static class Stack {
        /** Bytes of each thread's stack. */
        static final long STACK_BYTES = 1L << 20;

        StackAllocator allocator;

        /** Builds the allocator; each thread's stack is made on its first push. */
        @Setup(Level.Trial)
        public void build() {
            allocator = StackAllocator.builder().stackSize(STACK_BYTES).debug(DebugMode.OFF).build();
        }

        /** Frees every thread's stack. */
        @TearDown(Level.Trial)
        public void close() {
            allocator.close();
        }
    }

    /** The library's {@link NativeAllocator} over malloc, debug mode {@link DebugMode#OFF}. */
    @State(Scope.Benchmark)
    public static class NativeMalloc {
        NativeAllocator allocator;

        NativeAllocator.Kind kind() {
            return NativeAllocator.Kind.MALLOC;
        }

        /**
         * Builds the allocator.
         *
         * @throws IllegalStateException for mimalloc where it is not installed
         */
        @Setup(Level.Trial)
        public void build() {
            allocator = NativeAllocator.builder().kind(kind()).debug(DebugMode.OFF).build();
        }

        /** Frees what is left. */
        @TearDown(Level.Trial)
        public void close() {
            allocator.close();
        }
    }

    /** The library's {@link NativeAllocator} over mimalloc, debug mode {@link DebugMode#OFF}. */
    @State(Scope.Benchmark)
    public static class NativeMimalloc extends NativeMalloc {
        @Override
        NativeAllocator.Kind kind() {
            return NativeAllocator.Kind.MIMALLOC;
        }
    }
}
