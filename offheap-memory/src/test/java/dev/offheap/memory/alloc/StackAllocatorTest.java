package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StackAllocatorTest {
    private final List<StackAllocator> stacks = new ArrayList<>();

    StackAllocator stack(DebugMode mode) {
        StackAllocator s = StackAllocator.builder().stackSize(4096).debug(mode).build();
        stacks.add(s);
        return s;
    }

    @AfterEach
    void closeAll() {
        stacks.forEach(StackAllocator::close);
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void framesBumpAndPopInLifoOrder(DebugMode mode) {
        StackAllocator stack = stack(mode);
        try (StackAllocator.Frame outer = stack.pushFrame()) {
            MemorySegment a = outer.allocate(ValueLayout.JAVA_LONG);
            a.set(ValueLayout.JAVA_LONG, 0, 1L);
            long innerAddress;
            try (StackAllocator.Frame inner = stack.pushFrame()) {
                assertThat(inner.depth()).isEqualTo(2);
                MemorySegment b = inner.allocate(100);
                innerAddress = b.address();
                assertThat(b.address()).isGreaterThanOrEqualTo(a.address() + 8);
                b.fill((byte) 7);
            }
            try (StackAllocator.Frame again = stack.pushFrame()) {
                MemorySegment c = again.allocate(100);
                assertThat(c.address()).as("popped memory is reused").isEqualTo(innerAddress);
                CommonChecks.assertZero(c);
            }
            assertThat(a.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1L);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 4, 8, 16, 64, 512, 4096, 8192, 65536})
    void alignmentsAreHonoured(long alignment) {
        StackAllocator stack = stack(DebugMode.OFF);
        try (StackAllocator.Frame f = stack.pushFrame()) {
            f.allocate(3);
            MemorySegment s = f.allocate(10, alignment);
            assertThat(s.address() % alignment).isZero();
            MemorySegment u = f.allocateUninitialized(10, alignment);
            assertThat(u.address() % alignment).isZero();
        }
    }

    @Test
    void frameGrowsInsteadOfFailingAndKeepsEarlierData() {
        StackAllocator stack = stack(DebugMode.OFF);
        try (StackAllocator.Frame f = stack.pushFrame()) {
            MemorySegment first = f.allocateFrom(ValueLayout.JAVA_INT, 42);
            MemorySegment big = f.allocate(1 << 20);
            assertThat(big.byteSize()).isEqualTo(1 << 20);
            CommonChecks.assertZero(big);
            big.set(ValueLayout.JAVA_BYTE, (1 << 20) - 1, (byte) 1);
            MemorySegment more = f.allocate(3000);
            more.fill((byte) 2);
            assertThat(first.get(ValueLayout.JAVA_INT, 0)).isEqualTo(42);
            assertThat(stack.footprintBytes()).isGreaterThanOrEqualTo((1 << 20) + 4096);
        }
        try (StackAllocator.Frame f = stack.pushFrame()) {
            assertThat(f.allocate(100).byteSize()).isEqualTo(100);
        }
    }

    @Test
    void allocateFromWritesValuesWithoutZeroingFirst() {
        try (StackAllocator.Frame f = StackAllocator.push()) {
            assertThat(f.allocateFrom("native string").getString(0)).isEqualTo("native string");
            assertThat(f.allocateFrom(ValueLayout.JAVA_SHORT, (short) 3).get(ValueLayout.JAVA_SHORT, 0)).isEqualTo((short) 3);
            assertThat(f.allocateFrom(ValueLayout.JAVA_INT, 1, 2, 3).toArray(ValueLayout.JAVA_INT)).containsExactly(1, 2, 3);
            assertThat(f.allocateFrom(ValueLayout.JAVA_FLOAT, 1.5f).get(ValueLayout.JAVA_FLOAT, 0)).isEqualTo(1.5f);
            assertThat(f.allocateFrom(ValueLayout.JAVA_CHAR, 'x').get(ValueLayout.JAVA_CHAR, 0)).isEqualTo('x');
            assertThat(f.allocateFrom(ValueLayout.JAVA_BYTE, (byte) 9).get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 9);
        }
    }

    @Test
    void badInputIsRefused() {
        StackAllocator stack = stack(DebugMode.OFF);
        try (StackAllocator.Frame f = stack.pushFrame()) {
            assertThatThrownBy(() -> f.allocate(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
            assertThatThrownBy(() -> f.allocate(8, 3)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
            assertThatThrownBy(() -> f.allocateUninitialized(8, 0)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> StackAllocator.builder().stackSize(10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StackAllocator.builder().debug(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void onlyTheInnermostFrameAllocatesAndClosingAnOuterFrameClosesTheInnerOnes() {
        StackAllocator stack = stack(DebugMode.OFF);
        StackAllocator.Frame outer = stack.pushFrame();
        StackAllocator.Frame inner = stack.pushFrame();
        assertThatThrownBy(() -> outer.allocate(8)).isInstanceOf(IllegalStateException.class).hasMessageContaining("innermost");
        assertThatThrownBy(outer::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("LIFO");
        assertThatThrownBy(() -> inner.allocate(8)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatCode(inner::close).doesNotThrowAnyException();
        try (StackAllocator.Frame fresh = stack.pushFrame()) {
            assertThat(fresh.depth()).as("the stack is consistent again").isEqualTo(1);
        }
    }

    @Test
    void framesBelongToTheirThread() throws Exception {
        StackAllocator stack = stack(DebugMode.OFF);
        try (StackAllocator.Frame f = stack.pushFrame()) {
            AtomicReference<Throwable> allocate = new AtomicReference<>();
            AtomicReference<Throwable> close = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                try {
                    f.allocate(8);
                } catch (Throwable e) {
                    allocate.set(e);
                }
                try {
                    closeFrame(f);
                } catch (Throwable e) {
                    close.set(e);
                }
            });
            t.join();
            assertThat(allocate.get()).isInstanceOf(WrongThreadException.class);
            assertThat(close.get()).isInstanceOf(WrongThreadException.class);
            assertThat(f.allocate(8).byteSize()).isEqualTo(8);
        }
    }

    /** Closes a frame outside try-with-resources, as a misbehaving caller would. */
    private static void closeFrame(AutoCloseable frame) throws Exception {
        frame.close();
    }

    @Test
    void useAfterPopThrowsInFullMode() {
        StackAllocator stack = stack(DebugMode.FULL);
        MemorySegment s;
        try (StackAllocator.Frame f = stack.pushFrame()) {
            s = f.allocate(16);
            s.set(ValueLayout.JAVA_INT, 0, 1);
        }
        MemorySegment stale = s;
        assertThatThrownBy(() -> stale.get(ValueLayout.JAVA_INT, 0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void stacksOfEndedThreadsAreFreed() throws Exception {
        StackAllocator stack = stack(DebugMode.OFF);
        for (int i = 0; i < 2000; i++) {
            Thread t = Thread.ofPlatform().start(() -> {
                try (StackAllocator.Frame f = stack.pushFrame()) {
                    f.allocate(64).fill((byte) 1);
                }
            });
            t.join();
        }
        assertThat(stack.stackCount()).isLessThanOrEqualTo(65);
        assertThat(stack.footprintBytes()).isLessThanOrEqualTo(65L * 4096);
    }

    @Test
    void budgetLimitsStacksAndTheirGrowth() {
        try (Budget budget = Budget.root("frames", 16 * 1024)) {
            StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).build();
            stacks.add(stack);
            try (StackAllocator.Frame f = stack.pushFrame()) {
                assertThat(budget.used()).isEqualTo(4096);
                assertThatThrownBy(() -> f.allocate(64 * 1024)).isInstanceOf(BudgetExceededException.class)
                        .hasMessageContaining("frames");
                assertThat(f.allocate(100).byteSize()).isEqualTo(100);
            }
            stack.close();
            assertThat(budget.used()).isZero();
        }
    }

    @Test
    void closeInvalidatesSegmentsAndRefusesNewFrames() {
        StackAllocator stack = stack(DebugMode.OFF);
        StackAllocator.Frame f = stack.pushFrame();
        MemorySegment s = f.allocate(32);
        stack.close();
        assertThatThrownBy(() -> s.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(stack::pushFrame).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> f.allocate(8)).isInstanceOf(IllegalStateException.class);
        assertThatCode(stack::close).doesNotThrowAnyException();
    }

    @Test
    void fullModeSegmentsOfOpenFramesAreInaccessibleOnceTheAllocatorIsClosed() {
        // FULL mode scopes each frame's segments to the frame, not to the stack's arena that close() frees
        StackAllocator stack = stack(DebugMode.FULL);
        StackAllocator.Frame outer = stack.pushFrame();
        MemorySegment a = outer.allocate(ValueLayout.JAVA_LONG);
        StackAllocator.Frame inner = stack.pushFrame();
        MemorySegment b = inner.allocate(64);
        stack.close();
        assertThat(a.scope().isAlive()).isFalse();
        assertThat(b.scope().isAlive()).isFalse();
        assertThatThrownBy(() -> a.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> b.set(ValueLayout.JAVA_BYTE, 0, (byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThatCode(inner::close).as("popping after the allocator closed").doesNotThrowAnyException();
        assertThatCode(outer::close).doesNotThrowAnyException();
    }

    @Test
    void fullModeCloseFromAnotherThreadKeepsALiveThreadsFramesUsableUntilItEnds() throws Exception {
        Budget budget = Budget.root("stacks", 1 << 20, report -> { });
        StackAllocator stack = StackAllocator.builder().stackSize(4096).debug(DebugMode.FULL).budget(budget).build();
        java.util.concurrent.CountDownLatch pushed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Long> readBack = new AtomicReference<>();
        Thread owner = Thread.ofPlatform().start(() -> {
            try (StackAllocator.Frame f = stack.pushFrame()) {
                MemorySegment s = f.allocate(ValueLayout.JAVA_LONG);
                s.set(ValueLayout.JAVA_LONG, 0, 42L);
                pushed.countDown();
                closed.await();
                // the memory under a confined frame scope that no other thread can close stays until here
                readBack.set(s.get(ValueLayout.JAVA_LONG, 0));
                try {
                    stack.pushFrame();
                    failure.set(new AssertionError("a frame was pushed on a closed allocator"));
                } catch (IllegalStateException expected) {
                    // refused, as it should be
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        pushed.await();
        stack.close();
        assertThat(budget.used()).as("the owner's stack is still allocated").isEqualTo(4096);
        closed.countDown();
        owner.join();
        assertThat(failure.get()).isNull();
        assertThat(readBack.get()).isEqualTo(42L);
        owner = null;
        // once the thread is gone, its stack is freed and the budget gets its bytes back
        for (int i = 0; i < 200 && budget.used() > 0; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(budget.used()).isZero();
        budget.close();
    }

    @Test
    void aHugeAlignedRequestIsRefusedBeforeAChunkIsCharged() {
        try (Budget budget = Budget.root("stacks", 1 << 20, report -> { });
             StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).build();
             StackAllocator.Frame f = stack.pushFrame()) {
            long used = budget.used();
            // size + alignment overflows a long: before, the stack grew by a default chunk and then failed
            assertThatThrownBy(() -> f.allocate(Long.MAX_VALUE - 100, 1 << 20)).isInstanceOf(OutOfMemoryError.class)
                    .hasMessageContaining("more than a chunk can hold");
            assertThat(budget.used()).isEqualTo(used);
            assertThat(f.allocate(8).byteSize()).as("the frame still allocates").isEqualTo(8);
        }
    }

    @Test
    void defaultStackIsPerThread() throws Exception {
        AtomicReference<Long> otherAddress = new AtomicReference<>();
        try (StackAllocator.Frame f = StackAllocator.push()) {
            MemorySegment mine = f.allocate(8);
            Thread t = Thread.ofPlatform().start(() -> {
                try (StackAllocator.Frame g = StackAllocator.push()) {
                    otherAddress.set(g.allocate(8).address());
                }
            });
            t.join();
            assertThat(otherAddress.get()).isNotEqualTo(mine.address());
            assertThat(StackAllocator.defaultStack().stackSize()).isEqualTo(StackAllocator.DEFAULT_STACK_SIZE);
        }
    }
}
