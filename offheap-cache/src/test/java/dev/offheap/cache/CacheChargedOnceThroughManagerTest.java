package dev.offheap.cache;

import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cache given both a budget and a memory manager whose budget descends from it: the manager's whole size is
 * charged to that budget already, and the cache's reservation in the manager is part of it. The cache charged
 * its capacity to the budget directly as well, so the budget counted it twice, and refused a cache it had room
 * for.
 */
class CacheChargedOnceThroughManagerTest {

    @Test
    void aBudgetAboveTheManagersCountsTheCacheOnce() {
        List<String> leaks = new ArrayList<>();
        try (Budget process = Budget.root("process", (5L << 20) / 2, leaks::add);
             MemoryManager manager = MemoryManager.builder().totalSize(2L << 20).pageSize(32 * 1024)
                     .parentBudget(process).registerMBean(false).leakReporter(leaks::add).build()) {
            assertThat(process.used()).as("the manager's size").isEqualTo(2L << 20);

            try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(1 << 20).budget(process).memoryManager(manager).name("offers").build()) {
                cache.put("k", "v");
                assertThat(process.used()).as("process budget with the cache open").isEqualTo(2L << 20);
                assertThat(manager.usageByOwner().values()).as("the cache's reservation in the manager")
                        .containsExactly(1L << 20);
            }
            assertThat(process.used()).as("process budget after the cache closed").isEqualTo(2L << 20);
            assertThat(manager.usageByOwner()).as("owners after the cache closed").isEmpty();
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void anUnrelatedBudgetStillCountsTheCapacity() {
        List<String> leaks = new ArrayList<>();
        try (Budget tenant = Budget.root("tenant", 4L << 20, leaks::add);
             MemoryManager manager = MemoryManager.builder().totalSize(2L << 20).pageSize(32 * 1024)
                     .registerMBean(false).leakReporter(leaks::add).build();
             OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                     .capacity(1 << 20).budget(tenant).memoryManager(manager).name("offers").build()) {
            cache.put("k", "v");
            assertThat(tenant.used()).as("an unrelated budget").isEqualTo(1L << 20);
            assertThat(manager.usageByOwner().values()).containsExactly(1L << 20);
        }
        assertThat(leaks).isEmpty();
    }
}
