package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** Many threads, mixed operations, then a check of contents, structures and byte accounting. */
class CacheStressTest {
    private static final int THREADS = 6;

    @ParameterizedTest(name = "{0} capacity={1} expiry={2}")
    @CsvSource({"W_TINY_LFU, 67108864, none", "LRU, 67108864, none", "W_TINY_LFU, 262144, none", "LRU, 262144, none",
            "W_TINY_LFU, 67108864, both", "LRU, 262144, access"})
    void mixedOperationsKeepEveryThreadsLastWrite(EvictionPolicy policy, long capacity, String expiry) throws Exception {
        check(policy, capacity, expiry, 300, 40_000);
    }

    /**
     * Values of up to 40 KB, most of them over the size above which a put stages its value in native memory
     * rather than a heap array: the same checks, with evictions, overwrites, removes and computes racing.
     */
    @ParameterizedTest(name = "{0} capacity={1} expiry={2}, large values")
    @CsvSource({"W_TINY_LFU, 268435456, none", "LRU, 4194304, none", "W_TINY_LFU, 4194304, both",
            "W_TINY_LFU, 1048576, none"})
    void largeValuesKeepEveryThreadsLastWrite(EvictionPolicy policy, long capacity, String expiry) throws Exception {
        check(policy, capacity, expiry, 40_000, 3_000);
    }

    private static void check(EvictionPolicy policy, long capacity, String expiry, int maxPadding, int iterations)
            throws Exception {
        boolean roomy = capacity > 1 << 24;
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(capacity).evictionPolicy(policy).concurrencyLevel(4);
        if (!expiry.equals("none")) {
            // long enough that nothing expires during the test: the deadlines are written and read concurrently
            builder.expireAfterAccess(java.time.Duration.ofHours(1));
            if (expiry.equals("both")) {
                builder.expireAfterWrite(java.time.Duration.ofHours(2));
            }
        }
        try (OffHeapCache<String, String> cache = builder.build()) {
            List<Map<String, String>> expected = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Map<String, String> mine = new HashMap<>();
                expected.add(mine);
                int id = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        run(cache, id, mine, roomy, maxPadding, iterations);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            start.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(failure.get()).isNull();
            ((OffHeapCacheImpl<?, ?>) cache).verify();
            long bytes = 0;
            int header = ((OffHeapCacheImpl<?, ?>) cache).headerBytes();
            Map<String, String> contents = new HashMap<>();
            for (Iterator<Map.Entry<String, String>> it = cache.entries(); it.hasNext(); ) {
                Map.Entry<String, String> entry = it.next();
                contents.put(entry.getKey(), entry.getValue());
                bytes += (header + entry.getKey().length() + entry.getValue().length() + 7) & ~7;
            }
            assertThat(cache.weightedSize()).isEqualTo(bytes);
            assertThat(cache.size()).isEqualTo(contents.size());
            assertThat(((OffHeapCacheImpl<?, ?>) cache).usedBytes()).isLessThanOrEqualTo(capacity);
            for (Map<String, String> mine : expected) {
                for (Map.Entry<String, String> entry : mine.entrySet()) {
                    String actual = contents.get(entry.getKey());
                    if (roomy || actual != null) {
                        assertThat(actual).as("key %s", entry.getKey()).isEqualTo(entry.getValue());
                    }
                }
            }
            if (roomy) {
                long owned = expected.stream().mapToLong(Map::size).sum();
                assertThat(contents.keySet().stream().filter(k -> k.startsWith("t")).count()).isEqualTo(owned);
            }
        }
    }

