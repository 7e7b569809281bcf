package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads increment a few shared counters through every atomic update there is (compute, the map view's
 * merge and computeIfPresent, and putIfAbsent with replace(key, old, new) in a retry loop), with counters
 * whose value changes size as it counts, so that an update sometimes rewrites the entry in place and
 * sometimes moves it: as with a ConcurrentHashMap, each counter ends at exactly the number of increments
 * made, and the removal listener hears one REPLACED per increment but each counter's first.
 */
class RacingAtomicUpdatesLoseNoIncrementTest {
    private static final int THREADS = 4;
    private static final int INCREMENTS = 4_000;
    private static final int COUNTERS = 3;

    @ParameterizedTest(name = "{0}, expireAfterAccess={1}")
    @Timeout(60)
    @CsvSource({"W_TINY_LFU, false", "LRU, false", "W_TINY_LFU, true"})
    void everyIncrementCountsOnceWhateverTheWayItIsMade(EvictionPolicy policy, boolean expiring) throws Exception {
        Map<RemovalCause, LongAdder> told = new ConcurrentHashMap<>();
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).evictionPolicy(policy)
                .removalListener((key, value, cause) -> told.computeIfAbsent(cause, c -> new LongAdder()).increment());
        if (expiring) {
            builder.expireAfterAccess(Duration.ofHours(1)).expireAfterWrite(Duration.ofHours(2));
        }
        try (OffHeapCache<String, String> cache = builder.build()) {
            Map<String, String> map = cache.asMap();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                SplittableRandom random = new SplittableRandom(t);
                threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < INCREMENTS; i++) {
                            String key = "counter" + random.nextInt(COUNTERS);
                            switch (random.nextInt(4)) {
                                case 0 -> cache.compute(key, (k, old) -> encode(old == null ? 1 : decode(old) + 1));
                                case 1 -> map.merge(key, encode(1), (old, one) -> encode(decode(old) + decode(one)));
                                case 2 -> {
                                    if (map.computeIfPresent(key, (k, old) -> encode(decode(old) + 1)) == null) {
                                        incrementBySwapping(cache, key);
                                    }
                                }
                                default -> incrementBySwapping(cache, key);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join(Duration.ofSeconds(30));
                assertThat(thread.isAlive()).as("a thread still running after 30 s: stuck").isFalse();
            }
            assertThat(failure.get()).isNull();
            long total = 0;
            for (int c = 0; c < COUNTERS; c++) {
                String value = cache.getIfPresent("counter" + c);
                assertThat(value).as("counter" + c).isNotNull();
                total += decode(value);
            }
            assertThat(total).isEqualTo((long) THREADS * INCREMENTS);
            assertThat(told.keySet()).containsOnly(RemovalCause.REPLACED);
            assertThat(told.get(RemovalCause.REPLACED).sum()).isEqualTo((long) THREADS * INCREMENTS - COUNTERS);
            assertThat(cache.size()).isEqualTo(COUNTERS);
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    /** putIfAbsent for the first increment, replace(key, old, new) for the others, until one succeeds. */
    private static void incrementBySwapping(OffHeapCache<String, String> cache, String key) {
        while (true) {
            String old = cache.getIfPresent(key);
            if (old == null ? cache.putIfAbsent(key, encode(1)) == null : cache.replace(key, old, encode(decode(old) + 1))) {
                return;
            }
        }
    }

    /** A count, padded so that its length (and sometimes its entry's block size) changes as it counts. */
    private static String encode(long count) {
        return count + ":" + "#".repeat((int) (count % 5) * 7);
    }

    private static long decode(String value) {
        return Long.parseLong(value.substring(0, value.indexOf(':')));
    }
}
