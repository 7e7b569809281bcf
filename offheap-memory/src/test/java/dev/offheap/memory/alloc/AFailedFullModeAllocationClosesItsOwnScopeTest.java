package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * In {@link DebugMode#FULL} every pooled allocation gets a shared {@link Arena} of its own, made before its
 * block. When the block was then refused (by the budget, by the full address range, or by a close that ran
 * meanwhile) the arena stayed open, though no segment of it was ever handed out; now the failure closes it.
 */
class AFailedFullModeAllocationClosesItsOwnScopeTest {
    private final List<Arena> made = new CopyOnWriteArrayList<>();

    private PooledAllocator.Builder recordingScopes() {
        return PooledAllocator.builder().debug(DebugMode.FULL).idleRelease(Duration.ZERO).registerMBean(false)
                .ownScopes(() -> {
                    Arena arena = Arena.ofShared();
                    made.add(arena);
                    return arena;
                });
    }

    @Test
    void aSmallAllocationTheBudgetRefusesLeavesNoScopeOpen() {
        Budget budget = Budget.root("smaller than a unit", 32 << 10);
        try (PooledAllocator pool = recordingScopes().budget(budget).build()) {
            assertThatThrownBy(() -> pool.allocate(100)).isInstanceOf(BudgetExceededException.class);
            assertThat(made).isNotEmpty().allSatisfy(a -> assertThat(a.scope().isAlive()).isFalse());
        } finally {
            budget.close();
        }
    }

    @Test
    void aSmallAllocationTheFullRangeRefusesLeavesNoScopeOpen() {
        try (PooledAllocator pool = recordingScopes().capacity(1 << 20).build()) {
            MemorySegment everything = pool.allocateUninitialized(1 << 20);
            assertThat(made).hasSize(1);
            assertThatThrownBy(() -> pool.allocate(100)).isInstanceOf(OutOfMemoryError.class);
            assertThat(made).hasSizeGreaterThan(1);
            assertThat(made.subList(1, made.size())).allSatisfy(a -> assertThat(a.scope().isAlive()).isFalse());
            assertThat(everything.scope().isAlive()).isTrue();
        }
    }

    @Test
    void allocationsThatACloseRefusesMeanwhileLeaveNoScopeOpen() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (long size : new long[]{100, 200_000}) {
                made.clear();
                PooledAllocator pool = recordingScopes().build();
                Object closeLock = closeLockOf(pool);
                CompletableFuture<Throwable> outcome = new CompletableFuture<>();
                Thread allocating;
                synchronized (closeLock) {
                    allocating = Thread.ofPlatform().start(() -> {
                        try {
                            outcome.complete(new AssertionError("handed out after close: " + pool.allocate(size)));
                        } catch (Throwable t) {
                            outcome.complete(t);
                        }
                    });
                    // the allocating thread waits to record its block: its scope is made, its block taken
                    while (allocating.getState() != Thread.State.BLOCKED) {
                        Thread.onSpinWait();
                    }
                    pool.close(); // reentrant on the lock this thread holds
                }
                assertThat(outcome.get(30, TimeUnit.SECONDS)).as("%d bytes", size)
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
                allocating.join();
                assertThat(made).as("%d bytes", size).hasSize(1)
                        .allSatisfy(a -> assertThat(a.scope().isAlive()).isFalse());
            }
        });
    }

    private static Object closeLockOf(PooledAllocator pool) throws ReflectiveOperationException {
        Field field = PooledAllocator.class.getDeclaredField("closeLock");
        field.setAccessible(true);
        return field.get(pool);
    }
}
