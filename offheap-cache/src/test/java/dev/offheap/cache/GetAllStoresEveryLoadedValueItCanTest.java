package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A getAll whose loadAll gave a value the cache cannot store (over the entry limit, refused by the value
 * serializer) stores every other value it gave, wakes the callers waiting for each key with that key's own
 * outcome, and then throws the failure to store, as a get whose value cannot be stored does. It stopped at
 * the first value it could not store: the keys after it were neither stored nor returned, and their waiters
 * got that other key's failure. A key loadAll gave without being asked, whose value cannot be stored, is
 * skipped: it failed the whole call though every key asked for was stored.
 */
class GetAllStoresEveryLoadedValueItCanTest {
    private static final String TOO_LARGE = "x".repeat(4096);
    private static final String REFUSED = "refused by the serializer";

    /** Strings, but one value, {@link #REFUSED}, makes the serializer throw. */
    private static final Serializer<String> REFUSING = new Serializer<>() {
        @Override
        public int serializedSize(String value) {
            if (value.equals(REFUSED)) {
                throw new IllegalArgumentException("cannot serialize " + value);
            }
            return Serializer.strings().serializedSize(value);
        }

        @Override
        public void write(String value, MemorySegment target) {
            Serializer.strings().write(value, target);
        }

        @Override
        public String read(MemorySegment source) {
            return Serializer.strings().read(source);
        }
    };

    private static OffHeapCache<String, String> cache(CacheLoader<String, String> loader) {
        return OffHeapCache.builder(Serializer.strings(), REFUSING).capacity(1 << 20).maxEntryBytes(1024)
                .recordStats(true).loader(loader).build();
    }

    /** A loader whose loadAll gives, in this order, what {@code values} has, after {@code before} ran. */
    private static CacheLoader<String, String> bulk(Runnable before, Map<String, String> values) {
        return new CacheLoader<>() {
            @Override
            public String load(String key) {
                return "single " + key;
            }

            @Override
            public Map<String, String> loadAll(Set<? extends String> keys) {
                before.run();
                return values;
            }
        };
    }

    private static Map<String, String> inOrder(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    @Test
    void theValuesAfterOneThatCannotBeStoredAreStoredAndTheCallThrowsThatFailure() {
        try (OffHeapCache<String, String> cache = cache(bulk(() -> { },
                inOrder("a", "value of a", "big", TOO_LARGE, "c", "value of c")))) {
            Throwable failure = catchThrowable(() -> cache.getAll(List.of("a", "big", "c")));

            assertThat(failure).isInstanceOf(ValueTooLargeException.class);
            assertThat(cache.getIfPresent("a")).isEqualTo("value of a");
            assertThat(cache.getIfPresent("c")).isEqualTo("value of c");
            assertThat(cache.getIfPresent("big")).isNull();
            // one bulk load, and its callers got a failure: one load failure
            assertThat(cache.stats().loadFailureCount()).isEqualTo(1);
            assertThat(cache.stats().loadSuccessCount()).isZero();
        }
    }

    @Test
    void twoValuesThatCannotBeStoredThrowTheFirstWithTheSecondSuppressed() {
        try (OffHeapCache<String, String> cache = cache(bulk(() -> { },
                inOrder("big", TOO_LARGE, "b", "value of b", "refused", REFUSED, "d", "value of d")))) {
            Throwable failure = catchThrowable(() -> cache.getAll(List.of("big", "b", "refused", "d")));

            assertThat(failure).isInstanceOf(ValueTooLargeException.class);
            assertThat(failure.getSuppressed()).singleElement().isInstanceOf(SerializationException.class);
            assertThat(cache.getIfPresent("b")).isEqualTo("value of b");
            assertThat(cache.getIfPresent("d")).isEqualTo("value of d");
            assertThat(cache.stats().loadFailureCount()).isEqualTo(1);
        }
    }

    @Test
    void eachWaiterGetsItsOwnKeysValueOrItsOwnKeysFailure() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OffHeapCache<String, String> cache = cache(bulk(() -> awaitRelease(loading, release),
                inOrder("big", TOO_LARGE, "refused", REFUSED, "c", "value of c")))) {
            CompletableFuture<Object> getAll = outcomeOf(() -> cache.getAll(List.of("big", "refused", "c")));
            assertThat(loading.await(20, TimeUnit.SECONDS)).isTrue();
            Waiter ofBig = new Waiter(() -> cache.get("big", key -> "the waiter's own"));
            Waiter ofRefused = new Waiter(() -> cache.get("refused"));
            Waiter ofC = new Waiter(() -> cache.get("c", key -> "the waiter's own"));
            ofBig.awaitWaiting();
            ofRefused.awaitWaiting();
            ofC.awaitWaiting();
            release.countDown();

            Object thrown = getAll.get(20, TimeUnit.SECONDS);
            assertThat(thrown).isInstanceOf(ValueTooLargeException.class);
            assertThat(ofC.outcome()).isEqualTo("value of c");
            assertThat(ofBig.outcome()).isInstanceOf(CacheLoadException.class);
            assertThat(((Throwable) ofBig.outcome()).getCause()).isSameAs(thrown);
            assertThat(ofRefused.outcome()).isInstanceOf(CacheLoadException.class);
            assertThat(((Throwable) ofRefused.outcome()).getCause()).isInstanceOf(SerializationException.class)
                    .isSameAs(((Throwable) thrown).getSuppressed()[0]);
            assertThat(cache.getIfPresent("c")).isEqualTo("value of c");
        }
    }

    @Test
    void aKeyNotAskedForWhoseValueCannotBeStoredIsSkipped() {
        try (OffHeapCache<String, String> cache = cache(bulk(() -> { },
                inOrder("a", "value of a", "extra big", TOO_LARGE, "extra refused", REFUSED,
                        "extra", "value of extra", "b", "value of b")))) {
            assertThat(cache.getAll(List.of("a", "b")))
                    .containsExactly(Map.entry("a", "value of a"), Map.entry("b", "value of b"));

            assertThat(cache.getIfPresent("extra")).isEqualTo("value of extra");
            assertThat(cache.getIfPresent("extra big")).isNull();
            assertThat(cache.getIfPresent("extra refused")).isNull();
            assertThat(cache.stats().loadSuccessCount()).isEqualTo(1);
            assertThat(cache.stats().loadFailureCount()).isZero();
        }
    }

    /** Says the load has begun, then waits (at most 20 s) for {@code release}. */
    private static void awaitRelease(CountDownLatch loading, CountDownLatch release) {
        loading.countDown();
        try {
            release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code call} on a thread of its own; completes with what it returned or threw. */
    private static CompletableFuture<Object> outcomeOf(Supplier<?> call) {
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                outcome.complete(call.get());
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        return outcome;
    }

    /** A caller on a thread of its own. */
    private static final class Waiter {
        private final CompletableFuture<Object> outcome = new CompletableFuture<>();
        private final Thread thread;

        Waiter(Supplier<?> call) {
            thread = Thread.ofPlatform().daemon().start(() -> {
                try {
                    outcome.complete(call.get());
                } catch (Throwable e) {
                    outcome.complete(e);
                }
            });
        }

        /** Waits until the thread parks (waiting for the load), or 20 s. */
        void awaitWaiting() throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }

        /** What the call returned, or the Throwable it threw. */
        Object outcome() throws Exception {
            return outcome.get(20, TimeUnit.SECONDS);
        }
    }
}
