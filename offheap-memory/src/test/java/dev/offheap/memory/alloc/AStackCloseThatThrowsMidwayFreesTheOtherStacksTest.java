package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link StackAllocator#close()} takes every stack off its list and then frees them one by one. Something
 * that threw in that loop (the warning about a thread's open frames, whose log handler may throw; the
 * budget's release of a stack, which refuses an over-release) left the loop with the stacks after it neither
 * freed nor listed: their memory and their budget's charge stayed for good, footprintBytes and stackCount
 * read 0, and a later close() did nothing. The loop now frees the rest and rethrows the first failure after
 * (the log handler's case: {@link ALogHandlerThatThrowsDoesNotStopAnAllocatorsCloseTest}).
 */
class AStackCloseThatThrowsMidwayFreesTheOtherStacksTest {

    @Test
    void aBudgetReleaseThatThrowsStillLetsCloseFreeEveryStack() throws Exception {
        Budget budget = Budget.root("close-release-throws", 1 << 20, report -> { });
        StackAllocator stack = StackAllocator.builder().name("close-release-throws").stackSize(4096)
                .debug(DebugMode.OFF).budget(budget).registerMBean(false).build();
        MemorySegment.Scope mine;
        try (StackAllocator.Frame frame = stack.pushFrame()) {
            mine = frame.scope();
        }
        MemorySegment.Scope other = CloseFailures.stackOfAnEndedThread(stack);
        assertThat(budget.used()).isEqualTo(8192);
        // someone released from the allocator's budget what was not theirs: the release of the first stack
        // closed is an over-release, which the budget refuses
        budget.release(4096 + 1);

        assertThatThrownBy(stack::close).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("release of 4096 bytes");

        assertThat(mine.isAlive()).as("the stack whose release threw").isFalse();
        assertThat(other.isAlive()).as("the stack after it").isFalse();
        assertThat(stack.footprintBytes()).isZero();
        assertThat(stack.stackCount()).isZero();
        stack.close(); // nothing left: does nothing
        budget.close();
    }
}
