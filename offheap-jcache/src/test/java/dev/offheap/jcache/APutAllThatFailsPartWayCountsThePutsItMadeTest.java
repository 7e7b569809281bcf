package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.ValueTooLargeException;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.cache.Cache;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * A {@code putAll} whose map holds one value over the cache's entry limit stores the other entries and then
 * throws. Those puts were made, but the statistics counted none of them: the count was added after the
 * loop, which the failure left. {@code CachePuts} now says how many entries the call stored.
 */
class APutAllThatFailsPartWayCountsThePutsItMadeTest extends JCacheTestBase {

    private long puts(String cacheName) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, "CachePuts")).longValue();
    }

    @Test
    void thePutsCountedAreTheEntriesStored() throws Exception {
        OffHeapConfiguration<String, byte[]> configuration = small(String.class, byte[].class);
        configuration.setStatisticsEnabled(true);
        Cache<String, byte[]> cache = manager.createCache("partly", configuration);
        Map<String, byte[]> entries = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            entries.put("k" + i, new byte[10]);
        }
        entries.put("too large", new byte[(int) SMALL]);

        assertThatThrownBy(() -> cache.putAll(entries)).isInstanceOf(ValueTooLargeException.class);

        long stored = cache.unwrap(OffHeapCache.class).size();
        assertThat(stored).isEqualTo(200); // every entry but the large one
        assertThat(cache.containsKey("too large")).isFalse();
        assertThat(puts("partly")).isEqualTo(stored);
    }
}
