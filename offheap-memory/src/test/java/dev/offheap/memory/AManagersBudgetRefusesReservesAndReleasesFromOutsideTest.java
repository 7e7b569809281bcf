package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A memory manager's budget counts its pages and reservations, and only the manager may change that count.
 * {@code manager.budget()} handed out the budget itself: a caller's {@code release} there made the manager admit
 * a page that did not exist (the allocation waited 2 s and failed), and a caller's {@code reserve} took pages away
 * without any owner holding them. Both are now refused with an exception that says why; children of the budget
 * still draw from it, as a budget's children do.
 */
class AManagersBudgetRefusesReservesAndReleasesFromOutsideTest {
    private static final int PAGE = 4096;

    private static MemoryManager manager(Budget parent) {
        return MemoryManager.builder().name("outside").registerMBean(false).leakReporter(report -> { })
                .parentBudget(parent).pageSize(PAGE).totalSize(4L * PAGE).build();
    }

    @Test
    void aCallersReleaseOfBytesThePagesHoldIsRefusedAndAllocationGoesOnAsBefore() {
        try (MemoryManager mm = manager(null)) {
            List<MemorySegment> all = mm.allocatePages("owner", 4);
            long used = mm.budget().used();

            assertThatThrownBy(() -> mm.budget().release(PAGE)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("memory manager 'outside'").hasMessageContaining("release of 4096 bytes");

            assertThat(mm.budget().used()).as("nothing was released").isEqualTo(used);
            assertThat(mm.freePages()).isZero();
            assertThatThrownBy(() -> mm.allocatePage("other")).as("refused at once: no page exists")
                    .isInstanceOf(BudgetExceededException.class);
            mm.release(all.getFirst());
            MemorySegment page = mm.allocatePage("other");
            page.set(ValueLayout.JAVA_LONG, 0, 7L);
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7L);
        }
    }

    @Test
    void aCallersReserveAndTryReserveAreRefusedAndTakeNoPage() {
        Budget parent = Budget.root("parent", 1 << 20, report -> { });
        try (MemoryManager mm = manager(parent)) {
            assertThatThrownBy(() -> mm.budget().reserve(PAGE)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("budget 'parent/outside'").hasMessageContaining("reserve(owner, bytes)");
            assertThatThrownBy(() -> mm.budget().tryReserve(PAGE)).isInstanceOf(UnsupportedOperationException.class);

            assertThat(mm.budget().used()).isZero();
            assertThat(mm.freePages()).isEqualTo(4);
            assertThat(mm.allocatePages("owner", 4)).hasSize(4);
        }
        assertThat(parent.used()).isZero();
        parent.close();
    }

    @Test
    void aChildOfTheManagersBudgetReservesFromItAndLeavesFewerPagesFree() {
        try (MemoryManager mm = manager(null)) {
            Budget child = mm.budget().child("index", PAGE);
            child.reserve(PAGE);

            assertThat(mm.freePages()).isEqualTo(3);
            assertThatThrownBy(() -> mm.allocatePages("owner", 4)).isInstanceOf(BudgetExceededException.class);
            child.release(PAGE);
            assertThat(mm.allocatePages("owner", 4)).hasSize(4);
            child.close();
        }
    }
}
