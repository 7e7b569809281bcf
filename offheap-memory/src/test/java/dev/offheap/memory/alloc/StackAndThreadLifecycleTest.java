package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The per-thread parts of the allocators: stacks of ended threads, out-of-order pops after close, the default stack. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StackAndThreadLifecycleTest {

    @Test
    void stacksOfEndedThreadsGiveTheirBudgetBackBeforeItRefusesANewStack() throws Exception {
        // Before: the stacks of ended threads were freed only every 64 new stacks, and a refused stack is no
        // new stack, so once ended threads held the whole budget every later thread's push was refused forever.
        Random random = new Random(8);
        try (Budget budget = Budget.root("frames", 16 * 1024, report -> { })) {
            StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).build();
            for (int i = 0; i < 20; i++) {
                int size = 1 + random.nextInt(4000);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread t = Thread.ofPlatform().start(() -> {
                    try (StackAllocator.Frame f = stack.pushFrame()) {
                        f.allocate(size).fill((byte) 1);
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                t.join();
                assertThat(failure.get()).as("push on short-lived thread %d", i).isNull();
                assertThat(budget.used()).isLessThanOrEqualTo(16 * 1024);
            }
            stack.close();
            assertThat(budget.used()).isZero();
        }
    }

    @Test
    void manyShortLivedVirtualThreadsShareABudgetOfAFewStacks() throws Exception {
        Random random = new Random(88);
        try (Budget budget = Budget.root("frames", 8 * 4096, report -> { })) {
            StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).build();
            AtomicInteger refused = new AtomicInteger();
            ArrayDeque<Thread> alive = new ArrayDeque<>();
            for (int i = 0; i < 2000; i++) {
                if (alive.size() == 4) {
                    // at most 4 threads not yet ended, so at most 4 stacks of live threads; the budget has room for 8
                    assertThat(alive.removeFirst().join(Duration.ofSeconds(30))).isTrue();
                }
                int size = 1 + random.nextInt(2048);
                alive.addLast(Thread.ofVirtual().start(() -> {
                    try (StackAllocator.Frame f = stack.pushFrame()) {
                        f.allocate(size).fill((byte) 1);
                    } catch (Throwable e) {
                        refused.incrementAndGet();
                    }
                }));
            }
            for (Thread t : alive) {
                assertThat(t.join(Duration.ofSeconds(30))).isTrue();
            }
            assertThat(refused.get()).as("pushes refused").isZero();
            assertThat(budget.used()).isLessThanOrEqualTo(8 * 4096).isEqualTo(stack.footprintBytes());
            stack.close();
            assertThat(budget.used()).isZero();
        }
    }

    @Test
    void aStackGrowsIntoTheBudgetThatEndedThreadsHeld() throws Exception {
        try (Budget budget = Budget.root("frames", 16 * 1024, report -> { });
             StackAllocator stack = StackAllocator.builder().stackSize(4096).budget(budget).build()) {
            for (int i = 0; i < 3; i++) {
                Thread t = Thread.ofPlatform().start(() -> {
                    try (StackAllocator.Frame f = stack.pushFrame()) {
                        f.allocate(64);
                    }
                });
                t.join();
            }
            try (StackAllocator.Frame f = stack.pushFrame()) {
                assertThat(budget.used()).isEqualTo(16 * 1024);
                // the three ended threads' 12 KiB are all the budget has for a growth of 8 KiB
                MemorySegment big = f.allocate(8 * 1024);
                big.set(ValueLayout.JAVA_BYTE, 8 * 1024 - 1, (byte) 1);
                assertThat(stack.stackCount()).isEqualTo(1);
                assertThat(stack.footprintBytes()).isEqualTo(budget.used()).isEqualTo(4096 + 8 * 1024);
            }
        }
    }

    @Test
    void fullModeOutOfOrderPopAfterTheAllocatorClosedOnTheOwnerThreadThrowsTheDocumentedException() {
        // close() on the owner thread closes the open frames' scopes and forgets them; an outer frame popped
        // before the inner one then threw NullPointerException instead of IllegalStateException
        StackAllocator stack = StackAllocator.builder().stackSize(4096).debug(DebugMode.FULL).build();
        StackAllocator.Frame outer = stack.pushFrame();
        MemorySegment a = outer.allocate(8);
        StackAllocator.Frame inner = stack.pushFrame();
        inner.allocate(8);
        stack.close();
        assertThatThrownBy(outer::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("LIFO");
        assertThatCode(inner::close).doesNotThrowAnyException();
        assertThatCode(outer::close).as("closing twice does nothing").doesNotThrowAnyException();
        assertThat(a.scope().isAlive()).isFalse();
    }

    @Test
    void malformedDebugPropertyMakesPushThrowIllegalArgumentException() throws Exception {
        // StackAllocator in a class loader of its own, so that its default stack is made afresh under the property
        URL classes = StackAllocator.class.getProtectionDomain().getCodeSource().getLocation();
        String before = System.getProperty(DebugMode.PROPERTY);
        System.setProperty(DebugMode.PROPERTY, "loud");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Method push = loader.loadClass(StackAllocator.class.getName()).getMethod("push");
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> invoke(push)).as("attempt %d", attempt)
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(DebugMode.PROPERTY)
                        .hasMessageContaining("loud");
            }
        } finally {
            if (before == null) {
                System.clearProperty(DebugMode.PROPERTY);
            } else {
                System.setProperty(DebugMode.PROPERTY, before);
            }
        }
    }

    /** Invokes a static method and rethrows what it threw. */
    private static void invoke(Method method) throws Throwable {
        try {
            method.invoke(null);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
