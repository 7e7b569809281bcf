package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.SynchronousQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A budget's close closes its children, and a memory manager's budget is a child of the manager's parent budget.
 * Closing that parent while the manager was open closed only the manager's budget: the manager went on half
 * working, its pages usable, every allocation refused with "budget ... is closed", releases ignored, and its own
 * close later reported nothing of what its owners still held. Closing the manager's budget, or any budget above
 * it, now closes the manager as its own close does.
 */
class ClosingAManagersBudgetClosesTheManagerTest {
    private static final int PAGE = 4096;

    private final List<String> reports = new CopyOnWriteArrayList<>();

    private MemoryManager manager(Budget parent) {
        return MemoryManager.builder().name("closed-from-above").registerMBean(false).leakReporter(reports::add)
                .parentBudget(parent).pageSize(PAGE).totalSize(4L * PAGE).build();
    }

    /** The manager after a close, from its own or from a budget's: closed all the way, and its owners reported. */
    private void assertClosedAsByItsOwnClose(MemoryManager mm, MemorySegment held) {
        assertThat(mm.isClosed()).isTrue();
        assertThat(mm.budget().isClosed()).isTrue();
        assertThat(held.scope().isAlive()).as("a held page after the close").isFalse();
        assertThatThrownBy(() -> held.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> mm.allocatePage("late")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("memory manager 'closed-from-above' is closed");
        assertThatThrownBy(() -> mm.reserve("late", 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("memory manager 'closed-from-above' is closed");
        assertThat(reports).singleElement().asString().contains("memory manager 'closed-from-above'")
                .contains("holder: 1 pages");
        assertThatCode(() -> mm.release(held)).as("a release after close does nothing").doesNotThrowAnyException();
        assertThatCode(mm::close).doesNotThrowAnyException();
        assertThat(reports).as("closing again reports nothing more").hasSize(1);
        assertThat(mm.usedBytes()).isZero();
    }

    @Test
    void closingTheParentBudgetClosesTheManager() {
        Budget parent = Budget.root("parent", 1 << 20, report -> { });
        MemoryManager mm = manager(parent);
        MemorySegment held = mm.allocatePage("holder");
        held.set(ValueLayout.JAVA_LONG, 0, 42L);

        parent.close();

        assertClosedAsByItsOwnClose(mm, held);
        assertThat(parent.used()).isZero();
    }

    @Test
    void closingABudgetFurtherUpClosesTheManagerToo() {
        Budget process = Budget.root("process", 1 << 20, report -> { });
        Budget component = process.child("component", 1 << 20);
        MemoryManager mm = manager(component);
        MemorySegment held = mm.allocatePage("holder");

        process.close();

        assertThat(component.isClosed()).isTrue();
        assertClosedAsByItsOwnClose(mm, held);
    }

    @Test
    void closingTheManagersOwnBudgetClosesTheManager() {
        MemoryManager mm = manager(null);
        MemorySegment held = mm.allocatePage("holder");

        mm.budget().close();

        assertClosedAsByItsOwnClose(mm, held);
    }

    @Test
    void aManagerBuiltWhileItsParentClosesIsClosedOrNotBuilt() throws Exception {
        SynchronousQueue<Budget> offered = new SynchronousQueue<>();
        SynchronousQueue<Object> built = new SynchronousQueue<>();
        Thread builder = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    Budget parent = offered.take();
                    Object result;
                    try {
                        result = MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
                                .parentBudget(parent).pageSize(PAGE).totalSize(4L * PAGE).build();
                    } catch (IllegalStateException parentClosed) {
                        result = parentClosed;
                    }
                    built.put(result);
                }
            } catch (InterruptedException done) {
                // the test is over
            }
        });
        int open = 0;
        try {
            for (int round = 0; round < 300; round++) {
                Budget parent = Budget.root("parent", 1 << 20, report -> { });
                offered.put(parent);
                for (int spin = (round % 50) * 20; spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                parent.close();
                if (built.take() instanceof MemoryManager mm && !mm.isClosed()) {
                    open++;
                    mm.close();
                }
                assertThat(parent.used()).as("what the closed parent still counts").isZero();
            }
        } finally {
            builder.interrupt();
            builder.join(10_000);
        }
        assertThat(open).as("managers left open with their parent budget closed").isZero();
    }
}
