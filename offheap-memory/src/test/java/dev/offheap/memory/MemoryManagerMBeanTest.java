package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryManagerMBeanTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    /** Every MemoryManager MBean whose Name attribute is {@code name} (the ObjectName may quote or suffix it). */
    static ObjectName objectNamesOf(String name) {
        try {
            return new ObjectName("dev.offheap:type=MemoryManager,*");
        } catch (MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }

    /** The beans of the open managers named {@code name}: their Name is it, or it with a {@code -N} suffix. */
    private static Set<ObjectName> registered(String name) throws Exception {
        Set<ObjectName> all = SERVER.queryNames(objectNamesOf(name), null);
        java.util.Set<ObjectName> matching = new java.util.HashSet<>();
        for (ObjectName on : all) {
            Object label = SERVER.getAttribute(on, "Name");
            if (name.equals(label) || label instanceof String s && s.matches(java.util.regex.Pattern.quote(name) + "-[0-9]+")) {
                matching.add(on);
            }
        }
        return matching;
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void mbeanIsRegisteredWithCorrectAttributesAndUnregisteredOnClose() throws Exception {
        String name = unique("jmx");
        ObjectName on;
        try (MemoryManager mm = MemoryManager.builder().name(name).pageSize(4096).totalSize(16 * 4096).build()) {
            Set<ObjectName> names = registered(name);
            assertThat(names).hasSize(1);
            on = names.iterator().next();
            assertThat(on.getDomain()).isEqualTo("dev.offheap");
            assertThat(on.getKeyProperty("type")).isEqualTo("MemoryManager");
            assertThat(on.getKeyProperty("name")).isEqualTo(name);
            assertThat(on).isEqualTo(new ObjectName("dev.offheap:type=MemoryManager,name=" + name));

            List<MemorySegment> pages = mm.allocatePages("sorter", 5);
            mm.allocatePage("cache");
            mm.reserve("index", 1000);
            assertThat(SERVER.getAttribute(on, "Name")).isEqualTo(name);
            assertThat(SERVER.getAttribute(on, "MemoryType")).isEqualTo("NATIVE");
            assertThat(SERVER.getAttribute(on, "PageSize")).isEqualTo(4096);
            assertThat(SERVER.getAttribute(on, "TotalBytes")).isEqualTo(16L * 4096);
            assertThat(SERVER.getAttribute(on, "TotalPages")).isEqualTo(16);
            assertThat(SERVER.getAttribute(on, "UsedPages")).isEqualTo(6);
            assertThat(SERVER.getAttribute(on, "FreePages")).isEqualTo(9);
            assertThat(SERVER.getAttribute(on, "ReservedBytes")).isEqualTo(1000L);
            assertThat(SERVER.getAttribute(on, "UsedBytes")).isEqualTo(mm.usedBytes());
            assertThat((Long) SERVER.getAttribute(on, "PeakUsedBytes")).isGreaterThanOrEqualTo(6L * 4096 + 1000);
            assertThat(SERVER.getAttribute(on, "AllocatedBytes")).isEqualTo(mm.allocatedBytes());
            assertThat(SERVER.getAttribute(on, "QuarantinedPages")).isEqualTo(0);

            assertThat(SERVER.getAttribute(on, "AllocationFailures")).isEqualTo(0L);
            mm.registerSpillCallback("sorter", (m, bytes) -> {
                m.release(pages.removeLast());
                return 4096;
            });
            try {
                mm.allocatePages("cache", 12); // fits the manager, not what is free even after one spill
            } catch (BudgetExceededException expected) {
                // counted below
            }
            assertThat(SERVER.getAttribute(on, "AllocationFailures")).isEqualTo(1L);
            assertThat(SERVER.getAttribute(on, "SpillCount")).isEqualTo(1L);
            assertThat(SERVER.getAttribute(on, "SpilledBytes")).isEqualTo(4096L);

            MemoryManagerMXBean proxy = JMX.newMXBeanProxy(SERVER, on, MemoryManagerMXBean.class);
            assertThat(proxy.getUsageByOwner()).containsEntry("sorter", 4L * 4096).containsEntry("cache", 4096L)
                    .containsEntry("index", 1000L);
            assertThat(proxy.getUsedPages()).isEqualTo(5);
        }
        assertThat(SERVER.isRegistered(on)).isFalse();
        assertThat(registered(name)).isEmpty();
    }

    /**
     * Children of the manager's budget hold part of its memory, so that fewer pages are free than its owners
     * explain: the bean names each of them with what it uses, holds and may use, largest holder first.
     */
    @Test
    void childBudgetsOfTheManagersBudgetAreShownWithWhatTheyHold() throws Exception {
        String name = unique("children");
        try (MemoryManager mm = MemoryManager.builder().name(name).pageSize(4096).totalSize(16 * 4096).build()) {
            ObjectName on = registered(name).iterator().next();
            Budget index = mm.budget().child("index", 8 * 4096);
            index.reserve(3 * 4096);
            Budget scratch = mm.budget().child("scratch", 4 * 4096, 2 * 4096);
            scratch.reserve(100);
            Budget idle = mm.budget().child("idle", 4096);

            assertThat(SERVER.getAttribute(on, "ChildBudgets")).isInstanceOf(CompositeData[].class);
            MemoryManagerMXBean proxy = JMX.newMXBeanProxy(SERVER, on, MemoryManagerMXBean.class);
            assertThat(proxy.getChildBudgets()).containsExactly(
                    new MemoryManagerMXBean.ChildBudgetUsage("index", 3 * 4096, 3 * 4096, 8 * 4096),
                    new MemoryManagerMXBean.ChildBudgetUsage("scratch", 100, 2 * 4096, 4 * 4096),
                    new MemoryManagerMXBean.ChildBudgetUsage("idle", 0, 0, 4096));
            assertThat(proxy.getFreePages()).isEqualTo(11);

            index.release(3 * 4096);
            index.close();
            assertThat(proxy.getChildBudgets()).extracting(MemoryManagerMXBean.ChildBudgetUsage::name)
                    .containsExactly("scratch", "idle");
            scratch.release(100);
            scratch.close();
            idle.close();
        }
    }

    @Test
    void registerMBeanFalseRegistersNothing() throws Exception {
        String name = unique("no-jmx");
        try (MemoryManager mm = MemoryManager.builder().name(name).registerMBean(false).pageSize(4096).totalSize(4096).build()) {
            assertThat(mm.name()).isEqualTo(name);
            assertThat(registered(name)).isEmpty();
        }
    }

    @Test
    void twoManagersWithTheSameNameBothRegister() throws Exception {
        String name = unique("twin");
        MemoryManager a = MemoryManager.builder().name(name).pageSize(4096).totalSize(4096).build();
        try (MemoryManager b = MemoryManager.builder().name(name).pageSize(4096).totalSize(2 * 4096).build()) {
            Set<ObjectName> names = registered(name);
            assertThat(names).hasSize(2);
            assertThat(names.stream().map(on -> {
                try {
                    return (Integer) SERVER.getAttribute(on, "TotalPages");
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            })).containsExactlyInAnyOrder(1, 2);
            a.close();
            assertThat(registered(name)).hasSize(1);
            assertThat(b.isClosed()).isFalse();
        }
        assertThat(registered(name)).isEmpty();
    }

    @Test
    void unnamedManagersGetDistinctNames() throws Exception {
        try (MemoryManager a = MemoryManager.builder().pageSize(4096).totalSize(4096).build();
             MemoryManager b = MemoryManager.builder().pageSize(4096).totalSize(4096).build()) {
            assertThat(a.name()).isNotEqualTo(b.name());
            assertThat(registered(a.name())).hasSize(1);
            assertThat(registered(b.name())).hasSize(1);
        }
    }

    /** The documented ObjectName is {@code dev.offheap:type=MemoryManager,name=<manager name>}. */
    @Test
    void objectNameUsesTheDocumentedForm() throws Exception {
        String name = unique("plain");
        try (MemoryManager mm = MemoryManager.builder().name(name).pageSize(4096).totalSize(4096).build()) {
            ObjectName quoted = new ObjectName("dev.offheap:type=MemoryManager,name=" + ObjectName.quote(name));
            ObjectName plain = new ObjectName("dev.offheap:type=MemoryManager,name=" + name);
            assertThat(SERVER.isRegistered(quoted) || SERVER.isRegistered(plain)).isTrue();
            assertThat(mm.isClosed()).isFalse();
        }
    }
}
