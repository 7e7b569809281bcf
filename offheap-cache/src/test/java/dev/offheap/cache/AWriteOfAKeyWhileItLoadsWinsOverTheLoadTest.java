package dev.offheap.cache;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write or removal of a key made while the key's value is loaded wins over the load, whichever write it
 * is and whatever it finds: the load gives its value to the caller that ran the loader but does not store
 * it, so that a value read from the source before the write never overwrites it. A conditional write or a
 * compute that found the key absent and left it so (a compute whose function gives null, a replace, a
 * conditional remove) let the load store its older value afterwards: a {@code compute(k, (k, v) -> null)}
 * made to drop the key was undone by the load that was running when it was called. And a caller that comes
 * for the key after such a write, while the superseded load still runs, waits for that load and then reads
 * the key again (loading it anew if it is absent) instead of taking the superseded load's value: it was
 * handed the value read before an invalidate it came after.
 */
class AWriteOfAKeyWhileItLoadsWinsOverTheLoadTest {

    private static final String LOADED = "read-from-the-source-before-the-write";

    /** A write made while the load runs, and what the key holds after it (null: absent). */
    private record Write(String name, WriteAction action, String leaves) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    private interface WriteAction {
        void run(OffHeapCache<String, String> cache);
    }

    private static List<Write> writes() {
        return List.of(
                new Write("put", c -> c.put("k", "w"), "w"),
                new Write("put with a time to live", c -> c.put("k", "w", Duration.ofHours(1)), "w"),
                new Write("putAll", c -> c.putAll(Map.of("k", "w")), "w"),
                new Write("putIfAbsent", c -> assertThat(c.putIfAbsent("k", "w")).isNull(), "w"),
                new Write("replace(key, value)", c -> assertThat(c.replace("k", "w")).isNull(), null),
                new Write("replace(key, old, new)", c -> assertThat(c.replace("k", "v", "w")).isFalse(), null),
                new Write("remove(key)", c -> assertThat(c.remove("k")).isNull(), null),
                new Write("remove(key, value)", c -> assertThat(c.remove("k", "v")).isFalse(), null),
                new Write("invalidate", c -> c.invalidate("k"), null),
                new Write("invalidateAll", OffHeapCache::invalidateAll, null),
                new Write("compute giving a value", c -> c.compute("k", (k, v) -> "w"), "w"),
                new Write("compute giving null", c -> assertThat(c.compute("k", (k, v) -> null)).isNull(), null),
                new Write("the view's computeIfPresent",
                        c -> assertThat(c.asMap().computeIfPresent("k", (k, v) -> "w")).isNull(), null),
                new Write("the view's computeIfAbsent giving null",
                        c -> assertThat(c.asMap().computeIfAbsent("k", k -> null)).isNull(), null),
                new Write("the view's computeIfAbsent giving a value",
                        c -> c.asMap().computeIfAbsent("k", k -> "w"), "w"),
                new Write("the view's merge", c -> c.asMap().merge("k", "w", (a, b) -> a + b), "w"),
                new Write("the view's clear", c -> c.asMap().clear(), null));
    }

    private static final List<String> LOAD_KINDS =
            List.of("get(key, loader)", "get(key)", "getAll", "readOrLoad");

    static Stream<Arguments> everyWriteDuringEveryKindOfLoad() {
        List<Arguments> cases = new ArrayList<>();
        for (String load : LOAD_KINDS) {
            for (Write write : writes()) {
                cases.add(Arguments.of(load, write));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{1} during {0}")
    @MethodSource("everyWriteDuringEveryKindOfLoad")
    void theLoadGivesItsValueToItsCallerAndDoesNotStoreIt(String load, Write write) throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CacheLoader<String, String> blocking = key -> {
            loading.countDown();
            await(release);
            return LOADED;
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(blocking).build()) {
            CompletableFuture<Object> caller = CompletableFuture.supplyAsync(() -> switch (load) {
                case "get(key, loader)" -> cache.get("k", key -> {
                    try {
                        return blocking.load(key);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
                case "get(key)" -> cache.get("k");
                case "getAll" -> cache.getAll(List.of("k")).get("k");
                case "readOrLoad" -> cache.readOrLoad("k", key -> {
                    try {
                        return blocking.load(key);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }, Serializer.strings()::read);
                default -> throw new IllegalArgumentException(load);
            }, Thread::startVirtualThread);
            await(loading);
            write.action().run(cache);
            release.countDown();

            // readOrLoad's reader sees the stored bytes, the write's value where it stored one
            String expected = "readOrLoad".equals(load) && write.leaves() != null ? write.leaves() : LOADED;
            assertThat(caller.get(10, TimeUnit.SECONDS)).as("what the load's caller gets").isEqualTo(expected);
            assertThat(cache.getIfPresent("k")).as("what the key holds after the load").isEqualTo(write.leaves());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"get(key, loader)", "getAll"})
    void aCallerThatComesAfterTheWriteDoesNotTakeTheSupersededLoadsValue(String how) throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger loads = new AtomicInteger();
        CacheLoader<String, String> loader = key -> {
            if (loads.incrementAndGet() == 1) {
                loading.countDown();
                await(release);
                return LOADED;
            }
            return "read-after-the-invalidate";
        };
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).loader(loader).build()) {
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> cache.get("k"),
                    Thread::startVirtualThread);
            await(loading);
            cache.invalidate("k");

            CompletableFuture<String> later = new CompletableFuture<>();
            Thread laterThread = Thread.ofPlatform().daemon(true).start(() -> {
                try {
                    later.complete("getAll".equals(how) ? cache.getAll(List.of("k")).get("k") : cache.get("k"));
                } catch (Throwable e) {
                    later.completeExceptionally(e);
                }
            });
            awaitWaiting(laterThread);
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(LOADED);
            assertThat(later.get(10, TimeUnit.SECONDS)).isEqualTo("read-after-the-invalidate");
            assertThat(cache.getIfPresent("k")).isEqualTo("read-after-the-invalidate");
            assertThat(loads.get()).isEqualTo(2);
        }
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

    /** Waits until {@code thread} parks (waiting for the first load), or 10 s. */
    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING
                && System.nanoTime() < end) {
            Thread.sleep(1);
        }
    }
}
