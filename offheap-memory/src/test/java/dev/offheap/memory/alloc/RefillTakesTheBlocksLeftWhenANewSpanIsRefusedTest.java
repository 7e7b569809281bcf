package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A thread cache refills half a bin from the central pool. When the pool holds fewer free blocks than
 * that and the range or the budget refuses a new span, the request is served from the blocks there
 * are: a refill that gave them back and threw refused an allocation that a free block could serve.
 */
class RefillTakesTheBlocksLeftWhenANewSpanIsRefusedTest {
    private static final int BLOCK = 64 * 1024;

    @Test
    void aFullRangeStillHandsOutTheBlockFreedInIt() {
        // 16 units: two spans of the 64 KiB class (8 units each)
        try (PooledAllocator a = PooledAllocator.builder().capacity(1 << 20).idleRelease(Duration.ZERO)
                .debug(DebugMode.OFF).build()) {
            assertServesTheFreedBlock(a);
        }
    }

    @Test
    void aFullBudgetStillHandsOutTheBlockFreedUnderIt() {
        try (Budget budget = Budget.root("component", 1 << 20);
             PooledAllocator a = PooledAllocator.builder().budget(budget).idleRelease(Duration.ZERO)
                     .debug(DebugMode.OFF).build()) {
            assertServesTheFreedBlock(a);
            assertThat(budget.used()).isEqualTo(1 << 20);
        }
    }

    private static void assertServesTheFreedBlock(PooledAllocator a) {
        List<MemorySegment> blocks = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            blocks.add(a.allocateUninitialized(BLOCK));
        }
        assertThat(a.footprintBytes()).isEqualTo(1 << 20);
        MemorySegment freed = blocks.remove(3);
        a.free(freed);
        a.trim(); // the free block goes from this thread's cache to the central pool

        MemorySegment again;
        try {
            again = a.allocateUninitialized(BLOCK);
        } catch (OutOfMemoryError | RuntimeException refused) {
            // JUnit aborts the whole run on an OutOfMemoryError: report it as a failure of this test
            throw new AssertionError("refused although a free block was in the pool: " + refused, refused);
        }

        assertThat(again.address()).isEqualTo(freed.address());
        assertThat(a.allocatedBytes()).isEqualTo(16L * BLOCK);
        blocks.add(again);
        blocks.forEach(a::free);
        assertThat(a.allocatedBytes()).isZero();
    }
}
