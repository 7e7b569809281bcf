package dev.offheap.memory.alloc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.memory.Budget;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.logging.Logger;
import javax.management.MBeanServer;
import org.junit.jupiter.api.Test;

/**
 * The allocators warn through {@link System.Logger} when they close with memory still in use, and the
 * application's log handler may throw: an unchecked exception, or a checked one thrown sneakily (a handler
 * written in Kotlin, or one that rethrows the IOException of a full disk).
 *
 * <ul>
 *   <li>{@link PooledAllocator} and {@link NativeAllocator} warned after setting their closed flag and before
 *       they kept the report that the rest of close works from: the close that threw freed nothing, and every
 *       later close() failed with a NullPointerException before it freed anything, so the memory, the budget's
 *       charge and the registered MBean were kept for good.</li>
 *   <li>{@link StackAllocator} caught only RuntimeException and Error around the warning: a checked exception
 *       left close midway, with the stacks after the one it warned about neither freed nor listed.</li>
 * </ul>
 * Now each close goes on past the handler's exception, frees everything, and throws it at the end as it is.
 */
class ALogHandlerThatThrowsDoesNotStopAnAllocatorsCloseTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private static Throwable[] failures() {
        return new Throwable[] {new IOException("disk full"), new IllegalStateException("the handler fails")};
    }

    @Test
    void aPooledAllocatorIsClosedAllTheWay() throws Exception {
        for (Throwable thrown : failures()) {
            String name = "pooled-log-throws-" + thrown.getClass().getSimpleName();
            Budget budget = Budget.root(name, 64 << 20, report -> { });
            PooledAllocator pooled = PooledAllocator.builder().name(name).budget(budget).build();
            MemorySegment live = pooled.allocate(100, 8);
            assertThat(budget.used()).isPositive();
            assertThat(SERVER.queryNames(null, null).toString()).contains(name);

            Throwable closed = CloseFailures.closeWithAFailingHandler(PooledAllocator.class, name, thrown, pooled::close);

            assertThat(closed).isSameAs(thrown);
            assertThat(pooled.isClosed()).isTrue();
            assertThat(live.scope().isAlive()).isFalse();
            assertThat(pooled.footprintBytes()).isZero();
            assertThat(budget.used()).as("the budget's charge").isZero();
            assertThat(pooled.report().problems()).anyMatch(p -> p.contains("1 live allocations"));
            assertThat(SERVER.queryNames(null, null).toString()).as("the MBean").doesNotContain(name);
            pooled.close(); // closing twice does nothing
            budget.close();
        }
    }

    @Test
    void aNativeAllocatorIsClosedAllTheWay() throws Exception {
        for (Throwable thrown : failures()) {
            String name = "native-log-throws-" + thrown.getClass().getSimpleName();
            Budget budget = Budget.root(name, 1 << 20, report -> { });
            NativeAllocator allocator = NativeAllocator.builder().name(name).budget(budget).registerMBean(true).build();
            MemorySegment live = allocator.allocate(100, 8);
            assertThat(budget.used()).isEqualTo(100);
            assertThat(SERVER.queryNames(null, null).toString()).contains(name);

            Throwable closed = CloseFailures.closeWithAFailingHandler(NativeAllocator.class, name, thrown, allocator::close);

            assertThat(closed).isSameAs(thrown);
            assertThat(live.scope().isAlive()).isFalse();
            assertThat(allocator.allocatedBytes()).isZero();
            assertThat(budget.used()).as("the budget's charge").isZero();
            assertThat(allocator.report().problems()).anyMatch(p -> p.contains("1 live allocations"));
            assertThat(SERVER.queryNames(null, null).toString()).as("the MBean").doesNotContain(name);
            allocator.close(); // closing twice does nothing
            budget.close();
        }
    }

    @Test
    void aStackAllocatorFreesEveryStack() throws Exception {
        // a checked exception, and an Error (what an assertion in a handler throws)
        for (Throwable thrown : new Throwable[] {new IOException("disk full"),
                new AssertionError("the test's log handler fails on warnings")}) {
            String name = "stack-log-throws-" + thrown.getClass().getSimpleName();
            Budget budget = Budget.root(name, 1 << 20, report -> { });
            StackAllocator stack = StackAllocator.builder().name(name).stackSize(4096).debug(DebugMode.OFF)
                    .budget(budget).registerMBean(false).build();
            // this thread's frame is left open: close warns about it first, and the warning's handler throws
            StackAllocator.Frame open = stack.pushFrame();
            MemorySegment.Scope mine = open.scope();
            MemorySegment.Scope other = CloseFailures.stackOfAnEndedThread(stack);
            assertThat(budget.used()).isEqualTo(8192);

            Throwable closed = CloseFailures.closeWithAFailingHandler(StackAllocator.class, name, thrown, stack::close);

            assertThat(closed).isSameAs(thrown);
            assertThat(mine.isAlive()).as("the stack whose warning failed").isFalse();
            assertThat(other.isAlive()).as("the stack after it").isFalse();
            assertThat(budget.used()).isZero();
            assertThat(stack.footprintBytes()).isZero();
            assertThat(stack.stackCount()).isZero();
            stack.close(); // nothing left: does nothing
            budget.close();
        }
    }
}
