package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.PooledAllocator;
import dev.offheap.memory.alloc.StackAllocator;
import java.lang.management.ManagementFactory;
import java.util.UUID;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * A second live memory manager or allocator of a name registers its bean as {@code <name>-2}; the
 * bean's {@code Name} attribute is that label, as a cache's bean's is, so that a tool reading the
 * attribute tells the two apart. It reported the object's name, {@code <name>}, for both.
 */
class TheNameAttributeIsTheLabelTheBeanIsRegisteredUnderTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static ObjectName objectName(String type, String label) throws Exception {
        return new ObjectName("dev.offheap:type=" + type + ",name=" + label);
    }

    private static MemoryManager manager(String name) {
        return MemoryManager.builder().name(name).type(MemoryType.HEAP).pageSize(4096).totalSize(4096).build();
    }

    @Test
    void twoManagersOfOneName() throws Exception {
        String name = unique("pages");
        MemoryManager first = manager(name);
        try (MemoryManager second = manager(name)) {
            assertThat(SERVER.getAttribute(objectName("MemoryManager", name), "Name")).isEqualTo(name);
            assertThat(SERVER.getAttribute(objectName("MemoryManager", name + "-2"), "Name")).isEqualTo(name + "-2");
            assertThat(second.name()).isEqualTo(name);
            first.close();
            // the freed label goes to the next manager of the name, and its bean says so
            try (MemoryManager third = manager(name)) {
                assertThat(SERVER.getAttribute(objectName("MemoryManager", name), "Name")).isEqualTo(name);
                assertThat(SERVER.getAttribute(objectName("MemoryManager", name + "-2"), "Name"))
                        .isEqualTo(name + "-2");
                assertThat(third.name()).isEqualTo(name);
            }
        }
    }

    @Test
    void twoManagersOfANameThatIsQuoted() throws Exception {
        String name = "pages, \"main\"=1:" + unique("q");
        try (MemoryManager first = manager(name); MemoryManager second = manager(name)) {
            assertThat(SERVER.getAttribute(objectName("MemoryManager", ObjectName.quote(name)), "Name"))
                    .isEqualTo(name);
            assertThat(SERVER.getAttribute(objectName("MemoryManager", ObjectName.quote(name + "-2")), "Name"))
                    .isEqualTo(name + "-2");
            assertThat(first.name()).isEqualTo(second.name()).isEqualTo(name);
        }
    }

    @Test
    void twoAllocatorsOfOneNameOfEachKind() throws Exception {
        String pooled = unique("pooled");
        try (PooledAllocator a = PooledAllocator.builder().name(pooled).build();
                PooledAllocator b = PooledAllocator.builder().name(pooled).build()) {
            assertThat(SERVER.getAttribute(objectName("Allocator", pooled), "Name")).isEqualTo(pooled);
            assertThat(SERVER.getAttribute(objectName("Allocator", pooled + "-2"), "Name")).isEqualTo(pooled + "-2");
            // the allocators keep their name: only the bean's label is set apart
            assertThat(a.name()).isEqualTo(b.name()).isEqualTo(pooled);
        }
        String stack = unique("stack");
        try (StackAllocator a = StackAllocator.builder().name(stack).build();
                StackAllocator b = StackAllocator.builder().name(stack).build()) {
            assertThat(SERVER.getAttribute(objectName("Allocator", stack), "Name")).isEqualTo(stack);
            assertThat(SERVER.getAttribute(objectName("Allocator", stack + "-2"), "Name")).isEqualTo(stack + "-2");
            // the allocators keep their name: only the bean's label is set apart
            assertThat(a.name()).isEqualTo(b.name()).isEqualTo(stack);
        }
        String malloc = unique("malloc");
        try (NativeAllocator a = NativeAllocator.builder().name(malloc).registerMBean(true).build();
                NativeAllocator b = NativeAllocator.builder().name(malloc).registerMBean(true).build()) {
            assertThat(SERVER.getAttribute(objectName("Allocator", malloc), "Name")).isEqualTo(malloc);
            assertThat(SERVER.getAttribute(objectName("Allocator", malloc + "-2"), "Name")).isEqualTo(malloc + "-2");
            // the allocators keep their name: only the bean's label is set apart
            assertThat(a.name()).isEqualTo(b.name()).isEqualTo(malloc);
        }
    }
}
