package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The removal listener: its cause where two ways to the same removal disagreed, and every removal of a
 * call told even after the listener threw an Error.
 */
class RemovalCauseRaceTest {

    private record Removal(String key, String value, RemovalCause cause) {
    }

    @Test
    void anIteratorRemovingAnEntryThatExpiredMeanwhileReportsItExpiredAsInvalidateDoes() {
        AtomicLong nanos = new AtomicLong();
        List<Removal> removals = new ArrayList<>();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).clock(nanos::get)
                .removalListener((k, v, cause) -> removals.add(new Removal(k, v, cause))).build()) {
            cache.put("long-lived", "1", Duration.ofHours(1)); // the queue's head, never expired here
            cache.put("short", "2", Duration.ofMillis(10));
            Iterator<String> keys = cache.keys();
            String key;
            do {
                key = keys.next();
            } while (!key.equals("short"));
            nanos.addAndGet(Duration.ofMillis(20).toNanos()); // "short" expires between next() and remove()
            keys.remove();

            assertThat(removals).containsExactly(new Removal("short", "2", RemovalCause.EXPIRED));
            assertThat(cache.stats().expirationCount()).isEqualTo(1);
        }
    }

    @Test
    void computeIfAbsentLeavesAnEntryPutByAnotherThreadMeanwhileAsItIs() {
        AtomicLong nanos = new AtomicLong();
        List<Removal> removals = new ArrayList<>();
        AtomicReference<OffHeapCache<String, String>> holder = new AtomicReference<>();
        AtomicInteger sizing = new AtomicInteger();
        Thread testThread = Thread.currentThread();
        // a key serializer that lets another thread put the key between computeIfAbsent's look-up and its
        // write: the window a concurrent put can fall into
        Serializer<String> keys = new Serializer<>() {
            @Override
            public int serializedSize(String value) {
                if (Thread.currentThread() == testThread && value.equals("k") && sizing.incrementAndGet() == 2) {
                    Thread other = Thread.ofPlatform().start(() -> holder.get().put("k", "theirs"));
                    try {
                        other.join();
                        nanos.set(Duration.ofMillis(50).toNanos()); // the compute comes 50 ms after that put
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
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
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(keys, Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).clock(nanos::get).expireAfterWrite(Duration.ofMillis(100))
                .removalListener((k, v, cause) -> removals.add(new Removal(k, v, cause))).build()) {
            holder.set(cache);
            ConcurrentMap<String, String> map = cache.asMap();

            assertThat(map.computeIfAbsent("k", k -> "mine")).isEqualTo("theirs");
            assertThat(removals).as("nothing was replaced").isEmpty();
            // the entry keeps the deadline of its put: a rewrite would have pushed it out
            nanos.set(Duration.ofMillis(120).toNanos());
            sizing.set(10);
            assertThat(cache.getIfPresent("k")).as("expired 100 ms after its put").isNull();
        }
    }

    @Test
    void theMapViewsOtherWritesStillTellTheirCauses() {
        List<Removal> removals = new ArrayList<>();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).removalListener((k, v, cause) -> removals.add(new Removal(k, v, cause))).build()) {
            Map<String, String> map = cache.asMap();
            assertThat(map.computeIfAbsent("a", k -> "1")).isEqualTo("1");
            assertThat(map.computeIfAbsent("a", k -> "2")).isEqualTo("1");
            assertThat(map.computeIfAbsent("b", k -> null)).isNull();
            assertThat(map.containsKey("b")).isFalse();
            map.put("a", "3");
            map.computeIfPresent("a", (k, v) -> null);
            assertThat(removals).containsExactly(new Removal("a", "1", RemovalCause.REPLACED),
                    new Removal("a", "3", RemovalCause.EXPLICIT));
        }
    }
    @Test
    void aListenerThatThrowsAnErrorStillHearsOfEveryOtherRemovalOfThatCall() {
        List<Removal> removals = new ArrayList<>();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(1).removalListener((k, v, cause) -> {
                    removals.add(new Removal(k, v, cause));
                    if (k.equals("a")) {
                        throw new AssertionError("a listener's own failure");
                    }
                }).build()) {
            cache.put("a", "1");
            cache.put("b", "2");
            cache.put("c", "3");
            assertThatThrownBy(cache::invalidateAll).isInstanceOf(AssertionError.class);
            assertThat(cache.size()).isZero();
            // every entry that left was told once, though the listener's Error stopped the loop at "a"
            assertThat(removals).extracting(Removal::key).containsExactlyInAnyOrder("a", "b", "c");
        }
    }
}
