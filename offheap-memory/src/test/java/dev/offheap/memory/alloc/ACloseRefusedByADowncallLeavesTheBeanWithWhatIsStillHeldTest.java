package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.HeldInDowncall;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * An allocator whose {@code close()} a downcall refused (it holds a segment's scope) still holds every
 * byte it held: its {@link AllocatorMXBean} stays registered, as it should, and shows those bytes, the
 * allocations behind them and the report that names them, until a later {@code close()} frees them. A
 * pooled allocator read 0 bytes, 0 allocations and 0 footprint from the moment the refused close began
 * (a native allocator read its true numbers), while its range and its budget's charge were all still there.
 */
class ACloseRefusedByADowncallLeavesTheBeanWithWhatIsStillHeldTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final Duration LIMIT = Duration.ofSeconds(60);

    private static ObjectName nameOf(String label) throws Exception {
        return new ObjectName("dev.offheap:type=Allocator,name=" + label);
    }

    @Test
    void aPooledAllocatorShowsWhatItStillHoldsAfterARefusedClose() {
        assertTimeoutPreemptively(LIMIT, () -> {
            String name = "pooled-refused-" + UUID.randomUUID().toString().substring(0, 8);
            Budget budget = Budget.root(name, 64L << 20);
            PooledAllocator pool = PooledAllocator.builder().name(name).budget(budget).capacity(32L << 20)
                    .debug(DebugMode.FULL).idleRelease(Duration.ZERO).build();
            AllocatorMXBean bean = JMX.newMXBeanProxy(SERVER, nameOf(name), AllocatorMXBean.class);
            pool.allocate(64);
            MemorySegment large = pool.allocate(1 << 20);
            long footprint = pool.footprintBytes();
            assertThat(footprint).isGreaterThanOrEqualTo(64 + (1 << 20));

            HeldInDowncall held = new HeldInDowncall(large);
            try {
                assertThatThrownBy(pool::close).isInstanceOf(IllegalStateException.class);
                assertThat(SERVER.isRegistered(nameOf(name))).as("registered while it holds memory").isTrue();
                assertThat(budget.used()).as("nothing was given back").isEqualTo(footprint);
                assertThat(bean.getFootprintBytes()).isEqualTo(pool.footprintBytes()).isEqualTo(footprint);
                assertThat(bean.getAllocatedBytes()).isEqualTo(pool.allocatedBytes()).isEqualTo(64 + (1 << 20));
                assertThat(bean.getLiveAllocations()).isEqualTo(2);
                assertThat(bean.getBudgetUsedBytes()).isEqualTo(footprint);
                assertThat(bean.report()).contains("2 live allocations", (64 + (1 << 20)) + " bytes allocated",
                        "aPooledAllocatorShowsWhatItStillHoldsAfterARefusedClose");
            } finally {
                held.release();
            }

            pool.close();
            assertThat(SERVER.isRegistered(nameOf(name))).as("gone once everything is freed").isFalse();
            assertThat(pool.footprintBytes()).isZero();
            assertThat(pool.allocatedBytes()).isZero();
            assertThat(pool.report().liveAllocations()).isZero();
            assertThat(budget.used()).isZero();
            budget.close();
        });
    }

    @Test
    void aNativeAllocatorShowsWhatItStillHoldsAfterARefusedClose() {
        assertTimeoutPreemptively(LIMIT, () -> {
            String name = "malloc-refused-" + UUID.randomUUID().toString().substring(0, 8);
            Budget budget = Budget.root(name, 64L << 20);
            NativeAllocator malloc = NativeAllocator.builder().name(name).budget(budget).registerMBean(true)
                    .debug(DebugMode.OFF).build();
            AllocatorMXBean bean = JMX.newMXBeanProxy(SERVER, nameOf(name), AllocatorMXBean.class);
            MemorySegment small = malloc.allocate(64);
            malloc.allocate(100);

            HeldInDowncall held = new HeldInDowncall(small);
            try {
                assertThatThrownBy(malloc::close).isInstanceOf(IllegalStateException.class);
                assertThat(SERVER.isRegistered(nameOf(name))).isTrue();
                assertThat(bean.getFootprintBytes()).isEqualTo(164);
                assertThat(bean.getAllocatedBytes()).isEqualTo(164);
                assertThat(bean.getLiveAllocations()).isEqualTo(2);
                assertThat(bean.getBudgetUsedBytes()).isEqualTo(164);
            } finally {
                held.release();
            }

            malloc.close();
            assertThat(SERVER.isRegistered(nameOf(name))).isFalse();
            assertThat(budget.used()).isZero();
            budget.close();
        });
    }
}
