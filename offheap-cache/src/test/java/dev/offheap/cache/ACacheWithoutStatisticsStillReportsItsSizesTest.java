package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cache built with {@code recordStats(false)} counts no hits, misses, loads, evictions or expirations, but its
 * statistics still report its sizes: the Micrometer binder's gauges of such a cache read them from there. The
 * javadoc of {@code stats()} said "zeros if statistics are off", of every figure.
 */
class ACacheWithoutStatisticsStillReportsItsSizesTest {

    @Test
    void itsCountsAreZeroAndItsSizesAreTheCaches() throws Exception {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).recordStats(false).build()) {
            cache.put("a", "1");
            cache.getIfPresent("a");
            cache.getIfPresent("b");
            cache.get("c", key -> "3");
            for (int i = 0; i < 2000; i++) {
                cache.put("k" + i, "v".repeat(100));
            }

            CacheStats stats = cache.stats();
            assertThat(new long[]{stats.hitCount(), stats.missCount(), stats.loadSuccessCount(),
                    stats.loadFailureCount(), stats.totalLoadTimeNanos(), stats.evictionCount(), stats.evictionBytes(),
                    stats.expirationCount()}).containsOnly(0L);
            assertThat(stats.entryCount()).isEqualTo(cache.size()).isPositive();
            assertThat(stats.usedBytes()).isPositive().isLessThanOrEqualTo(64 * 1024);
            assertThat(stats.capacityBytes()).isEqualTo(64 * 1024);

            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = ((OffHeapCacheImpl<?, ?>) cache).mbeanName();
            assertThat(server.getAttribute(name, "HitCount")).isEqualTo(0L);
            assertThat(server.getAttribute(name, "EvictionCount")).isEqualTo(0L);
            assertThat(server.getAttribute(name, "EntryCount")).isEqualTo(stats.entryCount());
            assertThat(server.getAttribute(name, "UsedBytes")).isEqualTo(stats.usedBytes());
        }
    }
}
