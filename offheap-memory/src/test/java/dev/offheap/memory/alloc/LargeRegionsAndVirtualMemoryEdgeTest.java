package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.HeldInDowncall;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Edges of the code that maps, unmaps and frees memory itself: {@link LargeRegions}, the allocators'
 * close and free while a downcall still holds one of their segments (the Linker keeps a segment's
 * scope acquired for the call, so its arena cannot close then: {@code Arena.close} throws
 * {@link IllegalStateException}).
 */
class LargeRegionsAndVirtualMemoryEdgeTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    // ------------------------------------------------------------------ PooledAllocator

    @Test
    void pooledCloseRefusedByADowncallCanBeRepeatedAndThenGivesEverythingBack() {
        assertTimeoutPreemptively(LIMIT, () -> {
            Budget budget = Budget.root("pooled-close-held", 64L << 20);
            PooledAllocator pool = PooledAllocator.builder().budget(budget).capacity(32L << 20)
                    .idleRelease(Duration.ZERO).build();
            MemorySegment small = pool.allocate(64);
            MemorySegment large = pool.allocate(1 << 20);
            assertThat(budget.used()).isPositive();
            HeldInDowncall held = new HeldInDowncall(large);
            try {
                // the memory is in use by native code: close must neither unmap it nor pretend to have closed
                assertThatThrownBy(pool::close).isInstanceOf(IllegalStateException.class);
                assertThat(large.get(ValueLayout.JAVA_LONG, 0)).isZero();
            } finally {
                held.release();
            }
            pool.close();
            assertThat(small.scope().isAlive()).as("segments are inaccessible after close").isFalse();
            assertThat(large.scope().isAlive()).isFalse();
            assertThat(budget.used()).as("the range's charge goes back with the range").isZero();
            assertThatThrownBy(() -> pool.allocate(16)).isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void pooledFullModeFreeRefusedByADowncallLeavesTheAllocationLive() {
        assertTimeoutPreemptively(LIMIT, () -> {
            try (PooledAllocator pool = PooledAllocator.builder().debug(DebugMode.FULL).capacity(32L << 20)
                    .idleRelease(Duration.ZERO).build()) {
                for (long size : new long[] {64, 1 << 20}) {
                    MemorySegment segment = pool.allocate(size);
                    HeldInDowncall held = new HeldInDowncall(segment);
                    try {
                        assertThatThrownBy(() -> pool.free(segment)).as("%d bytes", size)
                                .isInstanceOf(IllegalStateException.class).hasMessageContaining("in use");
                        assertThat(pool.allocatedBytes()).as("still live").isEqualTo(size);
                        assertThat(segment.get(ValueLayout.JAVA_LONG, 0)).isZero();
                    } finally {
                        held.release();
                    }
                    pool.free(segment);
                    assertThat(pool.allocatedBytes()).as("freed once the downcall returned").isZero();
                    assertThat(segment.scope().isAlive()).isFalse();
                }
                assertThat(pool.report().liveAllocations()).isZero();
            }
        });
    }

    // ------------------------------------------------------------------ NativeAllocator

    @Test
    void nativeCloseRefusedByADowncallCanBeRepeatedAndThenFreesEverything() {
        assertTimeoutPreemptively(LIMIT, () -> {
            Budget budget = Budget.root("native-close-held", 64L << 20);
            NativeAllocator malloc = NativeAllocator.builder().budget(budget).debug(DebugMode.OFF).build();
            MemorySegment small = malloc.allocate(64);
            MemorySegment large = malloc.allocate(NativeAllocator.OWN_SCOPE_THRESHOLD + 1);
            assertThat(budget.used()).isEqualTo(64 + NativeAllocator.OWN_SCOPE_THRESHOLD + 1);
            HeldInDowncall held = new HeldInDowncall(small);
            try {
                assertThatThrownBy(malloc::close).isInstanceOf(IllegalStateException.class);
                assertThat(small.get(ValueLayout.JAVA_LONG, 0)).isZero();
            } finally {
                held.release();
            }
            malloc.close();
            assertThat(small.scope().isAlive()).isFalse();
            assertThat(large.scope().isAlive()).isFalse();
            assertThat(budget.used()).as("every allocation freed by the close that succeeded").isZero();
        });
    }

    @Test
    void nativeCloseRefusedByADowncallOnALargeAllocationFreesNothingTwice() {
        assertTimeoutPreemptively(LIMIT, () -> {
            Budget budget = Budget.root("native-close-held-large", 64L << 20);
            NativeAllocator malloc = NativeAllocator.builder().budget(budget).debug(DebugMode.OFF).build();
            MemorySegment[] small = new MemorySegment[200];
            for (int i = 0; i < small.length; i++) {
                small[i] = malloc.allocate(32);
            }
            MemorySegment large = malloc.allocate(NativeAllocator.OWN_SCOPE_THRESHOLD + 1);
            HeldInDowncall held = new HeldInDowncall(large);
            try {
                assertThatThrownBy(malloc::close).isInstanceOf(IllegalStateException.class);
                // the large block is still the downcall's: readable, not freed under it
                assertThat(large.get(ValueLayout.JAVA_LONG, 0)).isZero();
            } finally {
                held.release();
            }
            malloc.close();
            assertThat(large.scope().isAlive()).isFalse();
            assertThat(budget.used()).isZero();
        });
    }

    @Test
    void nativeFreeRefusedByADowncallLeavesTheAllocationLive() {
        assertTimeoutPreemptively(LIMIT, () -> {
            Budget budget = Budget.root("native-free-held", 64L << 20);
            long size = NativeAllocator.OWN_SCOPE_THRESHOLD + 1;
            try (NativeAllocator malloc = NativeAllocator.builder().budget(budget).debug(DebugMode.OFF).build()) {
                MemorySegment large = malloc.allocate(size);
                HeldInDowncall held = new HeldInDowncall(large);
                try {
                    // freeing memory that native code is using is refused, and nothing is lost by the refusal
                    assertThatThrownBy(() -> malloc.free(large)).isInstanceOf(IllegalStateException.class);
                    assertThat(malloc.allocatedBytes()).isEqualTo(size);
                    assertThat(large.get(ValueLayout.JAVA_LONG, 0)).isZero();
                } finally {
                    held.release();
                }
                malloc.free(large);
                assertThat(malloc.allocatedBytes()).isZero();
                assertThat(budget.used()).isZero();
                assertThat(large.scope().isAlive()).isFalse();
            }
        });
    }

    // ------------------------------------------------------------------ LargeRegions

    /** The javadoc promised IllegalStateException; FFM (and so this method, at every size) throws WrongThreadException. */
    @Test
    void aRegionOfAConfinedArenaOfAnotherThreadIsRefusedAsDocumented() throws Exception {
        try (Arena confined = Arena.ofConfined()) {
            for (long bytes : new long[] {4096, 4L << 20}) {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Thread other = new Thread(() -> {
                    try {
                        LargeRegions.allocate(bytes, confined);
                    } catch (Throwable e) {
                        thrown.set(e);
                    }
                });
                other.start();
                other.join(10_000);
                assertThat(thrown.get()).as("%d bytes", bytes).isInstanceOf(WrongThreadException.class);
            }
        }
    }

    @Test
    void aRegionTooLargeToMapIsRefusedWithItsSize() {
        try (Arena arena = Arena.ofShared()) {
            for (long bytes : new long[] {Long.MAX_VALUE, Long.MAX_VALUE - (2L << 20) + 2, 1L << 62}) {
                assertThatThrownBy(() -> LargeRegions.allocate(bytes, arena)).isInstanceOf(OutOfMemoryError.class)
                        .hasMessageContaining(Long.toString(bytes));
            }
        }
    }
}
