package dev.offheap.memory.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A memory manager's own budget refuses reserves from anyone but the manager, so an allocator given it
 * would fail every allocation: the builders refuse it at once, naming the manager and what to give instead;
 * a child of it is fine.
 */
class AManagersOwnBudgetIsRefusedByTheAllocatorBuildersTest {

    @Test
    void everyAllocatorBuilderRefusesAManagersBudgetAndTakesAChildOfIt() {
        try (MemoryManager manager = MemoryManager.builder().name("pages-for-refusal").totalSize(1L << 20)
                .registerMBean(false).build()) {
            Budget managers = manager.budget();
            List<Consumer<Budget>> builders = List.of(
                    b -> PooledAllocator.builder().budget(b),
                    b -> NativeAllocator.builder().budget(b),
                    b -> StackAllocator.builder().budget(b));
            for (Consumer<Budget> builder : builders) {
                assertThatThrownBy(() -> builder.accept(managers)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("pages-for-refusal").hasMessageContaining("child");
            }
            try (Budget child = managers.child("allocators", 1L << 16)) {
                for (Consumer<Budget> builder : builders) {
                    builder.accept(child);
                }
                assertThat(child.used()).isZero();
            }
        }
    }
}
