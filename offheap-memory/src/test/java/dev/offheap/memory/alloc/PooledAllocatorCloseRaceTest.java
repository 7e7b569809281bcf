package dev.offheap.memory.alloc;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** PooledAllocator.close() racing a large allocation served by its MemoryManager. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PooledAllocatorCloseRaceTest {
    @Test
    void closeRacingManagerBackedAllocationNeitherHandsOutMemoryNorLeaksPages() throws Exception {
        AtomicInteger liveAfterClose = new AtomicInteger();
        AtomicInteger heldAtClose = new AtomicInteger();
        int leakedRounds = 0;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(s -> { })
                .pageAccess(PageAccess.SHARED).pageSize(128 << 10).totalSize(64L << 20).build()) {
            int pagesBefore = 0;
            for (int round = 0; round < 2000; round++) {
                PooledAllocator pool = PooledAllocator.builder().memoryManager(mm).capacity(1 << 20)
                        .idleRelease(Duration.ZERO).build();
                CountDownLatch closeReturned = new CountDownLatch(1);
                CountDownLatch allocating = new CountDownLatch(1);
                Thread worker = new Thread(() -> {
                    try {
                        while (true) {
                            MemorySegment s = pool.allocateUninitialized(100_000);
                            allocating.countDown();
                            if (pool.isClosed()) {
                                heldAtClose.incrementAndGet();
                                closeReturned.await(10, TimeUnit.SECONDS);
                                if (s.scope().isAlive()) {
                                    liveAfterClose.incrementAndGet();   // usable memory from a closed allocator
                                }
                                return;
                            }
                            pool.free(s);
                        }
                    } catch (IllegalStateException | InterruptedException closed) {
                        // refused: what close promises
                    }
                });
                worker.setDaemon(true);
                worker.start();
                // close() comes once the worker is allocating: started later, the worker found the allocator closed
                assertThat(allocating.await(10, TimeUnit.SECONDS)).as("the worker allocated").isTrue();
                for (int spin = (round % 50) * 20; spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                pool.close();
                closeReturned.countDown();
                worker.join(10_000);
                int held = mm.usedPages() - pagesBefore;
                if (held != 0) {
                    leakedRounds++;        // pages of the closed allocator's owner that nothing will ever release
                    pagesBefore += held;
                }
            }
            assertThat(heldAtClose.get()).as("rounds in which the worker held an allocation when close() came")
                    .isPositive();
            assertThat(liveAfterClose.get() + " live segments after close, " + leakedRounds
                    + " rounds leaving manager pages held: " + mm.usageByOwner()).isEqualTo("0 live segments after close, 0"
                    + " rounds leaving manager pages held: {}");
        }
    }
}
