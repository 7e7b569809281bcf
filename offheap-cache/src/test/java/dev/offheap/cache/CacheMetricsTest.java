package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Statistics as JMX attributes and as Micrometer meters. */
class CacheMetricsTest {

    @Test
    void mbeanIsRegisteredUnderTheNameAndRemovedOnClose() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).name("jmx-test").build();
        OffHeapCache<String, String> twin = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).name("jmx-test").build();
        ObjectName name = new ObjectName("dev.offheap:type=Cache,name=\"jmx-test\"");
        assertThat(((OffHeapCacheImpl<?, ?>) cache).mbeanName()).isEqualTo(name);
        assertThat(((OffHeapCacheImpl<?, ?>) twin).mbeanName())
                .isEqualTo(new ObjectName("dev.offheap:type=Cache,name=\"jmx-test-2\""));
        // CacheMXBean#getName: the label registered, unquoted
        assertThat(server.getAttribute(name, "Name")).isEqualTo("jmx-test");
        assertThat(server.getAttribute(((OffHeapCacheImpl<?, ?>) twin).mbeanName(), "Name")).isEqualTo("jmx-test-2");
        cache.put("a", "1");
        cache.getIfPresent("a");
        cache.getIfPresent("b");
        assertThat(server.getAttribute(name, "HitCount")).isEqualTo(1L);
        assertThat(server.getAttribute(name, "MissCount")).isEqualTo(1L);
        assertThat(server.getAttribute(name, "HitRatio")).isEqualTo(0.5);
        assertThat(server.getAttribute(name, "EntryCount")).isEqualTo(1L);
        assertThat((Long) server.getAttribute(name, "UsedBytes")).isPositive().isLessThanOrEqualTo(1L << 20);
        assertThat(server.getAttribute(name, "CapacityBytes")).isEqualTo(1L << 20);
        cache.close();
        twin.close();
        assertThat(server.isRegistered(name)).isFalse();
    }

    @Test
    void micrometerBinderReportsTheStatistics() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).build();
        new OffHeapCacheMetrics(cache, "offers", Tags.of("app", "test")).bindTo(registry);
        cache.put("a", "1");
        cache.getIfPresent("a");
        cache.getIfPresent("a");
        cache.getIfPresent("zz");
        cache.get("l", k -> "loaded");
        for (int i = 0; i < 2000; i++) {
            cache.put("k" + i, "v".repeat(100));
        }
        assertThat(registry.get("cache.gets").tags("result", "hit", "cache", "offers", "app", "test")
                .functionCounter().count()).isEqualTo(2);
        assertThat(registry.get("cache.gets").tag("result", "miss").functionCounter().count()).isEqualTo(2);
        assertThat(registry.get("cache.load").tag("result", "success").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("cache.load.duration").functionTimer().count()).isEqualTo(1);
        assertThat(registry.get("cache.evictions").functionCounter().count()).isEqualTo(cache.stats().evictionCount())
                .isPositive();
        assertThat(registry.get("cache.size").gauge().value()).isEqualTo(cache.size());
        assertThat(registry.get("cache.weight").gauge().value()).isEqualTo(cache.weightedSize());
        assertThat(registry.get("cache.memory.capacity").gauge().value()).isEqualTo(64 * 1024);
        assertThat(registry.get("cache.memory.used").gauge().value()).isLessThanOrEqualTo(64 * 1024);
        cache.close();
        assertThat(registry.get("cache.size").gauge().value()).isNaN();
        // a counter keeps its count: falling to NaN read as a reset (TheBindersCountersKeepTheirCountsWhenTheCacheClosesTest)
        assertThat(registry.get("cache.gets").tag("result", "hit").functionCounter().count()).isEqualTo(2);
        assertThatThrownBy(() -> new OffHeapCacheMetrics(null, "x", Tags.empty()))
                .isInstanceOf(NullPointerException.class).hasMessage("cache");
        assertThatThrownBy(() -> new OffHeapCacheMetrics(cache, null, Tags.empty())).hasMessage("cacheName");
        assertThatThrownBy(() -> new OffHeapCacheMetrics(cache, "x", null)).hasMessage("tags");
        assertThatThrownBy(() -> new OffHeapCacheMetrics(cache, "x", Tags.empty()).bindTo(null)).hasMessage("registry");
    }
}
