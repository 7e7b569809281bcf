package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SAMPLED mode takes each sampled block from spans of its own. When the budget or the range refuses
 * such a span, the allocation goes untracked and is served as {@link DebugMode#OFF} serves it, here
 * from the block the thread just freed; it failed instead, so an allocator at its limit refused, now
 * and then, requests that the same allocator without sampling served.
 */
class SampleRefusedASpanGoesUntrackedTest {
    private static final int BLOCK = 64 * 1024;

    @Test
    void aSampleAtAFullBudgetIsServedFromTheCache() throws ReflectiveOperationException {
        try (Budget budget = Budget.root("component", 1 << 20);
             PooledAllocator a = sampled().budget(budget).build()) {
            assertSampleServedFromTheCache(a);
            assertThat(budget.used()).isEqualTo(1 << 20);
        }
    }

    @Test
    void aSampleInAFullRangeIsServedFromTheCache() throws ReflectiveOperationException {
        try (PooledAllocator a = sampled().capacity(1 << 20).build()) {
            assertSampleServedFromTheCache(a);
        }
    }

    /** A rate so low that nothing is sampled unless the test says so. */
    private static PooledAllocator.Builder sampled() {
        return PooledAllocator.builder().debug(DebugMode.SAMPLED).sampleRate(1 << 30).idleRelease(Duration.ZERO);
    }

    private static void assertSampleServedFromTheCache(PooledAllocator a) throws ReflectiveOperationException {
        List<MemorySegment> blocks = new ArrayList<>();
        for (int i = 0; i < 16; i++) { // two untracked spans of the 64 KiB class: all of the budget or range
            blocks.add(a.allocateUninitialized(BLOCK));
        }
        MemorySegment freed = blocks.remove(5);
        a.free(freed); // on this thread's cache
        ownCache(a).sampleCountdown = 1; // the next allocation is sampled

        MemorySegment again;
        try {
            again = a.allocateUninitialized(BLOCK);
        } catch (OutOfMemoryError | RuntimeException refused) {
            // JUnit aborts the whole run on an OutOfMemoryError: report it as a failure of this test
            throw new AssertionError("refused although the thread's cache held a free block: " + refused, refused);
        }

        assertThat(again.address()).isEqualTo(freed.address());
        assertThat(a.allocatedBytes()).isEqualTo(16L * BLOCK);
        assertThat(a.footprintBytes()).isEqualTo(1 << 20);
        blocks.add(again);
        blocks.forEach(a::free);
        assertThat(a.allocatedBytes()).isZero();
        assertThat(a.report().problems()).isEmpty();
    }

    private static ThreadCache ownCache(PooledAllocator a) throws ReflectiveOperationException {
        Field f = PooledAllocator.class.getDeclaredField("localCache");
        f.setAccessible(true);
        return (ThreadCache) ((ThreadLocal<?>) f.get(a)).get();
    }
}