    /** Each thread owns keys "t<id>-<n>" (so their final values are known) and shares keys "s<n>". */
    private static void run(OffHeapCache<String, String> cache, int id, Map<String, String> mine, boolean roomy,
            int maxPadding, int iterations) {
        SplittableRandom random = new SplittableRandom(id * 7919L);
        for (int i = 0; i < iterations; i++) {
            String own = "t" + id + "-" + random.nextInt(500);
            String shared = "s" + random.nextInt(200);
            String value = "v" + i + "x".repeat(random.nextInt(maxPadding));
            switch (random.nextInt(10)) {
                case 0, 1 -> {
                    cache.put(own, value);
                    mine.put(own, value);
                }
                case 2 -> {
                    if (cache.remove(own) != null || mine.containsKey(own)) {
                        mine.remove(own);
                    }
                }
                case 3 -> {
                    String result = cache.compute(own, (k, v) -> v == null ? value : v.substring(0, Math.min(v.length(), 5)) + id);
                    mine.put(own, result);
                }
                case 4 -> cache.put(shared, value);
                case 5 -> cache.compute(shared, (k, v) -> v == null ? "new" : null);
                case 6 -> {
                    String got = cache.getIfPresent(own);
                    if (got != null) {
                        assertThat(got).isEqualTo(mine.get(own));
                    } else if (roomy) {
                        assertThat(mine).doesNotContainKey(own);
                    }
                }
                case 7 -> {
                    Integer length = cache.read(own, segment -> (int) segment.byteSize());
                    if (length != null) {
                        assertThat(length).isEqualTo(mine.get(own).length());
                    }
                }
                default -> {
                    String got = cache.getIfPresent(shared);
                    if (got != null) {
                        assertThat(got).matches("new|v\\d+x*");
                    }
                }
            }
        }
    }

