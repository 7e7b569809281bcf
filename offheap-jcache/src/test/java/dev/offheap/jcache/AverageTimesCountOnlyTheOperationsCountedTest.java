package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.expiry.Duration;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The average get and put times divide the time of the gets and puts the statistics count by their
 * number: an operation that counts no get or put adds no time either.
 *
 * <p>A {@code getAll} of no keys counted no get but added its time to the gets' total, and a
 * {@code getAndPut} or {@code putIfAbsent} whose entry expired at its creation (so stored nothing and
 * counted no put) added its time to the puts' total: the averages grew with calls that were not counted
 * in them, without bound (a program that often looks up an empty batch of keys read an average get time
 * of milliseconds).
 *
 * <p>Each check compares the average with the wall time of the one counted call, measured around it: the
 * statistics time a part of that call, so the average of that one call cannot exceed it.
 */
class AverageTimesCountOnlyTheOperationsCountedTest extends JCacheTestBase {

    /** Writes instantly, except key "slow", for 300 ms. */
    public static final class SlowWriter extends WriteOnlyWriter {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {
            if (entry.getKey().equals("slow")) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private float attribute(String cacheName, String attribute) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, attribute)).floatValue();
    }

    @Test
    void getAllOfNoKeysAddsNothingToTheAverageGetTime() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        Cache<String, String> cache = manager.createCache("empty-batches", configuration);
        cache.put("k", "v");
        for (int i = 0; i < 200_000; i++) {
            cache.getAll(Set.of());
        }
        assertThat(attribute("empty-batches", "CacheGets")).isZero();

        long start = System.nanoTime();
        cache.get("k");
        float wallMicros = (System.nanoTime() - start) / 1_000f;

        assertThat(attribute("empty-batches", "CacheGets")).isEqualTo(1f);
        assertThat(attribute("empty-batches", "AverageGetTime")).as("the one get's average, in microseconds")
                .isLessThanOrEqualTo(wallMicros * 1.001f);
    }

    /** Puts "slow" (300 ms to write through) so that it expires at its creation, then "fast" for an hour. */
    private void putExpiredAtCreationThenOne(String cacheName, BiConsumer<Cache<String, String>, String> put)
            throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(PerThreadCreationExpiry.class));
        configuration.setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(SlowWriter.class));
        Cache<String, String> cache = manager.createCache(cacheName, configuration);
        try {
            PerThreadCreationExpiry.set(Duration.ZERO);
            put.accept(cache, "slow"); // written through in 300 ms, expired at its creation: nothing stored
            assertThat(cache.containsKey("slow")).isFalse();
            assertThat(attribute(cacheName, "CachePuts")).isZero();

            PerThreadCreationExpiry.set(new Duration(TimeUnit.HOURS, 1));
            long start = System.nanoTime();
            put.accept(cache, "fast");
            float wallMicros = (System.nanoTime() - start) / 1_000f;

            assertThat(attribute(cacheName, "CachePuts")).isEqualTo(1f);
            assertThat(attribute(cacheName, "AveragePutTime"))
                    .as("the one put's average, in microseconds").isLessThanOrEqualTo(wallMicros * 1.001f);
        } finally {
            PerThreadCreationExpiry.set(Duration.ETERNAL);
        }
    }

    @Test
    void aGetAndPutThatStoredNothingAddsNothingToTheAveragePutTime() throws Exception {
        putExpiredAtCreationThenOne("get-and-put", (cache, key) -> cache.getAndPut(key, "v"));
    }

    @Test
    void aPutIfAbsentThatStoredNothingAddsNothingToTheAveragePutTime() throws Exception {
        putExpiredAtCreationThenOne("put-if-absent", (cache, key) -> cache.putIfAbsent(key, "v"));
    }
}
