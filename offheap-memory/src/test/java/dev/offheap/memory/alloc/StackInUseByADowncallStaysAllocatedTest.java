package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.HeldInDowncall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A thread's stack whose segment another thread has passed to a native call: the JDK refuses to close the
 * stack's arena while the call runs. The sweep and {@link StackAllocator#close()} must then keep the stack
 * (allocated and charged) and free it later, neither losing it nor failing unrelated threads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StackInUseByADowncallStaysAllocatedTest {

    /**
     * Before: the sweep (run here because the budget refused a new stack) removed the ended thread's stack
     * from its list, then Arena.close threw. The unrelated thread's push failed with that undocumented
     * IllegalStateException, and the stack was never freed nor its budget given back: every later push was
     * refused for good.
     */
    @Test
    void theSweepKeepsAnEndedThreadsStackThatADowncallUsesAndFreesItOnceTheCallReturned() throws Exception {
        try (Budget budget = Budget.root("stacks", 4096, report -> { })) {
            StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).debug(DebugMode.OFF).build();
            AtomicReference<MemorySegment> handedOver = new AtomicReference<>();
            Thread owner = Thread.ofPlatform().start(() -> {
                try (StackAllocator.Frame f = stack.pushFrame()) {
                    handedOver.set(f.allocate(16));
                }
            });
            owner.join();
            HeldInDowncall held = new HeldInDowncall(handedOver.get());
            try {
                // the ended thread's memory is still in use: the budget is full, and says so
                assertThatThrownBy(stack::pushFrame).isInstanceOf(BudgetExceededException.class);
                assertThat(stack.stackCount()).as("the stack in use is still held").isEqualTo(1);
                assertThat(budget.used()).isEqualTo(4096);
            } finally {
                held.release();
            }
            // the call returned: the next refusal's sweep frees the ended thread's stack
            try (StackAllocator.Frame f = stack.pushFrame()) {
                assertThat(f.allocate(8).byteSize()).isEqualTo(8);
            }
            stack.close();
            assertThat(budget.used()).isZero();
        }
    }

    /**
     * Before: close() threw Arena.close's IllegalStateException from the middle of its loop after emptying
     * the list: the stack in use and every stack after it were never freed, their budget never given back,
     * and a second close() returned at once.
     */
    @Test
    void closeFreesTheOtherStacksAndALaterCloseTheOneADowncallUsed() throws Exception {
        try (Budget budget = Budget.root("stacks", 1 << 20, report -> { })) {
            StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).debug(DebugMode.OFF).build();
            HeldInDowncall held;
            try (StackAllocator.Frame f = stack.pushFrame()) {
                held = new HeldInDowncall(f.allocate(16));
            }
            Thread other = Thread.ofPlatform().start(() -> {
                try (StackAllocator.Frame f = stack.pushFrame()) {
                    f.allocate(8);
                }
            });
            other.join();
            assertThat(budget.used()).isEqualTo(2 * 4096);
            try {
                assertThatThrownBy(stack::close).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("downcall");
                assertThat(budget.used()).as("only the stack in use is still charged").isEqualTo(4096);
                assertThat(stack.footprintBytes()).isEqualTo(4096);
                assertThatThrownBy(stack::pushFrame).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed");
            } finally {
                held.release();
            }
            stack.close();
            assertThat(budget.used()).isZero();
            assertThat(stack.stackCount()).isZero();
        }
    }
}
