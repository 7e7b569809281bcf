package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The entry iterator after close, and streams of the map views over expiring and changing entries. */
class IterationAfterCloseAndViewStreamsTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private CacheBuilder<String, String> builder() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).clock(nanos::get);
    }

    /**
     * entries() looks the next entry up in hasNext(): with one looked up before close, hasNext() and next()
     * went on after close (next() handing out that entry), where keys() and every other call throw.
     */
    @Test
    void entryIteratorsThrowAfterCloseEvenWithAnEntryLookedAhead() {
        OffHeapCache<String, String> cache = builder().concurrencyLevel(1).build();
        for (int i = 0; i < 10; i++) {
            cache.put("k" + i, "v" + i);
        }
        Iterator<Map.Entry<String, String>> entries = cache.entries();
        Iterator<Map.Entry<String, String>> viewEntries = cache.asMap().entrySet().iterator();
        Iterator<String> viewValues = cache.asMap().values().iterator();
        // hasNext() looks the next entry up ahead of next()
        assertThat(entries.hasNext()).isTrue();
        assertThat(viewEntries.hasNext()).isTrue();
        assertThat(viewValues.hasNext()).isTrue();
        cache.close();
        for (Iterator<?> iterator : List.of(entries, viewEntries, viewValues)) {
            assertThatThrownBy(iterator::hasNext).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
            assertThatThrownBy(iterator::next).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
    }

    /**
     * The map view's key, value and entry sets took Collection's default spliterator, which reports SIZED
     * with size(): a count that includes expired entries not yet removed (and misses entries added while a
     * stream runs), where the iterator skips them. A sized stream's toArray() or toList() then threw
     * IllegalStateException ("End size 1 is less than fixed size 3").
     */
    @Test
    void streamsOfTheMapViewSkipExpiredEntriesNotYetRemoved() {
        try (OffHeapCache<String, String> cache = builder().concurrencyLevel(1)
                .expireAfterWrite(Duration.ofSeconds(10)).build()) {
            cache.put("old1", "a");
            cache.put("old2", "b");
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
            cache.put("new", "c");
            nanos.addAndGet(Duration.ofSeconds(6).toNanos()); // old1 and old2 expired, not yet removed
            assertThat(cache.size()).as("size counts expired entries not yet removed").isEqualTo(3);
            var map = cache.asMap();
            assertThat(map.keySet().stream().toList()).containsExactly("new");
            assertThat(map.values().stream().toArray()).containsExactly("c");
            assertThat(map.entrySet().stream().map(Map.Entry::getKey).toList()).containsExactly("new");
            assertThat(map.keySet().stream().count()).isEqualTo(1);
        }
    }

    /** The same with more entries than size(): puts while a stream ran made its toArray() throw. */
    @Test
    void streamsOfTheMapViewTakeEntriesAddedMeanwhile() {
        try (OffHeapCache<String, String> cache = builder().concurrencyLevel(2).build()) {
            for (int i = 0; i < 20; i++) {
                cache.put("k" + i, "v" + i);
            }
            boolean[] added = new boolean[1];
            Object[] keys = cache.asMap().keySet().stream().peek(key -> {
                if (!added[0]) {
                    added[0] = true;
                    for (int i = 0; i < 40; i++) {
                        cache.put("added" + i, "v"); // some in the segment the stream has yet to walk
                    }
                }
            }).toArray();
            assertThat(keys).doesNotContainNull().hasSizeGreaterThan(20).contains("k0", "k19");
        }
    }
}
