package dev.offheap.cache;

import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The Micrometer binder's meters: their units as documented, and what they report once the cache is closed. */
class MicrometerBinderUnitsTest {

    @Test
    void everyMeterOfBytesHasTheBaseUnitBytes() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).build()) {
            new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
            // the binder's documentation: cache.eviction.weight, cache.weight, cache.memory.used and
            // cache.memory.capacity, "all in bytes"
            for (String name : new String[]{"cache.eviction.weight", "cache.weight", "cache.memory.used",
                    "cache.memory.capacity"}) {
                assertThat(registry.get(name).meter().getId().getBaseUnit()).as(name).isEqualTo("bytes");
            }
        }
    }

    @Test
    void theLoadTimersCountDoesNotFallToZeroWhenTheCacheCloses() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).build();
        new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
        cache.get("a", k -> "1");
        cache.get("b", k -> "2");
        assertThat(registry.get("cache.load.duration").functionTimer().count()).isEqualTo(2);
        cache.close();
        // a cumulative count that drops reads as a counter reset to every backend that rates it
        double count = registry.get("cache.load.duration").functionTimer().count();
        assertThat(count == 2 || Double.isNaN(count)).as("count after close: %s", count).isTrue();
    }
}
