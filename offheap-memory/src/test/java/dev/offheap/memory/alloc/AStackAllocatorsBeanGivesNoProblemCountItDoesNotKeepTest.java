package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A stack allocator records no misuse: in {@link DebugMode#FULL} it throws at a frame closed out of order or
 * used after its close, and counts nothing. Its {@link AllocatorMXBean} gives -1 problems, as the bean gives
 * every number an allocator does not keep, and as {@code offheap inspect} shows "n/a"; it gave 0, which
 * read "no misuse seen" in the one mode that looks for misuse, after misuse was seen.
 */
class AStackAllocatorsBeanGivesNoProblemCountItDoesNotKeepTest {

    @Test
    void aFullModeStackAllocatorGivesMinusOneProblemsAfterAMisuse() throws Exception {
        String name = "stack-problems-" + UUID.randomUUID().toString().substring(0, 8);
        try (StackAllocator stack = StackAllocator.builder().name(name).debug(DebugMode.FULL).build()) {
            AllocatorMXBean bean = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(),
                    new ObjectName("dev.offheap:type=Allocator,name=" + name), AllocatorMXBean.class);
            StackAllocator.Frame outer = stack.pushFrame();
            StackAllocator.Frame inner = stack.pushFrame();
            // closing the outer frame first: a misuse, refused with an exception and recorded nowhere
            assertThatThrownBy(outer::close).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> inner.allocate(8)).isInstanceOf(IllegalStateException.class);

            assertThat(bean.getProblemsSeen()).as("not kept, so -1, not 0").isEqualTo(-1);
            assertThat(bean.getAllocatedBytes()).isEqualTo(-1);
            assertThat(bean.getLiveAllocations()).isEqualTo(-1);
        }
    }
}
