package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Reads in place, loading, expiry and serializers at their edges: a transient segment that outlived its
 * call, load cycles across threads, finished loads of getAll left registered, huge declared sizes, close
 * with waiting callers, and iteration counted as access.
 */
class CacheReadLoadEdgeTest {

    /** Runs {@code call} on a daemon thread: a call that never returns leaves no thread keeping the JVM up. */
    private static <T> CompletableFuture<T> onDaemon(Supplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    private static Throwable outcome(CompletableFuture<?> call) throws InterruptedException {
        try {
            call.get(3, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            return e;
        }
    }

    // ------------------------------------------------------------------ reads in place

    /**
     * readOrLoad's fall-back for a loaded value that is gone before its read (here: expired at once) handed
     * a byte[] cache's reader a view of the loaded array itself: a segment that stayed valid after the call
     * and that other threads could use, unlike every other segment a reader gets.
     */
    @Test
    void readOrLoadsTransientSegmentOfByteArraysDiesWithTheCallToo() throws Exception {
        AtomicLong nanos = new AtomicLong();
        AtomicBoolean ticking = new AtomicBoolean();
        try (OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(1 << 20).expireAfterWrite(Duration.ofMillis(1))
                // once the loader ran, every reading of the clock is a millisecond later: stored, then expired
                .clock(() -> ticking.get() ? nanos.addAndGet(1_000_000) : nanos.get())
                .build()) {
            AtomicReference<MemorySegment> seen = new AtomicReference<>();
            byte[] loaded = {1, 2, 3};
            byte[] got = cache.readOrLoad(1L, k -> {
                ticking.set(true);
                return loaded;
            }, segment -> {
                seen.set(segment);
                return segment.toArray(ValueLayout.JAVA_BYTE);
            });
            assertThat(got).containsExactly(1, 2, 3);
            assertThat(cache.containsKey(1L)).as("the loaded value expired before the read").isFalse();
            assertThat(seen.get().isReadOnly()).isTrue();
            assertThatThrownBy(() -> seen.get().get(ValueLayout.JAVA_BYTE, 0))
                    .as("the reader's segment is valid only during the call").isInstanceOf(IllegalStateException.class);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ loading

    /**
     * Two loads whose loaders each ask for the other's key, on two threads: each waits for the other's load
     * forever, silently. A loader asking for its own key is refused; a cycle through two threads was not.
     */
    @Test
    void loadsThatWaitForEachOtherInACycleFailInsteadOfHangingForever() throws Exception {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            CountDownLatch bothLoading = new CountDownLatch(2);
            CompletableFuture<String> a = onDaemon(() -> cache.get("a", k -> {
                bothLoading.countDown();
                await(bothLoading);
                return "a+" + cache.get("b", k2 -> "b-from-a");
            }));
            CompletableFuture<String> b = onDaemon(() -> cache.get("b", k -> {
                bothLoading.countDown();
                await(bothLoading);
                return "b+" + cache.get("a", k2 -> "a-from-b");
            }));
            Throwable ra = outcome(a);
            Throwable rb = outcome(b);
            assertThat(ra).as("a's get").isNotInstanceOf(TimeoutException.class);
            assertThat(rb).as("b's get").isNotInstanceOf(TimeoutException.class);
            // at least one of them fails, naming the cycle; the cache is usable afterwards
            assertThat(ra == null && rb == null).isFalse();
            Throwable failure = ra != null ? ra : rb;
            assertThat(failure).isInstanceOf(CacheLoadException.class).hasRootCauseInstanceOf(IllegalStateException.class)
                    .rootCause().hasMessageContaining("recursive load").hasMessageContaining("waits");
            assertThat(cache.get("c", k -> "c")).isEqualTo("c");
        }
    }

    /**
     * getAll keeps the loads it registered in the map of running loads until it has waited for the keys
     * other threads load. A key its loadAll already loaded was then still "being loaded": a get after an
     * invalidate of that key was handed the invalidated value from the finished load, without loading.
     */
    @Test
    void aGetAfterAnInvalidateLoadsAgainWhileTheGetAllThatLoadedTheKeyStillWaitsForOthers() throws Exception {
        CountDownLatch releaseSlow = new CountDownLatch(1);
        CountDownLatch slowStarted = new CountDownLatch(1);
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(key -> "old-" + key).build()) {
            CompletableFuture<String> slow = onDaemon(() -> cache.get("slow", k -> {
                slowStarted.countDown();
                await(releaseSlow);
                return "slow";
            }));
            slowStarted.await();
            CompletableFuture<Map<String, String>> all = onDaemon(() -> cache.getAll(List.of("a", "slow")));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!cache.containsKey("a")) {
                assertThat(System.nanoTime()).as("getAll stored a").isLessThan(deadline);
                Thread.sleep(1);
            }
            cache.invalidate("a");
            String got = onDaemon(() -> cache.get("a", k -> "new-" + k)).get(10, TimeUnit.SECONDS);
            releaseSlow.countDown();
            assertThat(all.get(10, TimeUnit.SECONDS)).containsEntry("a", "old-a");
            assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo("slow");
            assertThat(got).as("a get that began after the invalidate").isEqualTo("new-a");
        }
    }

    /**
     * A key that getAll's loadAll left out stays registered as a finished load (of no value) while getAll
     * waits for other threads' keys; a get of that key waiting for it went round without end, and when the
     * key getAll waits for is loaded by that very get's thread, neither ever finishes.
     */
    @Test
    void aGetOfAKeyLeftOutByGetAllDoesNotSpinOnTheFinishedLoad() throws Exception {
        CountDownLatch getAllWaiting = new CountDownLatch(1);
        CountDownLatch cLoading = new CountDownLatch(1);
        CacheLoader<String, String> leavesOutA = new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "loaded-" + key;
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                getAllWaiting.countDown();
                return Map.of(); // leaves "a" out
            }
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(leavesOutA).build()) {
            // c's loader waits until getAll has loaded (and left out) a, then asks for a
            CompletableFuture<String> c = onDaemon(() -> cache.get("c", k -> {
                cLoading.countDown();
                await(getAllWaiting);
                sleep(50); // getAll is now waiting for c
                return "c+" + cache.get("a", k2 -> "a-by-c");
            }));
            cLoading.await();
            CompletableFuture<Map<String, String>> all = onDaemon(() -> cache.getAll(List.of("a", "c")));
            Throwable rc = outcome(c);
            Throwable rall = outcome(all);
            assertThat(rc).as("c's get").isNull();
            assertThat(rall).as("getAll").isNull();
            assertThat(c.join()).isEqualTo("c+a-by-c");
            assertThat(all.join()).isEqualTo(Map.of("c", "c+a-by-c"));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * getAll of two byte[] keys with the same bytes (distinct arrays: the same cache key) registered a load
     * for the first and then waited for it as a load of "another" caller: its own, so it threw "recursive
     * load", and nothing of the call was returned.
     */
    @Test
    void getAllOfTwoEqualByteArrayKeysLoadsTheKeyOnce() {
        AtomicInteger loads = new AtomicInteger();
        try (OffHeapCache<byte[], String> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.strings())
                .capacity(1 << 20).loader(key -> {
                    loads.incrementAndGet();
                    return "v" + Arrays.toString(key);
                }).build()) {
            byte[] first = {1, 2};
            byte[] second = {1, 2};
            Map<byte[], String> got = cache.getAll(List.of(first, second));
            assertThat(got).hasSize(2).containsEntry(first, "v[1, 2]").containsEntry(second, "v[1, 2]");
            assertThat(loads).hasValue(1);
            // as getAllPresent has it
            assertThat(cache.getAllPresent(List.of(first, second))).hasSize(2);
        }
    }

