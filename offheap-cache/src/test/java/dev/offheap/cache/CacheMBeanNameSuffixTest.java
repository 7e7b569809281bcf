package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cache whose name is taken by open caches' MBeans registers under the next free suffix, however many are
 * taken: with 999 names taken ({@code <name>}, {@code <name>-2} ... {@code <name>-999}) the next cache got no
 * MBean at all, and nothing said so.
 */
class CacheMBeanNameSuffixTest {

    /** What stands in for the MBeans of 999 open caches of the same name. */
    public interface Placeholder {
        /** @return always 0 */
        int getValue();
    }

    @Test
    void theThousandthCacheOfANameStillGetsAnMBean() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        List<ObjectName> taken = new ArrayList<>();
        try {
            for (int i = 1; i < 1000; i++) {
                ObjectName name = new ObjectName("dev.offheap:type=Cache,name="
                        + ObjectName.quote(i == 1 ? "crowded" : "crowded-" + i));
                server.registerMBean(new StandardMBean(() -> 0, Placeholder.class), name);
                taken.add(name);
            }
            ObjectName expected = new ObjectName("dev.offheap:type=Cache,name=\"crowded-1000\"");
            try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(1 << 20).name("crowded").build()) {
                assertThat(((OffHeapCacheImpl<?, ?>) cache).mbeanName()).isEqualTo(expected);
                assertThat(server.isRegistered(expected)).isTrue();
            }
            assertThat(server.isRegistered(expected)).as("unregistered at close").isFalse();
        } finally {
            for (ObjectName name : taken) {
                server.unregisterMBean(name);
            }
        }
    }
}
