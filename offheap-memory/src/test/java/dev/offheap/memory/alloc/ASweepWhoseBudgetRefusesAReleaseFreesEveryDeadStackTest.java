package dev.offheap.memory.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.memory.Budget;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The sweep that frees the stacks of ended threads (before a budget refuses a stack or a growth, and every 64
 * new stacks) closes a stack's arena and then gives its bytes back to the budget. When the budget refused that
 * release (an over-release: someone released from the allocator's budget what was not theirs), the exception
 * came out of the push of an unrelated thread, the sweep stopped at that stack, and the stack stayed listed with
 * its memory freed: counted by footprintBytes and stackCount for good, its next free found its arena closed and
 * took it for one a downcall holds, and close() threw "a downcall uses a segment" for it, every time.
 * Now, as in close(), what throws for one stack stops no other: every dead stack whose memory the sweep freed
 * is gone from the counts, the push goes on, and the first failure is thrown by close().
 */
class ASweepWhoseBudgetRefusesAReleaseFreesEveryDeadStackTest {
    private static final int STACK = 4096;

    @Test
    void thePushGoesOnTheFreedStacksAreGoneAndCloseThrowsTheFailure() throws Exception {
        Budget budget = Budget.root("sweep-release-throws", 4L * STACK, report -> { });
        StackAllocator stack = StackAllocator.builder().name("sweep-release-throws").stackSize(STACK)
                .debug(DebugMode.OFF).budget(budget).registerMBean(false).build();
        MemorySegment.Scope first = CloseFailures.stackOfAnEndedThread(stack);
        MemorySegment.Scope second = CloseFailures.stackOfAnEndedThread(stack);
        assertThat(budget.used()).isEqualTo(2L * STACK);
        assertThat(stack.stackCount()).isEqualTo(2);
        // misuse: someone released from the allocator's budget what was not theirs; only one of the two stacks'
        // releases can still be taken, the other is an over-release, which the budget refuses
        budget.release(STACK);
        // and the rest of the budget is taken, so that this thread's first push has to sweep
        Budget other = budget.child("other", 3L * STACK);
        other.reserve(3L * STACK);

        try (StackAllocator.Frame frame = stack.pushFrame()) {
            // the sweep gave one stack's bytes back, which is room enough for this one
            assertThat(frame.allocate(8).byteSize()).isEqualTo(8);
        }

        assertThat(first.isAlive()).isFalse();
        assertThat(second.isAlive()).isFalse();
        assertThat(stack.stackCount()).as("this thread's stack only").isEqualTo(1);
        assertThat(stack.footprintBytes()).isEqualTo(STACK);
        assertThatThrownBy(stack::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("release of " + STACK + " bytes")
                .hasMessageNotContaining("downcall");
        assertThat(stack.stackCount()).isZero();
        assertThat(stack.footprintBytes()).isZero();
        assertThat(budget.used()).as("the other budget's bytes only").isEqualTo(3L * STACK);
        stack.close(); // nothing left: does nothing
        other.close();
        budget.close();
    }

    @Test
    void aSweepThatFailsForEveryStackStillLetsThePushFailWithTheBudgetsRefusal() throws Exception {
        Budget budget = Budget.root("sweep-release-throws-full", 4L * STACK, report -> { });
        StackAllocator stack = StackAllocator.builder().name("sweep-release-throws-full").stackSize(STACK)
                .debug(DebugMode.OFF).budget(budget).registerMBean(false).build();
        MemorySegment.Scope dead = CloseFailures.stackOfAnEndedThread(stack);
        budget.release(STACK); // misuse, as above: the stack's own release is now an over-release
        Budget other = budget.child("other", 4L * STACK);
        other.reserve(4L * STACK);

        assertThatThrownBy(stack::pushFrame).as("the budget is full: the push is refused for that")
                .isInstanceOf(dev.offheap.memory.BudgetExceededException.class);

        assertThat(dead.isAlive()).isFalse();
        assertThat(stack.stackCount()).isZero();
        assertThat(stack.footprintBytes()).isZero();
        assertThatThrownBy(stack::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("release of " + STACK + " bytes");
        stack.close();
        other.close();
        budget.close();
    }
}
