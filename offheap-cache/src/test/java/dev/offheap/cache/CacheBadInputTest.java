package dev.offheap.cache;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import java.util.ArrayList;
import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every documented {@code @throws} of the cache and its builder, and that nothing changes when one is thrown. */
class CacheBadInputTest {

    private static OffHeapCache<String, String> strings() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).build();
    }

    @Test
    void builderRejectsBadOptions() {
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings());
        assertThatThrownBy(() -> builder.capacity(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity must be positive, got 0");
        assertThatThrownBy(() -> builder.capacity(-5)).hasMessageContaining("-5");
        assertThatThrownBy(() -> builder.maxEntryBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.concurrencyLevel(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.concurrencyLevel(65_537)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.expireAfterWrite(Duration.ZERO)).hasMessageContaining("expireAfterWrite");
        assertThatThrownBy(() -> builder.expireAfterAccess(Duration.ofSeconds(-1))).hasMessageContaining("expireAfterAccess");
        assertThatThrownBy(() -> builder.expireAfterWrite(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.expireAfterAccess(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.name(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.name(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.evictionPolicy(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.removalListener(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.loader(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.budget(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.memoryManager(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder.clock(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> OffHeapCache.builder(null, Serializer.strings())).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("keySerializer");
        assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), null)).hasMessageContaining("valueSerializer");
    }

    @Test
    void buildRejectsMissingOrTooSmallCapacity() {
        assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity(bytes) is required");
        assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(100).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("100 bytes is too small");
        assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 16).maxEntryBytes(1 << 20).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxEntryBytes of 1048576");
    }

    /** CacheBuilder#maxEntryBytes: the default is capacity / 16, and more may be set while a segment holds it. */
    @Test
    void maxEntryBytesDefaultsToASixteenthOfTheCapacityAndMayBeSetAboveIt() {
        try (OffHeapCache<String, byte[]> cache = OffHeapCache.builder(Serializer.strings(), Serializer.byteArrays())
                .capacity(1 << 20).build()) {
            assertThatThrownBy(() -> cache.put("k", new byte[1 << 16])).isInstanceOf(ValueTooLargeException.class)
                    .satisfies(e -> assertThat(((ValueTooLargeException) e).limitBytes()).isEqualTo((1 << 20) / 16));
        }
        try (OffHeapCache<String, byte[]> cache = OffHeapCache.builder(Serializer.strings(), Serializer.byteArrays())
                .capacity(1 << 20).maxEntryBytes(256 << 10).build()) {
            cache.put("k", new byte[200_000]);
            assertThat(cache.getIfPresent("k")).hasSize(200_000);
        }
    }

    @Test
    void budgetIsChargedTheCapacityAndRefusesTooMuch() {
        try (Budget budget = Budget.root("caches", 1 << 20)) {
            OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(600_000).budget(budget).build();
            assertThat(budget.used()).isEqualTo(600_000);
            assertThatThrownBy(() -> OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                    .capacity(600_000).budget(budget).build()).isInstanceOf(BudgetExceededException.class);
            cache.close();
            assertThat(budget.used()).isZero();
        }
    }

    @Test
    void nullsAreRejectedByName() {
        try (OffHeapCache<String, String> cache = strings()) {
            assertThatThrownBy(() -> cache.put(null, "v")).isInstanceOf(NullPointerException.class).hasMessage("key");
            assertThatThrownBy(() -> cache.put("k", null)).isInstanceOf(NullPointerException.class).hasMessage("value");
            assertThatThrownBy(() -> cache.getIfPresent(null)).hasMessage("key");
            assertThatThrownBy(() -> cache.get("k", null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> cache.replace("k", null, "v")).hasMessage("oldValue");
            assertThatThrownBy(() -> cache.replace("k", "v", null)).hasMessage("newValue");
            assertThatThrownBy(() -> cache.compute("k", null)).hasMessage("remapping");
            assertThatThrownBy(() -> cache.read("k", null)).hasMessage("reader");
            assertThatThrownBy(() -> cache.put("k", "v", null)).hasMessage("timeToLive");
            assertThatThrownBy(() -> cache.putAll(null)).isInstanceOf(NullPointerException.class);
            assertThat(cache.size()).isZero();
        }
    }

    @Test
    void nonPositiveTimeToLiveIsRejected() {
        try (OffHeapCache<String, String> cache = strings()) {
            assertThatThrownBy(() -> cache.put("k", "v", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("timeToLive must be positive");
            assertThat(cache.containsKey("k")).isFalse();
        }
    }

    @Test
    void valueOverTheLimitNamesTheLimitAndStoresNothing() {
        try (OffHeapCache<byte[], byte[]> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(1 << 20).build()) {
            long limit = ((OffHeapCacheImpl<?, ?>) cache).maxEntryBytes();
            assertThat(limit).isEqualTo((1 << 20) / 16);
            cache.put(new byte[]{1}, new byte[1000]);
            assertThatThrownBy(() -> cache.put(new byte[]{1}, new byte[(int) limit]))
                    .isInstanceOf(ValueTooLargeException.class)
                    .hasMessageContaining("limit of " + limit + " bytes")
                    .satisfies(e -> assertThat(((ValueTooLargeException) e).limitBytes()).isEqualTo(limit));
            assertThat(cache.getIfPresent(new byte[]{1})).hasSize(1000);
            byte[] largest = new byte[(int) limit - 24 - 1];
            cache.put(new byte[]{2}, largest);
            assertThat(cache.getIfPresent(new byte[]{2})).hasSize(largest.length);
        }
    }

    /** A serializer that misbehaves, for non-empty strings, in one of the ways a serializer can. */
    private static Serializer<String> liar(String how) {
        return new Serializer<>() {
            @Override
            public int serializedSize(String value) {
                if (value.isEmpty()) {
                    return 0;
                }
                return switch (how) {
                    case "negative" -> -1;
                    case "throwsSize" -> throw new IllegalStateException("size boom");
                    default -> value.length();
                };
            }

            @Override
            public void write(String value, MemorySegment target) {
                if (value.isEmpty()) {
                    return;
                }
                switch (how) {
                    case "more" -> target.set(ValueLayout.JAVA_BYTE, value.length(), (byte) 1);
                    case "throwsWrite" -> throw new UnsupportedOperationException("write boom");
                    default -> Serializer.strings().write(value, target);
                }
            }

            @Override
            public String read(MemorySegment source) {
                if (how.equals("throwsRead")) {
                    throw new IllegalArgumentException("read boom");
                }
                return Serializer.strings().read(source);
            }

            @Override
            public String toString() {
                return "liar(" + how + ")";
            }
        };
    }

    @Test
    void misbehavingSerializersRejectOnlyTheirEntry() {
        for (String how : List.of("negative", "throwsSize", "more", "throwsWrite")) {
            try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), liar(how))
                    .capacity(1 << 20).build()) {
                cache.put("good", "");
                assertThatThrownBy(() -> cache.put("bad", "value")).as(how)
                        .isInstanceOf(SerializationException.class).hasMessageContaining("liar(" + how + ")");
                assertThatThrownBy(() -> cache.compute("good", (k, v) -> "value")).as(how)
                        .isInstanceOf(SerializationException.class);
                assertThat(cache.containsKey("bad")).isFalse();
                assertThat(cache.getIfPresent("good")).isEmpty();
                assertThat(cache.size()).isEqualTo(1);
                ((OffHeapCacheImpl<?, ?>) cache).verify();
            }
        }
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), liar("throwsRead"))
                .capacity(1 << 20).build()) {
            cache.put("k", "v");
            assertThatThrownBy(() -> cache.getIfPresent("k")).isInstanceOf(SerializationException.class)
                    .hasMessageContaining("read boom");
            assertThat(cache.containsKey("k")).isTrue();
        }
    }

    @Test
    void loaderFailuresAndNullsBecomeCacheLoadExceptions() {
        AtomicInteger calls = new AtomicInteger();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(key -> {
                    calls.incrementAndGet();
                    if (key.equals("null")) {
                        return null;
                    }
                    if (key.equals("checked")) {
                        throw new java.io.IOException("disk gone");
                    }
                    return "v-" + key;
                }).build()) {
            assertThat(cache.get("x")).isEqualTo("v-x");
            assertThatThrownBy(() -> cache.get("null")).isInstanceOf(CacheLoadException.class).hasMessageContaining("null");
            assertThatThrownBy(() -> cache.get("checked")).isInstanceOf(CacheLoadException.class)
                    .hasRootCauseInstanceOf(java.io.IOException.class);
            assertThatThrownBy(() -> cache.get("y", k -> {
                throw new IllegalArgumentException("nope");
            })).isInstanceOf(CacheLoadException.class).hasCauseInstanceOf(IllegalArgumentException.class);
            assertThat(cache.containsKey("null")).isFalse();
            assertThat(cache.containsKey("checked")).isFalse();
            assertThat(cache.stats().loadFailureCount()).isEqualTo(3);
            assertThat(cache.getAll(List.of("x", "z"))).isEqualTo(Map.of("x", "v-x", "z", "v-z"));
            assertThatThrownBy(() -> cache.getAll(List.of("checked"))).isInstanceOf(CacheLoadException.class);
            assertThatThrownBy(() -> cache.get("loop", k -> cache.get("loop", k2 -> "inner")))
                    .isInstanceOf(CacheLoadException.class).hasRootCauseMessage(
                            "recursive load of key loop in cache 'offheap-cache': the loader asked the cache for the key it is loading");
        }
        try (OffHeapCache<String, String> noLoader = strings()) {
            assertThatThrownBy(() -> noLoader.get("k")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("without a loader");
            assertThatThrownBy(() -> noLoader.getAll(List.of("k"))).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void computeMustNotUseTheCache() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).build()) {
            cache.put("k", "v");
            assertThatThrownBy(() -> cache.compute("k", (k, v) -> cache.getIfPresent("other")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("compute");
            assertThat(cache.getIfPresent("k")).isEqualTo("v");
        }
    }

    @Test
    void zeroCopySegmentRefusesOtherThreadsAndCloseFromInsideTheReader() {
        OffHeapCache<String, String> cache = strings();
        try {
            cache.put("k", "value");
            Throwable[] fromOtherThread = new Throwable[1];
            cache.read("k", segment -> {
                Thread other = Thread.ofPlatform().start(() -> {
                    try {
                        segment.get(ValueLayout.JAVA_BYTE, 0);
                    } catch (Throwable e) {
                        fromOtherThread[0] = e;
                    }
                });
                try {
                    other.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return null;
            });
            assertThat(fromOtherThread[0]).isInstanceOf(WrongThreadException.class);
            assertThatThrownBy(() -> cache.read("k", segment -> {
                cache.close();
                return null;
            })).isInstanceOf(IllegalStateException.class).hasMessageContaining("inside read()");
            assertThatThrownBy(() -> cache.read("k", segment -> {
                segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                return null;
            })).isInstanceOf(IllegalArgumentException.class);
            assertThat(cache.isClosed()).isFalse();
            assertThat(cache.getIfPresent("k")).isEqualTo("value");
        } finally {
            cache.close();
        }
    }

    @Test
    void everyMethodThrowsAfterClose() {
        OffHeapCache<String, String> cache = strings();
        cache.put("k", "v");
        cache.close();
        cache.close();
        assertThat(cache.isClosed()).isTrue();
        List<Consumer<OffHeapCache<String, String>>> calls = List.of(
                c -> c.getIfPresent("k"), c -> c.get("k", k -> "v"), c -> c.getAllPresent(List.of("k")),
                c -> c.read("k", s -> 1), c -> c.put("k", "v"), c -> c.put("k", "v", Duration.ofSeconds(1)),
                c -> c.putAll(Map.of("k", "v")), c -> c.putIfAbsent("k", "v"), c -> c.replace("k", "v"),
                c -> c.replace("k", "v", "w"), c -> c.compute("k", (k, v) -> v), c -> c.remove("k"),
                c -> c.remove("k", "v"), c -> c.invalidate("k"), OffHeapCache::invalidateAll,
                c -> c.containsKey("k"), OffHeapCache::size, OffHeapCache::weightedSize, OffHeapCache::keys,
                OffHeapCache::entries, OffHeapCache::stats, c -> c.get("k"), c -> c.getAll(List.of("k")),
                OffHeapCache::capacityBytes, OffHeapCache::asMap);
        for (Consumer<OffHeapCache<String, String>> call : calls) {
            assertThatThrownBy(() -> call.accept(cache)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void aWriteFromInsideAReaderThrowsInsteadOfWaitingForTheReadLockItHolds() throws Exception {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).build();
             OffHeapCache<String, String> another = strings()) {
            cache.put("k", "v");
            List<Consumer<OffHeapCache<String, String>>> writes = List.of(c -> c.put("k", "w"), c -> c.put("j", "w"),
                    c -> c.remove("k"), c -> c.invalidate("j"), OffHeapCache::invalidateAll,
                    c -> c.compute("j", (k, v) -> "w"), c -> c.putIfAbsent("j", "w"), OffHeapCache::cleanUp,
                    c -> c.get("j", k -> "loaded"));
            for (Consumer<OffHeapCache<String, String>> write : writes) {
                // on a thread of its own with a bounded wait: the write used to wait for the read lock forever
                CompletableFuture<Object> inside = CompletableFuture.supplyAsync(() -> cache.read("k", segment -> {
                    write.accept(cache);
                    return "no exception";
                }));
                assertThatThrownBy(() -> inside.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                        .cause().hasMessageContaining("inside read()");
            }
            String fromAnother = cache.read("k", segment -> {
                another.put("x", "y");
                return another.getIfPresent("x");
            });
            assertThat(fromAnother).as("a reader may write another cache").isEqualTo("y");
            String nested = cache.read("k", segment -> cache.getIfPresent("k"));
            assertThat(nested).as("and read its own").isEqualTo("v");
            cache.put("k", "after");
            assertThat(cache.getIfPresent("k")).isEqualTo("after");
        }
    }

    @Test
    void everyCallOfTheCacheFromInsideComputesFunctionThrowsWhateverTheSegment() {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(16).build()) {
            List<String> allowed = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                String other = "k" + i;
                try {
                    cache.compute("a", (k, v) -> {
                        cache.put(other, "x");
                        return "1";
                    });
                    allowed.add(other);
                } catch (IllegalStateException expected) {
                    assertThat(expected).hasMessageContaining("inside compute");
                }
            }
            assertThat(allowed).as("keys put from inside compute without an exception").isEmpty();
            assertThat(cache.size()).as("the failed computes stored nothing").isZero();
            cache.compute("a", (k, v) -> "after");
            assertThat(cache.getIfPresent("a")).as("usable again once out of the function").isEqualTo("after");
        }
    }

    @Test
    void twoComputesCallingTheCacheCrosswiseThrowInsteadOfDeadlocking() throws Exception {
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(16).build();
        java.util.concurrent.CyclicBarrier bothInside = new java.util.concurrent.CyclicBarrier(2);
        List<Throwable> thrown = java.util.Collections.synchronizedList(new ArrayList<>());
        Runnable first = () -> crosswise(cache, "a", "b", bothInside, thrown);
        Runnable second = () -> crosswise(cache, "b", "a", bothInside, thrown);
        Thread t1 = Thread.ofPlatform().daemon().start(first);
        Thread t2 = Thread.ofPlatform().daemon().start(second);
        t1.join(10_000);
        t2.join(10_000);
        // a deadlocked pair would hold segment locks that close() waits for: close only when both ended
        assertThat(t1.isAlive() || t2.isAlive()).as("a compute still blocked after 10 s").isFalse();
        assertThat(thrown).hasSize(2).allMatch(IllegalStateException.class::isInstance);
        cache.close();
    }

    private static void crosswise(OffHeapCache<String, String> cache, String mine, String theirs,
                                  java.util.concurrent.CyclicBarrier bothInside, List<Throwable> thrown) {
        try {
            cache.compute(mine, (k, v) -> {
                try {
                    bothInside.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("barrier: " + e, e);
                }
                cache.put(theirs, "x");
                return "1";
            });
        } catch (Throwable t) {
            thrown.add(t);
        }
    }

    @Test
    void everyMethodButCloseAndIsClosedThrowsAfterCloseEvenWithNothingToDo() {
        OffHeapCache<String, String> cache = strings();
        cache.close();
        assertThatThrownBy(() -> cache.getAllPresent(List.of())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cache.getAll(List.of())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cache.putAll(java.util.Map.of())).isInstanceOf(IllegalStateException.class);
        assertThat(cache.isClosed()).isTrue();
    }
}