    /**
     * close() while a load runs: the callers waiting for it waited until the loader returned, however long
     * that took, after the cache was closed; now they get the closed cache's IllegalStateException at once.
     */
    @Test
    void closeReleasesTheCallersWaitingForARunningLoad() throws Exception {
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            CompletableFuture<String> loader = onDaemon(() -> cache.get("k", k -> {
                loading.countDown();
                await(release);
                return "v";
            }));
            loading.await();
            CompletableFuture<String> waiter = onDaemon(() -> cache.get("k", k -> "w"));
            Thread.sleep(100); // waiting for the load
            cache.close();
            assertThat(outcome(waiter)).as("the waiter, the cache closed, the load still running")
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            release.countDown();
            assertThat(outcome(loader)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        } finally {
            release.countDown();
            cache.close();
        }
    }

    // ------------------------------------------------------------------ expiry

    /**
     * Iterating the entries (entries(), the map view's entrySet and values, containsValue, equals, toString)
     * counted as an access of every entry: it moved every access deadline, so a periodic export or sweep
     * kept all entries of an expireAfterAccess cache alive forever, and it marked every entry used for the
     * eviction policy. Caffeine's iterators read without either; so do keys() and readQuietly here.
     */
    @Test
    void iteratingTheEntriesIsNoAccess() {
        AtomicLong nanos = new AtomicLong();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).expireAfterAccess(Duration.ofMillis(100)).clock(nanos::get).build()) {
            cache.put("a", "1");
            cache.put("b", "2");
            nanos.addAndGet(60_000_000);
            assertThat(cache.asMap().values()).containsExactlyInAnyOrder("1", "2");
            assertThat(cache.asMap().containsValue("3")).isFalse();
            java.util.Iterator<Map.Entry<String, String>> entries = cache.entries();
            while (entries.hasNext()) {
                entries.next();
            }
            nanos.addAndGet(60_000_000); // 120 ms after the last access
            assertThat(cache.getIfPresent("a")).as("a, 120 ms after its write, iterated since").isNull();
            assertThat(cache.containsKey("b")).isFalse();
        }
    }

    // ------------------------------------------------------------------ serializers

    /** A serializer that declares a size it cannot have: the JVM cannot make an array that long. */
    private static final class HugeSize<T> implements Serializer<T> {
        private final Serializer<T> real;

        HugeSize(Serializer<T> real) {
            this.real = real;
        }

        @Override
        public int serializedSize(T value) {
            return value.toString().startsWith("huge") ? Integer.MAX_VALUE : real.serializedSize(value);
        }

        @Override
        public void write(T value, MemorySegment target) {
            real.write(value, target);
        }

        @Override
        public T read(MemorySegment source) {
            return real.read(source);
        }

        @Override
        public String toString() {
            return "hugeSize";
        }
    }

    /**
     * put refuses a value whose declared size is over the entry limit before it serializes anything; the
     * other writes (putIfAbsent, replace, compute, the map view's put, merge) and the value comparisons
     * allocated a heap array of the declared size first, and a huge size became an OutOfMemoryError.
     */
    @Test
    void aHugeDeclaredValueSizeIsRefusedByEveryWriteAsByPut() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), new HugeSize<>(Serializer.strings()))
                .capacity(1 << 20).build()) {
            cache.put("good", "value");
            assertThatThrownBy(() -> cache.put("k", "huge")).isInstanceOf(ValueTooLargeException.class);
            List<Runnable> writes = List.of(
                    () -> cache.putIfAbsent("k", "huge"),
                    () -> cache.replace("good", "huge"),
                    () -> cache.compute("k", (k, v) -> "huge"),
                    () -> cache.asMap().put("k", "huge"),
                    () -> cache.asMap().merge("k", "huge", (a, b) -> b));
            for (Runnable write : writes) {
                Throwable thrown = catchThrowable(write::run);
                assertThat(thrown).isInstanceOf(ValueTooLargeException.class);
            }
            // no stored value can equal a value over the entry limit
            assertThat(catchThrowable(() -> assertThat(cache.remove("good", "huge")).isFalse())).isNull();
            assertThat(catchThrowable(() -> assertThat(cache.replace("good", "huge", "v")).isFalse())).isNull();
            assertThat(cache.getIfPresent("good")).isEqualTo("value");
            assertThat(cache.size()).isEqualTo(1);
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    /** The same for keys: a declared key size over the 65,535-byte limit is an IllegalArgumentException, not an OOM. */
    @Test
    void aHugeDeclaredKeySizeIsRefusedAsAKeyTooLong() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(new HugeSize<>(Serializer.strings()), Serializer.strings())
                .capacity(1 << 20).build()) {
            cache.put("good", "value");
            assertThat(catchThrowable(() -> cache.put("huge", "v"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("65535");
            assertThat(catchThrowable(() -> cache.getIfPresent("huge"))).isInstanceOf(IllegalArgumentException.class);
            assertThat(cache.getIfPresent("good")).isEqualTo("value");
            assertThat(cache.size()).isEqualTo(1);
        }
    }
}
