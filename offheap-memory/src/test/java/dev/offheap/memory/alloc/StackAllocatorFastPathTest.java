package dev.offheap.memory.alloc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The push and allocation fast path: one thread's stack is found without the thread table (the others go through
 * it), a freed stack is refused by the same comparison that refuses another thread, and the number of an outer
 * frame is recorded only once a frame is pushed on it. Each check the javadoc promises, on each of those paths.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StackAllocatorFastPathTest {
    private final List<StackAllocator> stacks = new ArrayList<>();

    StackAllocator stack(DebugMode mode) {
        StackAllocator s = StackAllocator.builder().stackSize(4096).debug(mode).registerMBean(false).build();
        stacks.add(s);
        return s;
    }

    @AfterEach
    void closeAll() {
        stacks.forEach(StackAllocator::close);
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void threadsTakingTurnsEachPushOnTheirOwnStack(DebugMode mode) throws Exception {
        StackAllocator stack = stack(mode);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (StackAllocator.Frame mine = stack.pushFrame()) {
            MemorySegment myBytes = mine.allocate(ValueLayout.JAVA_LONG);
            myBytes.set(ValueLayout.JAVA_LONG, 0, 42L);
            for (int turn = 0; turn < 100; turn++) {
                long theirs = other.submit(() -> {
                    try (StackAllocator.Frame f = stack.pushFrame()) {
                        assertThat(f.depth()).as("a frame of its own stack, not on this thread's frame").isEqualTo(1);
                        assertThatThrownBy(() -> mine.allocate(8)).isInstanceOf(WrongThreadException.class);
                        MemorySegment s = f.allocate(ValueLayout.JAVA_LONG);
                        s.set(ValueLayout.JAVA_LONG, 0, -1L);
                        return s.address();
                    }
                }).get();
                assertThat(theirs).isNotEqualTo(myBytes.address());
                try (StackAllocator.Frame inner = stack.pushFrame()) {
                    assertThat(inner.depth()).isEqualTo(2);
                    assertThat(inner.allocate(8).address()).isNotEqualTo(theirs);
                }
            }
            assertThat(myBytes.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
            assertThat(stack.stackCount()).isEqualTo(2);
        } finally {
            other.shutdown();
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aThreadPushesOnItsOwnStackAfterTheFirstThreadToPushHasEnded(DebugMode mode) throws Exception {
        StackAllocator stack = stack(mode);
        AtomicReference<StackAllocator.Frame> leftOpen = new AtomicReference<>();
        Thread first = Thread.ofPlatform().start(() -> {
            StackAllocator.Frame f = stack.pushFrame(); // left open: its thread ends with it
            f.allocate(8);
            leftOpen.set(f);
        });
        first.join();
        for (int i = 0; i < 3; i++) {
            try (StackAllocator.Frame f = stack.pushFrame()) {
                assertThat(f.depth()).isEqualTo(1);
                assertThat(f.allocate(8).byteSize()).isEqualTo(8);
                assertThatThrownBy(() -> leftOpen.get().allocate(8)).isInstanceOf(WrongThreadException.class);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void afterCloseTheOwnerThreadsFrameRefusesAllocationButPops(DebugMode mode) {
        StackAllocator stack = stack(mode);
        StackAllocator.Frame f = stack.pushFrame();
        f.allocate(16);
        stack.close();
        assertThatThrownBy(() -> f.allocate(8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("allocator is closed");
        assertThatThrownBy(() -> f.allocateUninitialized(8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("allocator is closed");
        assertThatThrownBy(stack::pushFrame).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatCode(f::close).as("popping a frame after the allocator's close is fine").doesNotThrowAnyException();
        assertThatThrownBy(stack::pushFrame).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void afterCloseAnotherThreadStillGetsTheWrongThreadException() throws Exception {
        StackAllocator stack = stack(DebugMode.OFF);
        StackAllocator.Frame f = stack.pushFrame();
        stack.close();
        AtomicReference<Throwable> allocate = new AtomicReference<>();
        AtomicReference<Throwable> close = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                f.allocate(8);
            } catch (Throwable e) {
                allocate.set(e);
            }
            try {
                f.close();
            } catch (Throwable e) {
                close.set(e);
            }
        });
        t.join();
        assertThat(allocate.get()).isInstanceOf(WrongThreadException.class);
        assertThat(close.get()).isInstanceOf(WrongThreadException.class);
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aClosedFrameIsToldFromTheFrameThatTookItsDepth(DebugMode mode) {
        StackAllocator stack = stack(mode);
        StackAllocator.Frame a = stack.pushFrame();
        StackAllocator.Frame b = stack.pushFrame();
        b.close();
        a.close();
        StackAllocator.Frame c = stack.pushFrame(); // depth 1 again, as a was
        assertThat(c.depth()).isEqualTo(a.depth());
        assertThatThrownBy(() -> a.allocate(8)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(a.scope().isAlive()).isFalse();
        StackAllocator.Frame d = stack.pushFrame(); // records c's number at depth 1
        assertThat(d.depth()).isEqualTo(b.depth());
        assertThatThrownBy(() -> a.allocate(8)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> b.allocate(8)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(a.scope().isAlive()).isFalse();
        assertThat(b.scope().isAlive()).isFalse();
        assertThatThrownBy(() -> c.allocate(8)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not the innermost");
        assertThat(c.scope().isAlive()).isTrue();
        assertThatCode(a::close).as("a closed frame closes again without effect").doesNotThrowAnyException();
        assertThatCode(b::close).doesNotThrowAnyException();
        assertThat(d.allocate(8).byteSize()).as("d is still the innermost frame").isEqualTo(8);
        d.close();
        assertThat(c.allocate(8).byteSize()).isEqualTo(8);
        c.close();
        assertThat(c.scope().isAlive()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void anOuterFrameStaysOpenWhileFramesInsideItComeAndGo(DebugMode mode) {
        StackAllocator stack = stack(mode);
        try (StackAllocator.Frame outer = stack.pushFrame()) {
            StackAllocator.Frame first = stack.pushFrame();
            first.close();
            StackAllocator.Frame second = stack.pushFrame();
            assertThat(outer.scope().isAlive()).isTrue();
            assertThat(first.scope().isAlive()).isFalse();
            assertThatThrownBy(() -> first.allocate(8)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(() -> outer.allocate(8)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not the innermost");
            // frames deeper than the first record of depths, whose array grows
            List<StackAllocator.Frame> deep = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                deep.add(stack.pushFrame());
            }
            assertThat(deep.getLast().depth()).isEqualTo(42);
            for (StackAllocator.Frame f : deep.subList(0, deep.size() - 1)) {
                assertThat(f.scope().isAlive()).isTrue();
            }
            assertThat(second.scope().isAlive()).isTrue();
            assertThatThrownBy(second::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("LIFO");
            for (StackAllocator.Frame f : deep) {
                assertThat(f.scope().isAlive()).isFalse();
            }
            assertThat(outer.scope().isAlive()).isTrue();
            assertThat(outer.allocate(8).byteSize()).isEqualTo(8);
        }
    }

    @Test
    void aPushRacingTheAllocatorsCloseFromAnotherThreadNeverReadsFreedMemory() throws Exception {
        for (int round = 0; round < 50; round++) {
            StackAllocator stack = stack(DebugMode.OFF);
            try (StackAllocator.Frame warm = stack.pushFrame()) {
                warm.allocate(8);
            }
            CompletableFuture<Void> closer = CompletableFuture.runAsync(stack::close);
            for (int i = 0; i < 1000; i++) {
                StackAllocator.Frame f;
                try {
                    f = stack.pushFrame();
                } catch (IllegalStateException closed) {
                    assertThat(closed).hasMessageContaining("closed");
                    break;
                }
                try {
                    f.allocate(64).set(ValueLayout.JAVA_LONG, 0, i);
                } catch (IllegalStateException closed) {
                    // the allocation or the access met the close: refused, as promised, never a crash
                    assertThat(closed.getMessage()).isNotNull();
                }
                f.close();
            }
            closer.join();
            assertThatThrownBy(stack::pushFrame).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
    }
}
