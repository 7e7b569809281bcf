package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.JMX;
import javax.management.ObjectName;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Owners are any object, and {@code toString()} may return null (a badly written class, a mock, a record
 * whose one component is a null String). The manager labels an owner with its text in messages, leak
 * reports, {@link MemoryManager#usageByOwner()} and its MBean; such an owner must be labelled with
 * {@link Objects#toIdentityString(Object)} instead. Before the fix the label was null: the budget refusal
 * threw NullPointerException while building its message (so the request failed with the wrong exception),
 * usageByOwner and the MBean's UsageByOwner threw NullPointerException, and the leak report said "null".
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnerWhoseToStringIsNullTest {
    private static final int PAGE = 4096;

    /** An owner whose text is null. */
    private static final class Nameless {
        @Override
        public String toString() {
            return null;
        }
    }

    private final List<String> leaks = new CopyOnWriteArrayList<>();

    private MemoryManager newManager(int pages) {
        return MemoryManager.builder().registerMBean(false).leakReporter(leaks::add)
                .pageSize(PAGE).totalSize((long) pages * PAGE).build();
    }

    @Test
    void pagesGroupsAndReservationsOfSuchAnOwnerWorkAndAreCountedUnderItsIdentity() {
        Nameless owner = new Nameless();
        String label = Objects.toIdentityString(owner);
        try (MemoryManager mm = newManager(8)) {
            MemorySegment page = mm.allocatePage(owner);
            List<MemorySegment> pages = mm.allocatePages(owner, 2);
            PageGroup group = mm.allocateGroup(owner, 2);
            mm.reserve(owner, 100);
            assertThat(mm.usedPages()).isEqualTo(5);
            assertThat(mm.usageByOwner()).containsExactly(Map.entry(label, 5L * PAGE + 100));

            mm.release(page);
            mm.release(pages);
            group.close();
            mm.releaseReservation(owner, 100);
            assertThat(mm.usageByOwner()).as("an owner that holds nothing is not listed").isEmpty();
            mm.reserve(owner, 1);
            assertThat(mm.usageByOwner()).containsExactly(Map.entry(label, 1L));
            mm.releaseReservation(owner, 1);
            mm.allocatePages(owner, 3);
            mm.releaseAll(owner);
            assertThat(mm.usedPages()).isZero();
            assertThat(mm.freePages()).isEqualTo(8);
            assertThat(mm.usageByOwner()).isEmpty();
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void aRefusedRequestNamesSuchOwnersByTheirIdentity() {
        Nameless holder = new Nameless();
        Nameless requester = new Nameless();
        try (MemoryManager mm = newManager(4)) {
            mm.registerSpillCallback(holder, (manager, bytes) -> 0); // asked, gives nothing back
            mm.allocatePages(holder, 3);
            assertThatThrownBy(() -> mm.allocatePages(requester, 2)).isExactlyInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("to owner '" + Objects.toIdentityString(requester) + "'")
                    .hasMessageContaining("biggest owners: " + Objects.toIdentityString(holder) + " 12.0 KiB")
                    .hasMessageContaining("spill callbacks asked: " + Objects.toIdentityString(holder) + " (gave back")
                    .hasMessageNotContaining("null");
            assertThatThrownBy(() -> mm.reserve(requester, 5L * PAGE)).isExactlyInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("to owner '" + Objects.toIdentityString(requester) + "'");
            assertThatThrownBy(() -> mm.allocateGroup(requester, 5)).isExactlyInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("to owner '" + Objects.toIdentityString(requester) + "'");
            assertThat(mm.allocationFailures()).isEqualTo(3);
            // the refusals changed nothing
            assertThat(mm.usedPages()).isEqualTo(3);
            assertThat(mm.allocatePage(requester)).isNotNull();
        }
    }

    @Test
    void releasingMoreThanItReservedNamesItByItsIdentity() {
        Nameless owner = new Nameless();
        try (MemoryManager mm = newManager(4)) {
            mm.reserve(owner, 10);
            assertThatThrownBy(() -> mm.releaseReservation(owner, 11)).isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("owner '" + Objects.toIdentityString(owner) + "'")
                    .hasMessageNotContaining("'null'");
            mm.releaseReservation(owner, 10);
        }
    }

    @Test
    void theLeakReportAtCloseNamesSuchOwnersByTheirIdentity() {
        Nameless pages = new Nameless();
        Nameless reservation = new Nameless();
        MemoryManager mm = newManager(8);
        mm.allocatePages(pages, 2);
        mm.allocateGroup(pages, 1);
        mm.reserve(reservation, 1000);
        mm.close();
        assertThat(leaks).singleElement().asString()
                .contains(Objects.toIdentityString(pages) + ": 3 pages")
                .contains(Objects.toIdentityString(reservation) + ": 0 pages")
                .doesNotContain("null");
    }

    @Test
    void theMBeanReportsSuchOwnersByTheirIdentity() throws Exception {
        String name = "nameless-owner-" + UUID.randomUUID().toString().substring(0, 8);
        Nameless owner = new Nameless();
        try (MemoryManager mm = MemoryManager.builder().name(name).leakReporter(leaks::add)
                .pageSize(PAGE).totalSize(8L * PAGE).build()) {
            mm.allocatePages(owner, 2);
            mm.allocatePage("named");
            MemoryManagerMXBean bean = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(),
                    new ObjectName("dev.offheap:type=MemoryManager,name=" + name), MemoryManagerMXBean.class);
            assertThat(bean.getUsageByOwner())
                    .containsEntry(Objects.toIdentityString(owner), 2L * PAGE)
                    .containsEntry("named", (long) PAGE)
                    .hasSize(2);
            assertThat(bean.getUsedPages()).isEqualTo(3);
            mm.releaseAll(owner);
            mm.releaseAll("named");
        }
        assertThat(leaks).isEmpty();
    }
}
