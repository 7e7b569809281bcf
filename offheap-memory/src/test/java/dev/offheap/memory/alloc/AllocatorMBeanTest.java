package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every allocator kind's {@link AllocatorMXBean}: registered under {@code dev.offheap:type=Allocator}, its
 * numbers those of the allocator at the moment of reading, gone once the allocator is closed.
 */
class AllocatorMBeanTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static ObjectName nameOf(String label) throws Exception {
        return new ObjectName("dev.offheap:type=Allocator,name=" + label);
    }

    private static AllocatorMXBean proxy(String label) throws Exception {
        return JMX.newMXBeanProxy(SERVER, nameOf(label), AllocatorMXBean.class);
    }

    @Test
    void aPooledAllocatorShowsWhatItHoldsAndItsBudgetUntilClosed() throws Exception {
        String name = unique("pooled");
        try (Budget root = Budget.root("service", 64L << 20);
             Budget part = root.child("requests", 32L << 20)) {
            PooledAllocator allocator = PooledAllocator.builder().name(name).budget(part).debug(DebugMode.FULL)
                    .capacity(16L << 20).build();
            assertThat(SERVER.isRegistered(nameOf(name))).isTrue();
            AllocatorMXBean bean = proxy(name);
            assertThat(bean.getName()).isEqualTo(name);
            assertThat(bean.getKind()).isEqualTo("pooled");
            assertThat(bean.getDebugMode()).isEqualTo("FULL");
            assertThat(bean.getCapacityBytes()).isEqualTo(16L << 20);
            assertThat(bean.getBudgetPath()).isEqualTo("service/requests");
            assertThat(bean.getBudgetLimitBytes()).isEqualTo(32L << 20);
            assertThat(bean.getAllocatedBytes()).isZero();

            MemorySegment a = allocator.allocate(100);
            MemorySegment b = allocator.allocate(5000);
            assertThat(bean.getAllocatedBytes()).isEqualTo(allocator.allocatedBytes()).isEqualTo(5100);
            assertThat(bean.getLiveAllocations()).isEqualTo(2);
            assertThat(bean.getFootprintBytes()).isEqualTo(allocator.footprintBytes()).isGreaterThanOrEqualTo(5100);
            assertThat(bean.getBudgetUsedBytes()).isEqualTo(part.used()).isPositive();
            assertThat(bean.getThreadCount()).isEqualTo(allocator.threadCacheCount());
            // FULL mode: the report groups the live allocations by the site that made them, this test
            assertThat(bean.report()).contains(name, "2 live allocations", "5100 bytes allocated",
                    "aPooledAllocatorShowsWhatItHoldsAndItsBudgetUntilClosed");

            allocator.free(b);
            assertThat(bean.getProblemsSeen()).isZero();
            assertThatThrownBy(() -> allocator.free(b)).isInstanceOf(IllegalStateException.class);
            assertThat(bean.getProblemsSeen()).isEqualTo(1);
            assertThat(bean.getAllocatedBytes()).isEqualTo(100);
            assertThat(a.byteSize()).isEqualTo(100);

            allocator.close();
            assertThat(SERVER.isRegistered(nameOf(name))).isFalse();
        }
    }

    @Test
    void aNativeAllocatorRegistersOnlyWhenAskedAndCountsExactly() throws Exception {
        String quiet = unique("malloc-quiet");
        try (NativeAllocator allocator = NativeAllocator.builder().name(quiet).build()) {
            assertThat(SERVER.isRegistered(nameOf(quiet))).as("a native allocator registers only when asked").isFalse();
            assertThat(allocator.allocate(10).byteSize()).isEqualTo(10);
        }
        String name = unique("malloc");
        NativeAllocator allocator = NativeAllocator.builder().name(name).registerMBean(true)
                .debug(DebugMode.SAMPLED).sampleRate(1).build();
        AllocatorMXBean bean = proxy(name);
        assertThat(bean.getKind()).isEqualTo("malloc");
        assertThat(bean.getDebugMode()).isEqualTo("SAMPLED");
        assertThat(bean.getCapacityBytes()).isEqualTo(-1);
        assertThat(bean.getBudgetPath()).isEmpty();
        assertThat(bean.getBudgetLimitBytes()).isEqualTo(-1);
        assertThat(bean.getBudgetUsedBytes()).isEqualTo(-1);
        assertThat(bean.getThreadCount()).isZero();
        MemorySegment segment = allocator.allocate(300);
        allocator.allocate(700);
        assertThat(bean.getAllocatedBytes()).isEqualTo(1000);
        assertThat(bean.getLiveAllocations()).isEqualTo(2);
        assertThat(bean.getFootprintBytes()).isEqualTo(1000);
        allocator.free(segment);
        assertThatThrownBy(() -> allocator.free(segment)).isInstanceOf(IllegalStateException.class);
        assertThat(bean.getProblemsSeen()).isEqualTo(1);
        assertThat(bean.report()).contains(name, "1 live allocations", "700 bytes allocated");
        allocator.close();
        assertThat(SERVER.isRegistered(nameOf(name))).isFalse();
    }

    @Test
    void aStackAllocatorShowsItsThreadsStacks() throws Exception {
        String name = unique("stack");
        StackAllocator stacks = StackAllocator.builder().name(name).stackSize(8192).build();
        AllocatorMXBean bean = proxy(name);
        assertThat(bean.getKind()).isEqualTo("stack");
        assertThat(bean.getAllocatedBytes()).isEqualTo(-1);
        assertThat(bean.getLiveAllocations()).isEqualTo(-1);
        assertThat(bean.getThreadCount()).isZero();
        assertThat(bean.getFootprintBytes()).isZero();
        try (StackAllocator.Frame frame = stacks.pushFrame()) {
            frame.allocate(100);
            Thread other = Thread.ofPlatform().start(() -> {
                try (StackAllocator.Frame f = stacks.pushFrame()) {
                    f.allocate(10);
                }
            });
            other.join();
        }
        assertThat(bean.getThreadCount()).isEqualTo(stacks.stackCount()).isEqualTo(2);
        assertThat(bean.getFootprintBytes()).isEqualTo(stacks.footprintBytes()).isGreaterThanOrEqualTo(2 * 8192);
        assertThat(bean.report()).contains(name, "2 thread stacks");
        stacks.close();
        assertThat(SERVER.isRegistered(nameOf(name))).isFalse();
    }

    @Test
    void twoOpenAllocatorsOfOneNameGetTwoBeansAndOptingOutRegistersNone() throws Exception {
        String name = unique("twin");
        try (PooledAllocator first = PooledAllocator.builder().name(name).build();
             PooledAllocator second = PooledAllocator.builder().name(name).build();
             PooledAllocator unseen = PooledAllocator.builder().name(name).registerMBean(false).build()) {
            first.allocate(16);
            second.allocate(32);
            unseen.allocate(64);
            assertThat(proxy(name).getAllocatedBytes()).isEqualTo(16);
            assertThat(proxy(name + "-2").getAllocatedBytes()).isEqualTo(32);
            assertThat(SERVER.isRegistered(nameOf(name + "-3"))).isFalse();
        }
        assertThat(SERVER.isRegistered(nameOf(name))).isFalse();
        assertThat(SERVER.isRegistered(nameOf(name + "-2"))).isFalse();
    }

    @Test
    void aNameThatAnObjectNameCannotHoldAsIsIsQuoted() throws Exception {
        String name = "pool, \"main\"=1:" + unique("q");
        try (PooledAllocator allocator = PooledAllocator.builder().name(name).build()) {
            ObjectName quoted = new ObjectName("dev.offheap:type=Allocator,name=" + ObjectName.quote(name));
            assertThat(SERVER.isRegistered(quoted)).isTrue();
            assertThat(SERVER.getAttribute(quoted, "Name")).isEqualTo(name);
            assertThat(allocator.allocatedBytes()).isZero();
        }
    }
}
