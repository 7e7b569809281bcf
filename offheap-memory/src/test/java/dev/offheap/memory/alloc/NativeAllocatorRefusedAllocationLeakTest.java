package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * White-box checks of races with close(), where a test must stop a thread at a
 * precise point inside an allocator; the public-API ones are in
 * {@code dev.offheap.memory.ClosedStateAndRaceDefectsTest}.
 */
class NativeAllocatorRefusedAllocationLeakTest {

    /**
     * A FULL-mode allocation registers its own scope, then records its site, then enters the table. A close()
     * that runs between the first and the last closes that scope and drains the table without it; the
     * allocation is then refused and its memory freed. Before the fix, freeing it closed the scope a second
     * time, which threw the JDK's "Already closed" before the free: the memory stayed allocated and its bytes
     * charged to the budget for good.
     */
    @Test
    void anAllocationRefusedByARacingCloseIsFreedAndItsBudgetReturned() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            List<String> leaks = new CopyOnWriteArrayList<>();
            Budget budget = Budget.root("race", 1L << 30, leaks::add);
            NativeAllocator allocator = NativeAllocator.builder().budget(budget).debug(DebugMode.FULL).name("stopped").build();
            Object trackerLock = recentlyFreedOf(allocator);
            CompletableFuture<Throwable> outcome;
            Thread allocating;
            CompletableFuture<Thread> started = new CompletableFuture<>();
            synchronized (trackerLock) {
                outcome = new CompletableFuture<>();
                allocating = Thread.ofPlatform().start(() -> {
                    started.complete(Thread.currentThread());
                    try {
                        MemorySegment s = allocator.allocate(1024);
                        outcome.complete(new AssertionError("handed out after close: " + s));
                    } catch (Throwable t) {
                        outcome.complete(t);
                    }
                });
                started.get(30, TimeUnit.SECONDS);
                // the allocating thread waits in the tracker: its scope is registered, its table entry not made
                while (allocating.getState() != Thread.State.BLOCKED) {
                    Thread.onSpinWait();
                }
                allocator.close(); // reentrant on the tracker's lock, which this thread holds
            }
            Throwable thrown = outcome.get(30, TimeUnit.SECONDS);
            assertThat(budget.used()).as("the refused allocation's bytes are back (it threw %s)", thrown).isZero();
            assertThat(allocator.allocatedBytes()).isZero();
            assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessageContaining("allocator 'stopped' is closed");
            budget.close();
            assertThat(leaks).isEmpty();
        });
    }

    /** The lock the tracker's {@code track} takes after the allocation's scope is registered. */
    private static Object recentlyFreedOf(NativeAllocator allocator) throws ReflectiveOperationException {
        Field trackerField = NativeAllocator.class.getDeclaredField("tracker");
        trackerField.setAccessible(true);
        Object tracker = trackerField.get(allocator);
        Field lockField = AllocationTracker.class.getDeclaredField("recentlyFreed");
        lockField.setAccessible(true);
        return lockField.get(tracker);
    }
}
