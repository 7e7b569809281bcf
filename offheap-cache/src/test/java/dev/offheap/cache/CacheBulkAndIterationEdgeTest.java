package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Bulk operations and iteration at their edges: removeIf of the map view's values and entries racing a
 * put, getAll and get waiting for a readOrLoad whose loader hands back a buffer its thread reuses, and the
 * key iterator after close.
 */
class CacheBulkAndIterationEdgeTest {

    /** Runs {@code call} on a daemon thread of its own (the common pool may have one thread on 2 cores). */
    private static <T> CompletableFuture<T> onDaemon(Supplier<T> call, AtomicReference<Thread> thread) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        t.setDaemon(true);
        thread.set(t);
        t.start();
        return result;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).as("latch released").isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until {@code thread} parks (here: waiting for another thread's load), at most 10 s. */
    private static void awaitParked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("the caller waits for the running load").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    // ------------------------------------------------------------------ removeIf of the map view

    /**
     * values().removeIf and entrySet().removeIf used Collection's default, the iterator's remove(), which
     * removes the key whatever its value is by then: a value put after the filter saw the old one was
     * removed, though the filter never saw it (ConcurrentHashMap's views remove only the value tested).
     */
    @Test
    void removeIfOfValuesAndEntriesKeepsAValuePutAfterTheFilterSawTheOldOne() {
        List<Function<ConcurrentMap<String, String>, Boolean>> removeIfs = List.of(
                map -> map.values().removeIf(value -> {
                    if (value.equals("old")) {
                        putFromAnotherThread(map, "k", "new");
                        return true;
                    }
                    return value.equals("drop");
                }),
                map -> map.entrySet().removeIf(entry -> {
                    if (entry.getValue().equals("old")) {
                        putFromAnotherThread(map, "k", "new");
                        return true;
                    }
                    return entry.getValue().equals("drop");
                }));
        for (Function<ConcurrentMap<String, String>, Boolean> removeIf : removeIfs) {
            List<String> removed = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(1 << 20).removalListener((k, v, cause) -> removed.add(k + "=" + v + ":" + cause))
                    .build()) {
                ConcurrentMap<String, String> map = cache.asMap();
                map.put("k", "old");
                map.put("gone", "drop");
                map.put("kept", "other");
                removeIf.apply(map);
                assertThat(map).as("the value put after the filter saw the old one stays")
                        .containsExactlyInAnyOrderEntriesOf(Map.of("k", "new", "kept", "other"));
                assertThat(removed).containsExactlyInAnyOrder("k=old:REPLACED", "gone=drop:EXPLICIT");
            }
        }
    }

    private static void putFromAnotherThread(ConcurrentMap<String, String> map, String key, String value) {
        AtomicReference<Thread> thread = new AtomicReference<>();
        onDaemon(() -> map.put(key, value), thread).orTimeout(10, TimeUnit.SECONDS).join();
    }

    // ------------------------------------------------------------------ waiting for a readOrLoad

    /**
     * A getAll (or a get) that waited for another thread's readOrLoad of a key was handed that loader's value
     * itself: with Serializer.segments(), the loading thread's native buffer, which it reuses for its next
     * key. Its value for the key then changed under it into another key's bytes, though readOrLoad promises
     * that callers that wait for its load read the stored bytes, never the loader's value.
     */
    @Test
    void getAllAndGetWaitingForAReadOrLoadGetACopyNotTheLoadersBuffer() {
        List<String> callers = List.of("getAll", "get");
        for (String caller : callers) {
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> waitForAReadOrLoad(caller), caller);
        }
    }

    private static void waitForAReadOrLoad(String caller) throws Exception {
        AtomicInteger builderLoads = new AtomicInteger();
        try (OffHeapCache<Long, MemorySegment> cache = OffHeapCache.builder(Serializer.longs(), Serializer.segments())
                .capacity(1 << 20).loader(key -> {
                    builderLoads.incrementAndGet();
                    return MemorySegment.ofArray(new byte[]{-1});
                }).build();
             Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(64); // the loading thread's, reused from load to load
            CountDownLatch loading = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Thread> loaderThread = new AtomicReference<>();
            CompletableFuture<Long> load = onDaemon(() -> cache.readOrLoad(1L, key -> {
                buffer.fill((byte) 1);
                loading.countDown();
                await(release);
                return buffer;
            }, MemorySegment::byteSize), loaderThread);
            await(loading);
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            CompletableFuture<MemorySegment> waiter = onDaemon(() -> caller.equals("getAll")
                    ? cache.getAll(List.of(1L)).get(1L)
                    : cache.get(1L, key -> MemorySegment.ofArray(new byte[]{-2})), waiterThread);
            awaitParked(waiterThread.get());
            release.countDown();
            assertThat(load.get(10, TimeUnit.SECONDS)).isEqualTo(64);
            MemorySegment got = waiter.get(10, TimeUnit.SECONDS);
            buffer.fill((byte) 2); // the loading thread's next load reuses its buffer
            assertThat(got.byteSize()).isEqualTo(64);
            assertThat(got.toArray(ValueLayout.JAVA_BYTE)).as(caller + "'s value of key 1").containsOnly((byte) 1);
            assertThat(builderLoads).as("the key was loaded once, by readOrLoad").hasValue(0);
        }
    }

    // ------------------------------------------------------------------ iteration after close

    /**
     * keys() checked the cache was open only when it took a segment's snapshot: after close it went on
     * handing out the rest of that snapshot, where entries() and every other call throw.
     */
    @Test
    void theKeyIteratorThrowsAfterClose() {
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).build();
        for (int i = 0; i < 10; i++) {
            cache.put("k" + i, "v" + i);
        }
        Iterator<String> keys = cache.keys();
        Iterator<String> viewKeys = cache.asMap().keySet().iterator();
        assertThat(keys.next()).startsWith("k");
        assertThat(viewKeys.next()).startsWith("k");
        cache.close();
        for (Iterator<String> iterator : List.of(keys, viewKeys)) {
            assertThatThrownBy(iterator::hasNext).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(iterator::next).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
    }
}