    @Test
    void closeWhileOtherThreadsUseTheCacheOnlyMakesThemThrow() throws Exception {
        for (int round = 0; round < 5; round++) {
            OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                    .capacity(8 << 20).build();
            for (long k = 0; k < 1000; k++) {
                cache.put(k, new byte[100 + (int) k]);
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger operations = new AtomicInteger();
            Map<Class<?>, Integer> unexpected = new ConcurrentHashMap<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = t + round * 10L;
                threads.add(Thread.ofPlatform().start(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    while (!stop.get()) {
                        long key = random.nextLong(1000);
                        try {
                            switch (random.nextInt(4)) {
                                case 0 -> cache.put(key, new byte[100 + (int) key]);
                                case 1 -> cache.read(key, s -> s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, s.byteSize() - 1));
                                case 2 -> cache.remove(key);
                                default -> cache.getIfPresent(key);
                            }
                            operations.incrementAndGet();
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().contains("closed")) {
                                unexpected.merge(e.getClass(), 1, Integer::sum);
                            }
                        } catch (Throwable e) {
                            unexpected.merge(e.getClass(), 1, Integer::sum);
                        }
                    }
                }));
            }
            while (operations.get() < 2000) {
                Thread.onSpinWait();
            }
            cache.close();
            Thread.sleep(20);
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(unexpected).isEmpty();
            assertThat(cache.isClosed()).isTrue();
        }
    }

    /**
     * Writers overwrite a few keys with values of one repeated byte, of sizes that mostly keep the block (so
     * the value is rewritten in place) and sometimes change it; readers, copying and zero-copy, must only
     * ever see one byte value throughout, of a length some writer wrote.
     */
    @ParameterizedTest
    @CsvSource({"W_TINY_LFU", "LRU"})
    void overwritesNeverShowATornValue(EvictionPolicy policy) throws Exception {
        try (OffHeapCache<Long, byte[]> cache = oneSegment(policy, 8 << 20)) {
            race(2, 2, 200_000, random -> {
                long key = random.nextLong(4);
                // 1000..1007 bytes keep one block size; 1100 needs another
                int length = random.nextInt(8) == 0 ? 1100 : 1000 + random.nextInt(8);
                byte[] value = new byte[length];
                java.util.Arrays.fill(value, (byte) random.nextInt(256));
                cache.put(key, value);
            }, random -> {
                long key = random.nextLong(4);
                byte[] got = cache.getIfPresent(key);
                String problem = got == null ? null : uniform(got.length, i -> got[i]);
                return problem != null ? problem : cache.read(key, s -> uniform((int) s.byteSize(),
                        i -> s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)));
            });
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    /**
     * Readers that read in place, and so replay their recorded reads into the policy under its own lock
     * while other readers go on, race a writer whose puts and removes evict, promote and unlink entries of
     * the same segment: every value read is its key's, and the queues, chains and byte counts agree
     * afterwards.
     */
    @ParameterizedTest
    @CsvSource({"W_TINY_LFU", "LRU"})
    void replaysOfReadsRaceEvictingWriters(EvictionPolicy policy) throws Exception {
        try (OffHeapCache<Long, byte[]> cache = oneSegment(policy, 256 << 10)) {
            race(1, 2, 300_000, random -> {
                long key = skewedKey(random);
                if (random.nextInt(10) == 0) {
                    cache.invalidate(key);
                } else {
                    byte[] value = new byte[100 + (int) (key % 50)];
                    java.util.Arrays.fill(value, (byte) key);
                    cache.put(key, value);
                }
            }, random -> {
                long key = skewedKey(random);
                return cache.read(key, s -> {
                    if (s.byteSize() != 100 + key % 50) {
                        return "key " + key + ": " + s.byteSize() + " bytes";
                    }
                    for (long i = 0; i < s.byteSize(); i++) {
                        if (s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != (byte) key) {
                            return "key " + key + ": byte " + i + " is another key's";
                        }
                    }
                    return null;
                });
            });
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    /** @return a cache of one segment, so that every thread's operations meet in it */
    private static OffHeapCache<Long, byte[]> oneSegment(EvictionPolicy policy, long capacity) {
        return OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays()).capacity(capacity).evictionPolicy(policy)
                .concurrencyLevel(1).build();
    }

    /** @return a key of a skewed stream: a few hot keys, which readers' replays promote and mark, and many cold */
    private static long skewedKey(SplittableRandom random) {
        return random.nextInt(4) == 0 ? random.nextLong(4000) : random.nextLong(64);
    }

    /**
     * Runs writer and reader threads (each with its own seeded random) until the readers have made
     * {@code readsWanted} reads, one reports a problem, or 60 s pass; then asserts that no reader saw a
     * problem, that all threads stopped, and that the reads were made. The waits are bounded and the
     * threads are daemons, so a structure a race broke (a queue walked forever) fails the test instead of
     * hanging the build.
     *
     * @param read one read; returns null, or what was wrong with what it saw
     */
    private static void race(int writers, int readers, int readsWanted, java.util.function.Consumer<SplittableRandom> write,
                             java.util.function.Function<SplittableRandom, String> read) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> problem = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < writers + readers; t++) {
            boolean writer = t < writers;
            long seed = t;
            threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (!stop.get()) {
                    if (writer) {
                        write.accept(random);
                        continue;
                    }
                    String seen = read.apply(random);
                    if (seen != null) {
                        problem.compareAndSet(null, seen);
                    }
                    reads.incrementAndGet();
                }
            }));
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (reads.get() < readsWanted && problem.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(java.time.Duration.ofSeconds(10));
            assertThat(thread.isAlive()).as("a thread still running 10 s after the stop: stuck").isFalse();
        }
        assertThat(problem.get()).isNull();
        assertThat(reads.get()).as("reads done in 60 s").isGreaterThanOrEqualTo(readsWanted);
    }

    /** @return null if the bytes are all equal and the length is one a writer uses, else what is wrong */
    private static String uniform(int length, java.util.function.IntUnaryOperator byteAt) {
        if (length != 1100 && (length < 1000 || length > 1007)) {
            return "length " + length;
        }
        int first = byteAt.applyAsInt(0);
        for (int i = 1; i < length; i++) {
            if (byteAt.applyAsInt(i) != first) {
                return "byte " + i + " of " + length + " differs from byte 0";
            }
        }
        return null;
    }
}
