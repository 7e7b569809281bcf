package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Children of a manager's budget draw from it as from any budget, leaving fewer pages free (docs/memory.md). A
 * refusal made full by them said "used 1.0 MiB (0 of 256 pages held); biggest owners: none": the bytes in use,
 * and no one who held them. It names the child budgets that hold memory, largest first, as a budget's own
 * refusal names its biggest users.
 */
class ARefusalNamesTheChildBudgetsThatHoldTheManagersMemoryTest {

    @Test
    void aPageRefusedBecauseChildBudgetsHoldTheMemoryNamesThoseChildren() {
        try (MemoryManager mm = MemoryManager.builder().name("child-held").registerMBean(false).pageSize(4096)
                .totalSize(16 * 4096).build()) {
            Budget index = mm.budget().child("index", 16 * 4096);
            Budget buffers = mm.budget().child("buffers", 16 * 4096);
            Budget idle = mm.budget().child("idle", 16 * 4096);
            index.reserve(10 * 4096);
            buffers.reserve(4 * 4096);
            mm.allocatePages("sorter", 2);

            BudgetExceededException refusal = catchThrowableOfType(BudgetExceededException.class,
                    () -> mm.allocatePage("joiner"));

            assertThat(refusal.getMessage())
                    .contains("used 64.0 KiB (2 of 16 pages held)")
                    .contains("biggest owners: sorter 8.0 KiB")
                    .contains("child budgets: index 40.0 KiB, buffers 16.0 KiB")
                    .doesNotContain("idle");
            assertThat(idle.used()).isZero();
            index.release(10 * 4096);
            buffers.release(4 * 4096);
            mm.releaseAll("sorter");
        }
    }

    @Test
    void aRefusalWithNoChildBudgetHoldingMemorySaysNothingOfThem() {
        try (MemoryManager mm = MemoryManager.builder().name("no-child").registerMBean(false).pageSize(4096)
                .totalSize(4 * 4096).build()) {
            mm.budget().child("idle", 4 * 4096);
            mm.allocatePages("sorter", 4);

            BudgetExceededException refusal = catchThrowableOfType(BudgetExceededException.class,
                    () -> mm.allocatePage("joiner"));

            assertThat(refusal.getMessage()).contains("biggest owners: sorter 16.0 KiB").doesNotContain("child budgets");
            mm.releaseAll("sorter");
        }
    }
}
