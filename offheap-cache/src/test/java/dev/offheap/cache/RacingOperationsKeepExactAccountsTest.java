package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static dev.offheap.cache.RacingWritesNeverShowAForeignOrTornValueTest.problem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads race every kind of call (writes, conditional writes, removals, loads that succeed and fail, reads
 * of every kind, clean-ups, a clock that moves) in caches small enough to evict: once they stop, the
 * statistics agree with the calls made (a hit or a miss per key looked up, a load success or failure per
 * loader call) and with the removal listener (an eviction counted per SIZE removal told, its bytes the
 * entry's; an expiration per EXPIRED one), every version of a value that was stored is either still cached
 * or told removed, exactly once, and the sizes agree with the entries there are.
 */
class RacingOperationsKeepExactAccountsTest {
    private static final int KEYS = 600;

    @ParameterizedTest(name = "{0} capacity={1} segments={2}")
    @Timeout(60)
    @CsvSource({"W_TINY_LFU, 131072, 1", "LRU, 131072, 2", "W_TINY_LFU, 1048576, 2"})
    void statisticsListenerAndSizesAgreeWithTheCallsMade(EvictionPolicy policy, long capacity, int segments)
            throws Exception {
        AtomicLong nanos = new AtomicLong();
        Map<RemovalCause, LongAdder> told = new ConcurrentHashMap<>();
        LongAdder evictedBytes = new LongAdder();
        Map<Long, RemovalCause> toldVersions = new ConcurrentHashMap<>();
        AtomicReference<String> problem = new AtomicReference<>();
        int[] header = new int[1];
        OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(capacity).concurrencyLevel(segments).evictionPolicy(policy)
                .expireAfterWrite(Duration.ofMillis(30)).clock(nanos::get)
                .removalListener((key, value, cause) -> {
                    String wrong = problem(key, value);
                    if (wrong != null) {
                        problem.compareAndSet(null, cause + " told of " + wrong);
                        return;
                    }
                    told.computeIfAbsent(cause, c -> new LongAdder()).increment();
                    if (cause == RemovalCause.SIZE) {
                        evictedBytes.add((header[0] + 8 + value.length + 7) & ~7);
                    }
                    RemovalCause before = toldVersions.put(version(value), cause);
                    if (before != null) {
                        problem.compareAndSet(null, "version " + version(value) + " of key " + key + " told " + before
                                + " and then " + cause);
                    }
                }).build();
        header[0] = ((OffHeapCacheImpl<?, ?>) cache).headerBytes();
        try (cache) {
            Set<Long> stored = ConcurrentHashMap.newKeySet();
            AtomicLong versions = new AtomicLong();
            LongAdder lookups = new LongAdder();
            LongAdder loadsMade = new LongAdder();
            LongAdder loadsFailed = new LongAdder();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                SplittableRandom random = new SplittableRandom(capacity + segments * 13L + t);
                threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    try {
                        for (int i = 0; i < 12_000 && problem.get() == null; i++) {
                            String seen = call(cache, random, versions, stored, lookups, loadsMade, loadsFailed, nanos);
                            if (seen != null) {
                                problem.compareAndSet(null, seen);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join(Duration.ofSeconds(40));
                assertThat(thread.isAlive()).as("a thread still running after 40 s: stuck").isFalse();
            }
            assertThat(failure.get()).isNull();
            assertThat(problem.get()).isNull();
            ((OffHeapCacheImpl<?, ?>) cache).verify();

            CacheStats stats = cache.stats();
            assertThat(stats.hitCount() + stats.missCount()).as("hits and misses").isEqualTo(lookups.sum());
            assertThat(stats.loadSuccessCount()).as("load successes").isEqualTo(loadsMade.sum() - loadsFailed.sum());
            assertThat(stats.loadFailureCount()).as("load failures").isEqualTo(loadsFailed.sum());
            assertThat(stats.evictionCount()).as("evictions; told " + told).isEqualTo(count(told, RemovalCause.SIZE));
            assertThat(stats.evictionBytes()).as("bytes evicted").isEqualTo(evictedBytes.sum());
            assertThat(stats.expirationCount()).as("expirations; told " + told).isEqualTo(count(told, RemovalCause.EXPIRED));

            long bytes = 0;
            long entries = 0;
            for (Iterator<Map.Entry<Long, byte[]>> it = cache.entries(); it.hasNext(); ) {
                Map.Entry<Long, byte[]> entry = it.next();
                assertThat(problem(entry.getKey(), entry.getValue())).isNull();
                assertThat(toldVersions).doesNotContainKey(version(entry.getValue()));
                bytes += (header[0] + 8 + entry.getValue().length + 7) & ~7;
                entries++;
            }
            cache.cleanUp(); // what the iteration skipped as expired leaves
            assertThat(cache.size()).isEqualTo(entries);
            assertThat(cache.weightedSize()).isEqualTo(bytes);

            // every version stored is cached or was told removed once: the rest are told now, EXPLICIT
            long explicitBefore = count(told, RemovalCause.EXPLICIT);
            cache.invalidateAll();
            assertThat(count(told, RemovalCause.EXPLICIT) - explicitBefore).isEqualTo(entries);
            assertThat(problem.get()).isNull();
            assertThat(cache.size()).isZero();
            assertThat(cache.weightedSize()).isZero();
            for (long version : stored) {
                assertThat(toldVersions).as("version %d, stored", version).containsKey(version);
            }
        }
    }

    private static long count(Map<RemovalCause, LongAdder> told, RemovalCause cause) {
        LongAdder adder = told.get(cause);
        return adder == null ? 0 : adder.sum();
    }

    private static long version(byte[] value) {
        return ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
    }

    /** @return one call of a random kind; null, or what was wrong with what it returned */
    private static String call(OffHeapCache<Long, byte[]> cache, SplittableRandom random, AtomicLong versions,
                               Set<Long> stored, LongAdder lookups, LongAdder loadsMade, LongAdder loadsFailed,
                               AtomicLong nanos) {
        long key = random.nextInt(KEYS);
        long version = versions.incrementAndGet();
        byte[] value = RacingWritesNeverShowAForeignOrTornValueTest.value(key, version, random);
        Map<Long, byte[]> map = cache.asMap();
        switch (random.nextInt(24)) {
            case 0, 1, 2 -> {
                cache.put(key, value);
                stored.add(version);
            }
            case 3 -> {
                byte[] present = cache.putIfAbsent(key, value);
                if (present == null) {
                    stored.add(version);
                }
                return problem(key, present);
            }
            case 4 -> {
                byte[] previous = cache.replace(key, value);
                if (previous != null) {
                    stored.add(version);
                }
                return problem(key, previous);
            }
            case 5 -> {
                lookups.increment();
                byte[] old = cache.getIfPresent(key);
                if (old != null && cache.replace(key, old, value)) {
                    stored.add(version);
                }
                return problem(key, old);
            }
            case 6 -> {
                byte[] result = cache.compute(key, (k, old) -> random.nextInt(3) == 0 ? null : old != null && random.nextBoolean() ? old : value);
                if (result == value) {
                    stored.add(version);
                }
                return problem(key, result);
            }
            case 7 -> {
                byte[] result = map.merge(key, value, (old, given) -> random.nextBoolean() ? null : given);
                if (result == value) {
                    stored.add(version);
                }
                return problem(key, result);
            }
            case 8 -> {
                Map<Long, byte[]> some = new LinkedHashMap<>();
                for (int i = 0; i < 3; i++) {
                    long k = random.nextInt(KEYS);
                    long v = versions.incrementAndGet();
                    some.put(k, RacingWritesNeverShowAForeignOrTornValueTest.value(k, v, random));
                }
                cache.putAll(some);
                some.values().forEach(v -> stored.add(version(v)));
            }
            case 9 -> {
                return problem(key, cache.remove(key));
            }
            case 10 -> {
                lookups.increment();
                byte[] old = cache.getIfPresent(key);
                if (old != null) {
                    cache.remove(key, old);
                }
                return problem(key, old);
            }
            case 11 -> cache.invalidate(key);
            case 12 -> {
                lookups.increment();
                try {
                    return problem(key, cache.get(key, k -> {
                        loadsMade.increment();
                        if (random.nextInt(5) == 0) {
                            loadsFailed.increment();
                            throw new IllegalArgumentException("no value for " + k);
                        }
                        return value;
                    }));
                } catch (CacheLoadException e) {
                    return e.getCause() instanceof IllegalArgumentException ? null : "load failed with " + e;
                }
            }
            case 13 -> {
                lookups.increment();
                try {
                    return cache.readOrLoad(key, k -> {
                        loadsMade.increment();
                        return value;
                    }, segment -> problem(key, segment));
                } catch (CacheLoadException e) {
                    // a get's load that this call waited for failed: its callers all get its failure
                    return e.getCause() instanceof IllegalArgumentException ? null : "load failed with " + e;
                }
            }
            case 14, 15 -> {
                lookups.increment();
                return problem(key, cache.getIfPresent(key));
            }
            case 16 -> {
                lookups.increment();
                return cache.read(key, segment -> problem(key, segment));
            }
            case 17 -> {
                List<Long> keys = List.of(key, (key + 1) % KEYS, (key + 2) % KEYS);
                lookups.add(keys.size());
                for (Map.Entry<Long, byte[]> entry : cache.getAllPresent(keys).entrySet()) {
                    String seen = problem(entry.getKey(), entry.getValue());
                    if (seen != null) {
                        return seen;
                    }
                }
            }
            case 18 -> {
                lookups.increment();
                return problem(key, map.get(key));
            }
            case 19 -> {
                cache.containsKey(key);
                return cache.readQuietly(key, segment -> problem(key, segment));
            }
            case 20 -> {
                if (random.nextInt(100) == 0) {
                    cache.cleanUp();
                } else if (random.nextInt(400) == 0) {
                    cache.invalidateAll();
                }
            }
            default -> nanos.addAndGet(random.nextInt(1_000_000));
        }
        return null;
    }
}
