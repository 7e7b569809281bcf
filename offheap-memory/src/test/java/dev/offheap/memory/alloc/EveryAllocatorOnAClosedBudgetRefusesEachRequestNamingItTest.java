package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The builders take a closed budget (it may also close after the build), and every request that must charge it
 * throws IllegalStateException naming it: what Allocator's and the builders' javadoc say, which named only a
 * closed allocator.
 */
class EveryAllocatorOnAClosedBudgetRefusesEachRequestNamingItTest {

    private static Budget closedBudget() {
        Budget budget = Budget.root("closed-for-allocators", 1 << 20);
        budget.close();
        return budget;
    }

    @Test
    void aPooledAllocatorRefusesWithTheBudgetsName() {
        try (PooledAllocator pool = PooledAllocator.builder().registerMBean(false).budget(closedBudget()).build()) {
            assertThatThrownBy(() -> pool.allocate(100)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed-for-allocators");
        }
    }

    @Test
    void aStackAllocatorRefusesTheFirstPushWithTheBudgetsName() {
        try (StackAllocator stack = StackAllocator.builder().registerMBean(false).budget(closedBudget()).build()) {
            assertThatThrownBy(stack::pushFrame).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed-for-allocators");
        }
    }

    @Test
    void aNativeAllocatorRefusesWithTheBudgetsName() {
        try (NativeAllocator allocator = NativeAllocator.builder().budget(closedBudget()).build()) {
            assertThatThrownBy(() -> allocator.allocate(100)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed-for-allocators");
        }
    }
}
