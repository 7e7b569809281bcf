package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static dev.offheap.cache.RacingWritesNeverShowAForeignOrTornValueTest.problem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads load a few keys at once through every loading call (get with the builder's loader and with a
 * function, getAll, readOrLoad) while others invalidate and put them, with loaders that fail one time in
 * four: no key is ever loaded by two loaders at once, every caller gets a value of its key or a
 * {@link CacheLoadException} whose cause is what a loader threw, and the statistics count each loader call
 * once, as a success or as a failure.
 */
class ContendedLoadsRunOncePerKeyTest {
    private static final int KEYS = 6;

    @ParameterizedTest(name = "capacity={0}")
    @Timeout(60)
    @CsvSource({"1048576", "131072"})
    void oneLoadPerKeyAtATimeAndEveryCallerGetsItsValueOrItsFailure(long capacity) throws Exception {
        AtomicIntegerArray loading = new AtomicIntegerArray(KEYS);
        AtomicReference<String> problem = new AtomicReference<>();
        Set<Throwable> thrown = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
        AtomicLong versions = new AtomicLong();
        LongAdder calls = new LongAdder();
        LongAdder failedCalls = new LongAdder();
        AtomicInteger failEvery = new AtomicInteger();
        Loader load = key -> {
            if (loading.incrementAndGet((int) key) > 1) {
                problem.compareAndSet(null, "key " + key + " loaded by two loaders at once");
            }
            try {
                for (int i = 0; i < 500; i++) {
                    Thread.onSpinWait(); // long enough for other callers of the key to come and wait
                }
                if (failEvery.incrementAndGet() % 4 == 0) {
                    IllegalArgumentException failure = new IllegalArgumentException("no value for " + key);
                    thrown.add(failure);
                    throw failure;
                }
                return RacingWritesNeverShowAForeignOrTornValueTest.value(key, versions.incrementAndGet(),
                        new SplittableRandom(key));
            } finally {
                loading.decrementAndGet((int) key);
            }
        };
        CacheLoader<Long, byte[]> builderLoader = new CacheLoader<>() {
            @Override
            public byte[] load(Long key) {
                return counted(() -> load.apply(key));
            }

            @Override
            public Map<Long, byte[]> loadAll(Set<? extends Long> keys) {
                return counted(() -> {
                    Map<Long, byte[]> values = new HashMap<>();
                    for (Long key : keys) {
                        values.put(key, load.apply(key));
                    }
                    return values;
                });
            }

            private <T> T counted(java.util.function.Supplier<T> call) {
                calls.increment();
                try {
                    return call.get();
                } catch (RuntimeException e) {
                    failedCalls.increment();
                    throw e;
                }
            }
        };
        OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(capacity).concurrencyLevel(2).loader(builderLoader).build();
        try (cache) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                SplittableRandom random = new SplittableRandom(capacity + t);
                boolean changer = t == 0;
                threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    try {
                        for (int i = 0; i < 6_000 && problem.get() == null; i++) {
                            long key = random.nextInt(KEYS);
                            String seen = changer ? change(cache, random, key, versions) : call(cache, random, key,
                                    builderLoader, thrown);
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
            CacheStats stats = cache.stats();
            assertThat(stats.loadSuccessCount() + stats.loadFailureCount()).as("loader calls").isEqualTo(calls.sum());
            assertThat(stats.loadFailureCount()).as("failed loader calls").isEqualTo(failedCalls.sum());
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    @FunctionalInterface
    private interface Loader {
        byte[] apply(long key);
    }

    private static String change(OffHeapCache<Long, byte[]> cache, SplittableRandom random, long key, AtomicLong versions) {
        switch (random.nextInt(8)) {
            case 0 -> cache.put(key, RacingWritesNeverShowAForeignOrTornValueTest.value(key, versions.incrementAndGet(), random));
            case 1 -> {
                if (random.nextInt(20) == 0) {
                    cache.invalidateAll();
                }
            }
            default -> cache.invalidate(key);
        }
        return null;
    }

    /** @return one loading call; null, or what was wrong with what it gave */
    private static String call(OffHeapCache<Long, byte[]> cache, SplittableRandom random, long key,
                               CacheLoader<Long, byte[]> loader, Set<Throwable> thrown) {
        try {
            switch (random.nextInt(4)) {
                case 0 -> {
                    return problem(key, cache.get(key));
                }
                case 1 -> {
                    return problem(key, cache.get(key, k -> {
                        try {
                            return loader.load(k);
                        } catch (Exception e) {
                            throw (RuntimeException) e;
                        }
                    }));
                }
                case 2 -> {
                    List<Long> keys = List.of(key, (key + 1) % KEYS, (key + 3) % KEYS);
                    Map<Long, byte[]> all = cache.getAll(keys);
                    if (!all.keySet().equals(Set.copyOf(keys))) {
                        return "getAll of " + keys + " gave " + all.keySet();
                    }
                    for (Map.Entry<Long, byte[]> entry : all.entrySet()) {
                        String seen = problem(entry.getKey(), entry.getValue());
                        if (seen != null) {
                            return seen;
                        }
                    }
                    return null;
                }
                default -> {
                    return cache.readOrLoad(key, k -> {
                        try {
                            return loader.load(k);
                        } catch (Exception e) {
                            throw (RuntimeException) e;
                        }
                    }, segment -> problem(key, segment));
                }
            }
        } catch (CacheLoadException e) {
            return thrown.contains(e.getCause()) ? null : "a load failed with " + e + ", caused by no loader's failure";
        }
    }
}
