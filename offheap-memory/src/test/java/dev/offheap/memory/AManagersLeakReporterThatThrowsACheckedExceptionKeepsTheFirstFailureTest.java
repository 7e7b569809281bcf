package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryManager#close()} runs every step whatever an earlier one threw and throws the first failure at
 * the end, later ones suppressed in it. It caught only RuntimeException and Error, as {@link Budget#close()}
 * did before it caught everything: a leak reporter is a {@code Consumer<String>}, but one written in Kotlin (or
 * with a "sneaky throw") may throw a checked exception, such as the {@link IOException} of a reporter that
 * appends to a file. That exception went past the catch: the first failure of an earlier step was lost (neither
 * thrown nor suppressed), and the manager's report, run in a finally, replaced a checked exception that its
 * budget's close had thrown.
 */
class AManagersLeakReporterThatThrowsACheckedExceptionKeepsTheFirstFailureTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    /** A reporter that throws a new IOException per report, and records them in order. */
    private static Consumer<String> reporterThatThrows(List<IOException> thrown) {
        return report -> {
            IOException e = new IOException("disk full, report " + thrown.size());
            thrown.add(e);
            sneakyThrow(e);
        };
    }

    @Test
    void anEarlierFailureIsThrownWithTheReportersCheckedExceptionSuppressed() throws Exception {
        String name = "checked-reporter-" + UUID.randomUUID().toString().substring(0, 8);
        ObjectName bean = new ObjectName("dev.offheap:type=MemoryManager,name=" + name);
        Budget parent = Budget.root(name + "-parent", 1 << 20, report -> { });
        List<IOException> reports = new ArrayList<>();
        MemoryManager mm = MemoryManager.builder().name(name).pageSize(4096).totalSize(64 * 4096)
                .pageAccess(PageAccess.SHARED).parentBudget(parent).leakReporter(reporterThatThrows(reports)).build();
        MemorySegment held = mm.allocatePage("holder"); // a leak: the reporter is called, and throws
        mm.release(mm.allocatePage("cached")); // into this thread's page cache, still charged to the budget
        // a broken count (callers cannot release there any more: the package-private way in stands for a defect
        // of the manager's accounting): its drain's release at close, the first step, is then an over-release,
        // which the budget refuses
        mm.budget().releaseForManager(mm.budget().used());

        Throwable thrown = catchThrowable(mm::close);

        assertThat(thrown).as("the first failure, the drain's").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("release of");
        assertThat(reports).hasSize(1);
        assertThat(thrown.getSuppressed()).as("the reporter's, after it").containsExactly(reports.getFirst());
        assertThat(mm.isClosed()).isTrue();
        assertThat(SERVER.isRegistered(bean)).isFalse();
        assertThat(held.scope().isAlive()).isFalse();
        assertThat(mm.budget().isClosed()).isTrue();
        assertThat(parent.used()).isZero();
        mm.close(); // closing twice does nothing
        parent.close();
    }

    @Test
    void theBudgetsCheckedExceptionIsThrownWithTheManagersReportSuppressed() {
        List<IOException> reports = new ArrayList<>();
        // no parent: the manager's budget is a root that reports through the manager's reporter as well
        MemoryManager mm = MemoryManager.builder().name("checked-reporter-budget").pageSize(4096).totalSize(64 * 4096)
                .pageAccess(PageAccess.SHARED).registerMBean(false).leakReporter(reporterThatThrows(reports)).build();
        MemorySegment held = mm.allocatePage("holder");
        // a child of the manager's budget that still holds bytes when the manager closes: its report comes first
        Budget child = mm.budget().child("child", 4096);
        child.reserve(100);

        Throwable thrown = catchThrowable(mm::close);

        assertThat(reports).as("the budget's report, its child's, then the manager's").hasSize(3);
        assertThat(thrown).as("the first failure, the budget's").isSameAs(reports.get(0));
        assertThat(thrown.getSuppressed()).containsExactly(reports.get(1), reports.get(2));
        assertThat(mm.isClosed()).isTrue();
        assertThat(held.scope().isAlive()).isFalse();
        assertThat(mm.budget().isClosed()).isTrue();
        assertThat(child.isClosed()).isTrue();
    }
}
