package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A {@link DebugMode#FULL} stack allocator closed from one thread while another thread has frames open
 * keeps that thread's stack until the thread ends (only it can close its frames' scopes). Its
 * {@link AllocatorMXBean} stays registered as long, counting that stack in its footprint and threads, and
 * goes away once the stack is freed: the bean promises to go away when everything is freed. It went away
 * at {@code close()}, and the allocator's footprint read 0, while the stack and its budget's charge stayed.
 */
class AStackKeptUntilItsThreadEndsKeepsTheBeanTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @Test
    void theBeanShowsTheKeptStackAndGoesAwayWhenItIsFreed() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            String name = "stack-kept-" + UUID.randomUUID().toString().substring(0, 8);
            ObjectName objectName = new ObjectName("dev.offheap:type=Allocator,name=" + name);
            Budget budget = Budget.root(name, 1 << 20, report -> { });
            StackAllocator stack = StackAllocator.builder().name(name).stackSize(4096).debug(DebugMode.FULL)
                    .budget(budget).build();
            AllocatorMXBean bean = JMX.newMXBeanProxy(SERVER, objectName, AllocatorMXBean.class);
            CountDownLatch pushed = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread owner = Thread.ofPlatform().start(() -> {
                try (StackAllocator.Frame f = stack.pushFrame()) {
                    MemorySegment s = f.allocate(ValueLayout.JAVA_LONG);
                    s.set(ValueLayout.JAVA_LONG, 0, 42L);
                    pushed.countDown();
                    closed.await();
                    assertThat(s.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            pushed.await();
            stack.close();

            assertThat(budget.used()).as("the owner's stack is still allocated").isEqualTo(4096);
            assertThat(SERVER.isRegistered(objectName)).as("registered while the stack is kept").isTrue();
            assertThat(bean.getFootprintBytes()).isEqualTo(stack.footprintBytes()).isEqualTo(4096);
            assertThat(bean.getThreadCount()).isEqualTo(stack.stackCount()).isEqualTo(1);
            assertThat(bean.report()).contains(name, "1 thread stacks", "4096 bytes footprint", "closed");

            closed.countDown();
            owner.join();
            assertThat(failure.get()).isNull();
            owner = null;
            // once the thread is gone its stack is freed, its budget given back, and the bean unregistered
            for (int i = 0; i < 500 && SERVER.isRegistered(objectName); i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertThat(budget.used()).isZero();
            assertThat(SERVER.isRegistered(objectName)).as("gone once the stack is freed").isFalse();
            assertThat(stack.footprintBytes()).isZero();
            assertThat(stack.stackCount()).isZero();
            budget.close();
        });
    }
}
