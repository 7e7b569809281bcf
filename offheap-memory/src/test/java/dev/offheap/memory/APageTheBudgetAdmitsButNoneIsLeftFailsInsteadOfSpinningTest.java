package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A manager's budget admits a page only where one is free or on its way back, so an allocation that finds every
 * slot leased waits for the release in flight. Bytes released to the budget behind the manager's back (a caller's
 * {@code manager.budget().release(n)}, refused now) let it admit a page that does not exist, and the allocation
 * spun for ever, holding the lock every later allocation that grows the pool takes. It now fails after a bounded
 * wait, saying why.
 */
class APageTheBudgetAdmitsButNoneIsLeftFailsInsteadOfSpinningTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anAllocationAdmittedForAPageThatDoesNotExistFailsSayingWhy() {
        MemoryManager manager = MemoryManager.builder().registerMBean(false).type(MemoryType.NATIVE)
                .pageSize(4096).totalSize(4 * 4096).build();
        try {
            List<MemorySegment> all = manager.allocatePages("owner", 4);
            assertThat(all).hasSize(4);
            // behind the manager's back, no page came back: a defect of its accounting (callers are refused,
            // see AManagersBudgetRefusesReservesAndReleasesFromOutsideTest)
            manager.budget().releaseForManager(4096);

            long start = System.nanoTime();
            assertThatThrownBy(() -> manager.allocatePage("other")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("memory manager '" + manager.name() + "'")
                    .hasMessageContaining("none came back")
                    .hasMessageContaining("released to its budget");
            assertThat(System.nanoTime() - start).as("it waited for a page in flight first")
                    .isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
            // the pages leased before are still the owner's and usable
            all.getFirst().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 7L);
            assertThat(all.getFirst().get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).isEqualTo(7L);
        } finally {
            try {
                manager.close();
            } catch (RuntimeException accountingAlreadyWrong) {
                // the budget was changed behind the manager: its close may report the mismatch
            }
        }
    }
}
