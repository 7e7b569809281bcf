package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Races between loads, writes, readers, clean-ups and close, found by a concurrency review: a load that
 * began before a put or an invalidate stored its older value over it; a loading get inside a reader
 * waited for another thread's load, whose write waited for the reader's lock; a reader with an older
 * clock reading moved an access deadline before the segment's bound, and clean-up skipped the entry.
 * The stress tests beside them check accounting, the removal listener, close and optimistic reads.
 */
class CacheConcurrencyTest {

    private static Thread daemon(Runnable body, AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().daemon(true).start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not reached in 10 s");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------ 1. load vs put / invalidate

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"put", "invalidate", "putIfAbsent", "compute", "invalidateAll"})
    @Timeout(30)
    void aLoadThatBeganBeforeAWriteOrRemovalOfItsKeyDoesNotStoreOverIt(String change) throws Exception {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            CountDownLatch loading = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<String> loaderGot = new AtomicReference<>();
            Thread loader = daemon(() -> loaderGot.set(cache.get("k", k -> {
                loading.countDown();
                await(release);
                return "read-from-the-source-before-the-change";
            })), failure);
            await(loading);
            String expected = switch (change) {
                case "put" -> {
                    cache.put("k", "newer");
                    yield "newer";
                }
                case "putIfAbsent" -> {
                    cache.putIfAbsent("k", "newer");
                    yield "newer";
                }
                case "compute" -> {
                    cache.compute("k", (k, v) -> "newer");
                    yield "newer";
                }
                case "invalidate" -> {
                    cache.invalidate("k"); // the source changed: the next get should load it anew
                    yield null;
                }
                default -> {
                    cache.invalidateAll();
                    yield null;
                }
            };
            release.countDown();
            loader.join(10_000);
            assertThat(loader.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            assertThat(loaderGot.get()).as("the load's caller gets what it loaded")
                    .isEqualTo("read-from-the-source-before-the-change");
            assertThat(cache.getIfPresent("k")).as("the key after the " + change + " and the load").isEqualTo(expected);
        }
    }

    // ------------------------------------------------------------------ 2. get(key, loader) inside read()

    @Test
    @Timeout(30)
    void aLoadingGetInsideAReaderNeverWaitsForever() throws Exception {
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).build();
        cache.put("a", "x");
        CountDownLatch loadingB = new CountDownLatch(1);
        CountDownLatch insideRead = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Object> readResult = new AtomicReference<>();
        daemon(() -> cache.get("b", k -> {
            loadingB.countDown();
            await(insideRead);
            return "vb";
        }), failure);
        await(loadingB);
        Thread reader = daemon(() -> readResult.set(cache.read("a", segment -> {
            insideRead.countDown();
            try {
                return cache.get("b", k -> "vb-2");
            } catch (IllegalStateException refused) {
                return refused; // a refusal is fine; waiting forever is not
            }
        })), failure);
        reader.join(5_000);
        assertThat(reader.isAlive()).as("read() whose function calls get(key, loader) still blocked after 5 s"
                + " (the loading thread waits for the reader's read lock to store its value)").isFalse();
        assertThat(readResult.get()).as("a load inside a reader is refused, as a write is")
                .isInstanceOf(IllegalStateException.class);
        cache.close();
    }

    // ------------------------------------------------------------------ 3. stale clock of an access refresh

    @Test
    @Timeout(30)
    void aReadWithAnOlderClockNeverMovesAnAccessDeadlineBackUnderTheSegmentsBound() throws Exception {
        AtomicLong nanos = new AtomicLong();
        AtomicReference<Thread> slow = new AtomicReference<>();
        CountDownLatch clockRead = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        long ms = 1_000_000L;
        List<RemovalCause> removals = new java.util.concurrent.CopyOnWriteArrayList<>();
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).expireAfterAccess(Duration.ofMillis(1000))
                .removalListener((k, v, cause) -> removals.add(cause))
                .clock(() -> {
                    long now = nanos.get();
                    if (Thread.currentThread() == slow.get()) {
                        slow.set(null);
                        clockRead.countDown(); // a reader read the clock, then is descheduled for a while
                        await(resume);
                    }
                    return now;
                }).build();
        try (cache) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<String> got = new AtomicReference<>();
            CountDownLatch go = new CountDownLatch(1);
            Thread reader = daemon(() -> {
                await(go);
                got.set(cache.getIfPresent("k"));
            }, failure);
            slow.set(reader);
            go.countDown();
            await(clockRead);              // the reader's clock says 0 ms
            nanos.set(500 * ms);
            cache.put("k", "v");          // written at 500 ms: deadline 1500 ms
            resume.countDown();
            reader.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(got.get()).isEqualTo("v");
            // the read's clock said 0 ms: it must not move the deadline the write at 500 ms gave (1500 ms)
            // back to 1000 ms, under the segment's bound, where clean-up at 1200 ms would have skipped it
            nanos.set(1200 * ms);
            assertThat(cache.containsKey("k")).as("live at 1200 ms: an access never shortens a life").isTrue();
            cache.cleanUp();
            assertThat(cache.size()).isEqualTo(1);
            nanos.set(1600 * ms);
            cache.cleanUp();
            assertThat(cache.size()).as("entries left after cleanUp() at 1600 ms").isZero();
            assertThat(removals).containsExactly(RemovalCause.EXPIRED);
        }
    }

    // ------------------------------------------------------------------ 4. listener / accounting stress

    @Test
    @Timeout(120)
    void everyVersionIsRemovedOnceOrStillThere() throws Exception {
        for (String mode : new String[]{"W_TINY_LFU", "LRU"}) {
            for (int round = 0; round < 2; round++) {
                accountingRound(EvictionPolicy.valueOf(mode), round);
            }
        }
    }

    private static void accountingRound(EvictionPolicy policy, int round) throws Exception {
        AtomicLong nanos = new AtomicLong();
        Map<RemovalCause, LongAdder> events = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> perValue = new ConcurrentHashMap<>();
        LongAdder created = new LongAdder();
        AtomicReference<String> problem = new AtomicReference<>();
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(256 << 10).concurrencyLevel(2).evictionPolicy(policy)
                .expireAfterWrite(Duration.ofMillis(50)).expireAfterAccess(Duration.ofMillis(30))
                .clock(nanos::get)
                .removalListener((k, v, cause) -> {
                    events.computeIfAbsent(cause, c -> new LongAdder()).increment();
                    if (!v.startsWith(k + "=")) {
                        problem.compareAndSet(null, "listener got value " + v + " for key " + k);
                    }
                    if (perValue.computeIfAbsent(v, x -> new AtomicInteger()).incrementAndGet() > 1) {
                        problem.compareAndSet(null, "version " + v + " removed twice");
                    }
                }).build();
        try (cache) {
            AtomicLong versions = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = round * 100L + t;
                threads.add(daemon(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    while (!stop.get()) {
                        String key = "k" + random.nextInt(3000);
                        String value = key + "=" + versions.incrementAndGet() + "x".repeat(random.nextInt(8) == 0 ? 300 : random.nextInt(3));
                        switch (random.nextInt(14)) {
                            case 0, 1, 2 -> {
                                cache.put(key, value);
                                created.increment();
                            }
                            case 3 -> {
                                if (cache.putIfAbsent(key, value) == null) {
                                    created.increment();
                                }
                            }
                            case 4 -> {
                                if (cache.replace(key, value) != null) {
                                    created.increment();
                                }
                            }
                            case 5 -> {
                                if (cache.compute(key, (k, v) -> random.nextBoolean() ? null : value) != null) {
                                    created.increment();
                                }
                            }
                            case 6 -> cache.invalidate(key);
                            case 7 -> cache.remove(key);
                            // not a loading get: a load that a write supersedes returns its value unstored, which
                            // the count of versions created cannot see (CacheLoadingTest covers loads racing writes)
                            case 8 -> cache.getIfPresent(key);
                            case 9 -> {
                                if (random.nextInt(50) == 0) {
                                    cache.cleanUp();
                                }
                            }
                            case 10 -> {
                                if (random.nextInt(500) == 0) {
                                    cache.invalidateAll();
                                }
                            }
                            case 11 -> nanos.addAndGet(random.nextInt(200_000));
                            case 12 -> {
                                Integer size = cache.read(key, s -> (int) s.byteSize());
                                if (size != null && size < key.length() + 1) {
                                    problem.compareAndSet(null, "read of " + key + " gave " + size + " bytes");
                                }
                            }
                            default -> {
                                String got = cache.getIfPresent(key);
                                if (got != null && !got.startsWith(key + "=")) {
                                    problem.compareAndSet(null, "get " + key + " gave " + got);
                                }
                            }
                        }
                    }
                }, failure));
            }
            Thread.sleep(1_500);
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(10_000);
                assertThat(thread.isAlive()).as("stuck thread").isFalse();
            }
            assertThat(failure.get()).isNull();
            assertThat(problem.get()).isNull();
            ((OffHeapCacheImpl<?, ?>) cache).verify();
            long removed = events.values().stream().mapToLong(LongAdder::sum).sum();
            assertThat(created.sum()).as("versions created == still cached + removal events; events " + events)
                    .isEqualTo(cache.size() + removed);
            CacheStats stats = cache.stats();
            assertThat(stats.evictionCount()).isEqualTo(sum(events, RemovalCause.SIZE));
            assertThat(stats.expirationCount()).isEqualTo(sum(events, RemovalCause.EXPIRED));
            long bytes = 0;
            int entries = 0;
            int header = ((OffHeapCacheImpl<?, ?>) cache).headerBytes();
            nanos.set(0); // nothing may look expired to the iterator
            Set<String> seen = new HashSet<>();
            for (Iterator<String> it = cache.keys(); it.hasNext(); ) {
                assertThat(seen.add(it.next())).isTrue();
            }
        }
    }

    private static long sum(Map<RemovalCause, LongAdder> events, RemovalCause cause) {
        LongAdder adder = events.get(cause);
        return adder == null ? 0 : adder.sum();
    }

    // ------------------------------------------------------------------ 5. close racing everything

    @Test
    @Timeout(120)
    void closeRacingEveryKindOfCallOnlyMakesThemThrowClosed() throws Exception {
        for (int round = 0; round < 15; round++) {
            closeRound(round);
        }
    }

    private static void closeRound(int round) throws Exception {
        AtomicLong nanos = new AtomicLong();
        OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(2 << 20).concurrencyLevel(4).expireAfterWrite(Duration.ofMillis(20)).clock(nanos::get)
                .removalListener((k, v, c) -> { })
                .loader(new CacheLoader<>() {
                    @Override
                    public byte[] load(Long key) {
                        return new byte[100];
                    }
                }).build();
        for (long k = 0; k < 2000; k++) {
            cache.put(k, new byte[100 + (int) (k % 300)]);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger operations = new AtomicInteger();
        Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            long seed = t + round * 10L;
            threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (!stop.get()) {
                    long key = random.nextLong(4000);
                    try {
                        switch (random.nextInt(16)) {
                            case 0 -> cache.put(key, new byte[100 + (int) key % 500]);
                            case 1 -> cache.read(key, s -> s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, s.byteSize() - 1));
                            case 2 -> cache.remove(key);
                            case 3 -> {
                                for (Iterator<Map.Entry<Long, byte[]>> it = cache.entries(); it.hasNext(); ) {
                                    it.next();
                                    if (random.nextInt(20) == 0) {
                                        it.remove();
                                    }
                                }
                            }
                            case 4 -> cache.cleanUp();
                            case 5 -> cache.get(key, k -> new byte[200]);
                            case 6 -> cache.getAll(List.of(key, key + 1, key + 2, key + 3));
                            case 7 -> cache.readOrLoad(key, k -> new byte[50], s -> s.byteSize());
                            case 8 -> cache.compute(key, (k, v) -> v == null ? new byte[10] : null);
                            case 9 -> {
                                if (random.nextInt(100) == 0) {
                                    cache.invalidateAll();
                                }
                            }
                            case 10 -> {
                                cache.size();
                                cache.stats();
                                cache.weightedSize();
                            }
                            case 11 -> cache.readQuietly(key, s -> s.byteSize());
                            case 12 -> cache.asMap().merge(key, new byte[3], (a, b) -> null);
                            case 13 -> nanos.addAndGet(random.nextInt(1_000_000));
                            case 14 -> cache.getAllPresent(List.of(key, key + 7, key + 9));
                            default -> cache.getIfPresent(key);
                        }
                        operations.incrementAndGet();
                    } catch (IllegalStateException e) {
                        if (e.getMessage() == null || !e.getMessage().contains("is closed")) {
                            unexpected.putIfAbsent(e.toString(), e);
                        }
                    } catch (Throwable e) {
                        if (!(e instanceof CacheLoadException cle && cle.getCause() instanceof IllegalStateException ise
                                && ise.getMessage() != null && ise.getMessage().contains("is closed"))) {
                            unexpected.putIfAbsent(e.toString(), e);
                        }
                    }
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (operations.get() < 500 + round * 50 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        // the close races calls that are going on: without any, the round checked nothing
        assertThat(operations.get()).as("round %d: calls made before the close", round)
                .isGreaterThanOrEqualTo(500 + round * 50);
        cache.close();
        Thread.sleep(20);
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(10_000);
            assertThat(thread.isAlive()).as("stuck after close").isFalse();
        }
        if (!unexpected.isEmpty()) {
            Throwable first = unexpected.values().iterator().next();
            first.printStackTrace();
        }
        assertThat(unexpected.keySet()).as("round " + round).isEmpty();
    }

    // ------------------------------------------------------------------ 6. optimistic reads vs clears and regrowth

    @Test
    @Timeout(120)
    void readsRacingClearsRegrowthAndCleanUpSeeOnlyTheirKeysValues() throws Exception {
        for (String policy : new String[]{"W_TINY_LFU", "LRU"}) {
            AtomicLong nanos = new AtomicLong();
            OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                    .capacity(128 << 10).concurrencyLevel(1).recordStats(false).evictionPolicy(EvictionPolicy.valueOf(policy))
                    .expireAfterWrite(Duration.ofMillis(5)).clock(nanos::get).build();
            try (cache) {
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<String> problem = new AtomicReference<>();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicLong reads = new AtomicLong();
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    boolean writer = t < 2;
                    long seed = t;
                    threads.add(daemon(() -> {
                        SplittableRandom random = new SplittableRandom(seed);
                        while (!stop.get()) {
                            long key = random.nextLong(3000);
                            if (writer) {
                                int op = random.nextInt(1000);
                                if (op == 0) {
                                    cache.invalidateAll();
                                } else if (op < 5) {
                                    cache.cleanUp();
                                } else if (op < 50) {
                                    nanos.addAndGet(random.nextInt(300_000));
                                } else if (op < 100) {
                                    cache.invalidate(key);
                                } else {
                                    byte[] value = new byte[8 + (int) (key % 97) + (random.nextInt(4) == 0 ? 1 : 0)];
                                    java.util.Arrays.fill(value, (byte) key);
                                    java.nio.ByteBuffer.wrap(value).putLong(0, key);
                                    cache.put(key, value);
                                }
                                continue;
                            }
                            String seen;
                            if (random.nextBoolean()) {
                                byte[] got = cache.getIfPresent(key);
                                seen = got == null ? null : check(key, got);
                            } else {
                                Map<Long, byte[]> all = cache.getAllPresent(List.of(key, key + 1, key + 2));
                                seen = null;
                                for (Map.Entry<Long, byte[]> e : all.entrySet()) {
                                    String s = check(e.getKey(), e.getValue());
                                    if (s != null) {
                                        seen = s;
                                    }
                                }
                            }
                            if (seen != null) {
                                problem.compareAndSet(null, seen);
                            }
                            reads.incrementAndGet();
                        }
                    }, failure));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (problem.get() == null && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                stop.set(true);
                for (Thread thread : threads) {
                    thread.join(10_000);
                    assertThat(thread.isAlive()).isFalse();
                }
                assertThat(failure.get()).isNull();
                assertThat(problem.get()).isNull();
                ((OffHeapCacheImpl<?, ?>) cache).verify();
                System.out.println(policy + " reads " + reads.get());
            }
        }
    }

    private static String check(long key, byte[] got) {
        if (got.length != 8 + key % 97 && got.length != 9 + key % 97) {
            return "key " + key + ": length " + got.length;
        }
        if (java.nio.ByteBuffer.wrap(got).getLong(0) != key) {
            return "key " + key + ": another key's value";
        }
        for (int i = 8; i < got.length; i++) {
            if (got[i] != (byte) key) {
                return "key " + key + ": torn at " + i;
            }
        }
        return null;
    }
}
