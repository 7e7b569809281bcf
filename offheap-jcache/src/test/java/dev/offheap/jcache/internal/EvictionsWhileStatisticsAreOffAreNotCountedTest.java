package dev.offheap.jcache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;

import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.management.CacheStatisticsMXBean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The statistics bean counts the evictions made while statistics are enabled, as it counts hits, misses,
 * puts and removals only then: JCache gathers no statistics while they are disabled.
 *
 * <p>It took every eviction of the store since the last {@code clear()}: a cache whose statistics were
 * switched off and on again (or that was created without them) showed, once they were on, every eviction
 * of the time they were off, beside hits and puts of that time that were never counted.
 */
class EvictionsWhileStatisticsAreOffAreNotCountedTest {
    private final OffHeapCachingProvider provider = new OffHeapCachingProvider();
    private final CacheManager manager = provider.getCacheManager();

    @AfterEach
    void closeProvider() {
        provider.close();
    }

    private Cache<Integer, byte[]> cache(String name, boolean statistics) {
        OffHeapConfiguration<Integer, byte[]> configuration = new OffHeapConfiguration<>();
        configuration.setTypes(Integer.class, byte[].class).setStatisticsEnabled(statistics);
        configuration.setCapacityBytes(4L << 20);
        return manager.createCache(name, configuration);
    }

    /** Puts four times the capacity, from {@code firstKey} on: evicts about three quarters of it. */
    private static void fill(Cache<Integer, byte[]> cache, int firstKey) {
        byte[] value = new byte[16 * 1024];
        for (int i = 0; i < 4 * 256; i++) {
            cache.put(firstKey + i, value);
        }
    }

    private static long storeEvictions(Cache<Integer, byte[]> cache) {
        return cache.unwrap(OffHeapCache.class).stats().evictionCount();
    }

    @SuppressWarnings("unchecked")
    private static CacheStatisticsMXBean statisticsOf(Cache<Integer, byte[]> cache) {
        return cache.unwrap(OffHeapJCache.class).statisticsBean();
    }

    @Test
    void evictionsWhileStatisticsWereSwitchedOffAreNotCountedOnceTheyAreOnAgain() {
        Cache<Integer, byte[]> cache = cache("switched", true);
        CacheStatisticsMXBean statistics = statisticsOf(cache);
        fill(cache, 0);
        long whileOn = storeEvictions(cache);
        assertThat(statistics.getCacheEvictions()).isEqualTo(whileOn).isPositive();

        manager.enableStatistics("switched", false);
        fill(cache, 10_000);
        long whileOff = storeEvictions(cache) - whileOn;
        assertThat(whileOff).isPositive();
        manager.enableStatistics("switched", true);

        assertThat(statistics.getCacheEvictions()).as("evictions counted").isEqualTo(whileOn);
        fill(cache, 20_000);
        long whileOnAgain = storeEvictions(cache) - whileOn - whileOff;
        assertThat(statistics.getCacheEvictions()).isEqualTo(whileOn + whileOnAgain);

        statistics.clear();
        assertThat(statistics.getCacheEvictions()).isZero();
        fill(cache, 30_000);
        assertThat(statistics.getCacheEvictions()).isEqualTo(storeEvictions(cache) - whileOn - whileOff - whileOnAgain);
    }

    @Test
    void aCacheCreatedWithoutStatisticsCountsOnlyTheEvictionsAfterTheyAreEnabled() {
        Cache<Integer, byte[]> cache = cache("enabled-later", false);
        CacheStatisticsMXBean statistics = statisticsOf(cache);
        fill(cache, 0);
        long before = storeEvictions(cache);
        assertThat(before).isPositive();

        manager.enableStatistics("enabled-later", true);

        assertThat(statistics.getCacheEvictions()).isZero();
        fill(cache, 10_000);
        assertThat(statistics.getCacheEvictions()).isEqualTo(storeEvictions(cache) - before).isPositive();
    }
}
