package dev.offheap.jcache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;

import javax.cache.Cache;
import javax.cache.management.CacheStatisticsMXBean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The statistics bean's eviction count, read while or after its cache closes (a JMX client's read that
 * began before the close unregistered the bean), is the count the cache had, never 0 or negative.
 *
 * <p>The count is the off-heap store's evictions less those at the last statistics {@code clear()}. Once
 * the store was closed its statistics threw, and the bean took 0 for the store's count: it read 0 where
 * there had been evictions, and a negative number where the statistics had been cleared after some.
 */
class TheEvictionCountReadAsTheCacheClosesKeepsItsValueTest {
    private final OffHeapCachingProvider provider = new OffHeapCachingProvider();

    @AfterEach
    void closeProvider() {
        provider.close();
    }

    /** @return a statistics-enabled cache of 4 MiB into which four times that was put */
    private Cache<Integer, byte[]> evictingCache(String name) {
        OffHeapConfiguration<Integer, byte[]> configuration = new OffHeapConfiguration<>();
        configuration.setTypes(Integer.class, byte[].class).setStatisticsEnabled(true);
        configuration.setCapacityBytes(4L << 20);
        Cache<Integer, byte[]> cache = provider.getCacheManager().createCache(name, configuration);
        fill(cache, 0);
        return cache;
    }

    private static void fill(Cache<Integer, byte[]> cache, int firstKey) {
        byte[] value = new byte[16 * 1024];
        for (int i = 0; i < 4 * 256; i++) {
            cache.put(firstKey + i, value);
        }
    }

    @SuppressWarnings("unchecked")
    private static CacheStatisticsMXBean statisticsOf(Cache<Integer, byte[]> cache) {
        return cache.unwrap(OffHeapJCache.class).statisticsBean();
    }

    @Test
    void theEvictionCountAfterCloseIsTheOneBeforeIt() {
        Cache<Integer, byte[]> cache = evictingCache("evicting");
        CacheStatisticsMXBean statistics = statisticsOf(cache);
        long before = statistics.getCacheEvictions();
        assertThat(before).as("evictions before the close").isPositive();

        cache.close();

        assertThat(statistics.getCacheEvictions()).isEqualTo(before); // before: 0
    }

    @Test
    void theEvictionCountAfterCloseIsNotNegativeWhereTheStatisticsWereCleared() {
        Cache<Integer, byte[]> cache = evictingCache("cleared");
        CacheStatisticsMXBean statistics = statisticsOf(cache);
        statistics.clear();
        fill(cache, 10_000); // evicts as many again
        long sinceClear = statistics.getCacheEvictions();
        assertThat(sinceClear).as("evictions since the clear").isPositive();

        cache.close();

        assertThat(statistics.getCacheEvictions()).isEqualTo(sinceClear); // before: minus the count at the clear
    }
}
