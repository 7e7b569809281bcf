package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** PooledAllocator under several threads: frees racing frees and allocations of the same block. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FullModeDoubleFreeRaceTest {

    /**
     * FULL mode promises that a stale segment (its own scope closed by the first free) never frees the
     * allocation made at its address since. A second free that checked the scope while it was still
     * open, just before the first free closed it, then waited for the close lock while another thread
     * took the block again, freed that later allocation and returned normally. The test holds the close
     * lock to stand in for the scheduler: the second free waits there, and this thread (re-entering the
     * lock) frees and allocates meanwhile.
     */
    @Test
    void aSecondFreeRacingTheFirstNeverFreesTheAllocationMadeSinceInFullMode() throws Exception {
        assertASecondFreeRacingTheFirstIsRefused(48, "closeLock");
    }

    /**
     * The same race for an allocation of whole units: the second free found the span before the first
     * freed it and then waited for the range's lock while the units went to a later allocation. It was
     * told a foreign free (IllegalArgumentException), where FULL mode promises IllegalStateException for
     * every double free.
     */
    @Test
    void aSecondFreeOfALargeAllocationRacingTheFirstIsADoubleFreeInFullMode() throws Exception {
        assertASecondFreeRacingTheFirstIsRefused(200_000, "range");
    }

    /**
     * Holds the allocator's lock named {@code lockField} while a second thread frees a segment (it waits
     * there), frees the same segment and allocates its block again on this thread; then the second free
     * must be refused as a double free and the later allocation stay live.
     */
    private static void assertASecondFreeRacingTheFirstIsRefused(long size, String lockField) throws Exception {
        try (PooledAllocator a = PooledAllocator.builder().debug(DebugMode.FULL).idleRelease(Duration.ZERO).build()) {
            MemorySegment first = a.allocate(size);
            Object lock = field(a, lockField);
            AtomicReference<Throwable> secondFree = new AtomicReference<>();
            MemorySegment later;
            Thread second;
            synchronized (lock) {
                second = Thread.ofPlatform().start(() -> {
                    try {
                        a.free(first);
                    } catch (Throwable e) {
                        secondFree.set(e);
                    }
                });
                awaitBlocked(second);
                a.free(first);
                later = a.allocate(size);
                assertThat(later.address()).isEqualTo(first.address());
            }
            second.join(10_000);
            assertThat(secondFree.get()).as("the second free of the same segment").isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free");
            assertThat(later.scope().isAlive()).as("the later allocation's scope").isTrue();
            a.free(later);
            assertThat(a.allocatedBytes()).isZero();
        }
    }

    private static void awaitBlocked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.BLOCKED) {
            assertThat(System.nanoTime()).as("thread blocked in time").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }
}
