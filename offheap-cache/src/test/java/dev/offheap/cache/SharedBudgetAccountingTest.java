package dev.offheap.cache;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.MemoryManager;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a cache charges to a {@link Budget} and a {@link MemoryManager} shared with other components, when
 * its build fails half-way and when another component's refusal or leak report has to name it. Each test
 * failed on the code before its fix.
 */
class SharedBudgetAccountingTest {

    /**
     * A cache built on a budget and a manager charges the budget first, then reserves from the manager,
     * whose refusal may run other owners' spill callbacks on the building thread. A callback that throws an
     * Error (an AssertionError, say: the manager lets Errors through, as it does for page requests) came out
     * of the manager's reserve past the build's clean-up, which caught only RuntimeException: the budget
     * stayed charged the whole capacity for good, and the manager kept the cache's resources as an owner.
     */
    @Test
    void aBuildFailedByAnotherOwnersSpillErrorLeavesNeitherBudgetNorManagerCharged() {
        List<String> leaks = new ArrayList<>();
        try (Budget budget = Budget.root("process", 64L << 20, leaks::add);
             MemoryManager manager = MemoryManager.builder().totalSize(2L << 20).pageSize(32 * 1024)
                     .registerMBean(false).leakReporter(leaks::add).build()) {
            manager.reserve("sorter", 2L << 20);
            manager.registerSpillCallback("sorter", (m, wanted) -> {
                throw new AssertionError("sorter cannot spill now");
            });

            assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(1 << 20).budget(budget).memoryManager(manager).name("spill-error").build())
                    .isInstanceOf(AssertionError.class).hasMessage("sorter cannot spill now");

            assertThat(budget.used()).as("budget charged after the failed build").isZero();
            assertThat(manager.usageByOwner()).as("owners after the failed build").containsOnlyKeys("sorter");
            manager.releaseAll("sorter");
        }
        assertThat(leaks).isEmpty();
    }

    /**
     * {@link CacheBuilder#name} names the cache in "its budget", and a budget's refusal names its biggest
     * users: but the cache reserved its capacity directly from the budget it was given, so a budget shared by
     * caches and other components refused with "biggest users: none among children; reserved directly: 3.0
     * MiB", its usage report had no line for any cache, and a leak report at its close could not say which
     * cache was left open. The cache now holds its capacity as a child budget named after it.
     */
    @Test
    void aSharedBudgetNamesTheCachesThatUseItInRefusalsReportsAndLeaks() {
        List<String> leaks = new ArrayList<>();
        Budget process = Budget.root("process", 4L << 20, leaks::add);
        OffHeapCache<String, String> offers = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(2L << 20).budget(process).name("offers").build();
        OffHeapCache<String, String> sessions = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1L << 20).budget(process).name("tenant/sessions").build();
        try {
            assertThat(process.used()).isEqualTo(3L << 20);
            assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(2L << 20).budget(process).name("refused").build())
                    .isInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("biggest users: offers 2.0 MiB, tenant_sessions 1.0 MiB");
            assertThat(process.used()).as("charged after the refusal").isEqualTo(3L << 20);
            assertThat(process.usageReport()).contains("offers: ").contains("tenant_sessions: ");

            sessions.close();
            assertThat(process.used()).isEqualTo(2L << 20);
            assertThat(process.children()).extracting(Budget::name).containsExactly("offers");
            process.close(); // with "offers" still open: a leak, which names it
            assertThat(leaks).singleElement().asString().contains("offers: used 0 B of 2.0 MiB");
        } finally {
            offers.close(); // after its budget closed: gives back nothing twice, throws nothing
            sessions.close();
        }
        assertThat(process.used()).isZero();
        assertThat(leaks).hasSize(1);
    }
}
