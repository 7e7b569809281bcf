package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * JCache's {@code CacheStatisticsMXBean.getAverageGetTime}: "In a read-through cache, the time taken to load
 * an entry on miss is not included in get time." A read-through {@code get} or {@code getAll} counted the
 * loader's time as get time: one slow load made the average get time of every fast hit look slow.
 *
 * <p>Each check compares the one get's average with the wall time measured around the call less the time the
 * loader itself measured inside it: the time the statistics count lies outside the load, so it cannot exceed
 * that difference. The loader sleeps, so that counting its time could not go unseen.
 */
class TheAverageGetTimeLeavesOutTheLoadersTimeTest extends JCacheTestBase {
    /** Nanoseconds the loaders spent, from their first statement to their last. */
    static final AtomicLong LOADING_NANOS = new AtomicLong();

    /** Loads "v" for every key, each call 30 ms. */
    public static final class SlowLoader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            long start = System.nanoTime();
            sleep();
            LOADING_NANOS.addAndGet(System.nanoTime() - start);
            return "v";
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            long start = System.nanoTime();
            sleep();
            Map<String, String> values = new HashMap<>();
            keys.forEach(key -> values.put(key, "v"));
            LOADING_NANOS.addAndGet(System.nanoTime() - start);
            return values;
        }

        private static void sleep() {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @return a read-through cache whose first get and getAll (the first calls of their code, which may take
     *         far longer than their load) have run, its statistics cleared since
     */
    private Cache<String, String> readThrough(String name) throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(SlowLoader.class));
        Cache<String, String> cache = manager.createCache(name, configuration);
        cache.get("first");
        cache.getAll(Set.of("first", "second", "third"));
        ManagementFactory.getPlatformMBeanServer().invoke(statistics(name), "clear", null, null);
        return cache;
    }

    private ObjectName statistics(String cacheName) throws Exception {
        return new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
    }

    private float attribute(String cacheName, String attribute) throws Exception {
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics(cacheName), attribute))
                .floatValue();
    }

    @Test
    void aReadThroughGetCountsTheTimeOfTheGetButNotOfItsLoad() throws Exception {
        Cache<String, String> cache = readThrough("get-loads");
        LOADING_NANOS.set(0);
        long start = System.nanoTime();
        String value = cache.get("k");
        long wall = System.nanoTime() - start;

        assertThat(value).isEqualTo("v");

        assertThat(attribute("get-loads", "CacheMisses")).isEqualTo(1f);
        assertThat(LOADING_NANOS.get()).isPositive();
        assertThat(attribute("get-loads", "AverageGetTime")).as("microseconds outside the load")
                .isLessThanOrEqualTo((wall - LOADING_NANOS.get()) / 1_000f);
    }

    @Test
    void aReadThroughGetAllCountsTheTimeOfTheGetsButNotOfTheirLoad() throws Exception {
        Cache<String, String> cache = readThrough("get-all-loads");
        cache.put("present", "p");
        LOADING_NANOS.set(0);
        long start = System.nanoTime();
        Map<String, String> values = cache.getAll(Set.of("present", "a", "b"));
        long wall = System.nanoTime() - start;

        assertThat(values).hasSize(3);

        assertThat(attribute("get-all-loads", "CacheGets")).isEqualTo(3f);
        assertThat(LOADING_NANOS.get()).isPositive();
        assertThat(attribute("get-all-loads", "AverageGetTime")).as("microseconds outside the load, per get")
                .isLessThanOrEqualTo((wall - LOADING_NANOS.get()) / 1_000f / 3);
    }
}
