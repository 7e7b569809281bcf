package dev.offheap.cache;

import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cache built with {@code recordStats(false)} counts nothing: bound to a registry, its counters and load timer
 * read 0 for ever, which a dashboard shows as a cache that is never used (no gets, no evictions) rather than one
 * that does not count. The binder registers its gauges only, as Micrometer's CaffeineCacheMetrics registers only
 * cache.size for a Caffeine cache that records no statistics.
 */
class ABinderOfACacheWithoutStatisticsRegistersOnlyItsGaugesTest {

    @Test
    void onlyTheGaugesAreRegistered() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).recordStats(false).build()) {
            new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
            cache.put("a", "1");
            cache.getIfPresent("a");
            TreeSet<String> names = new TreeSet<>();
            for (Meter meter : registry.getMeters()) {
                names.add(meter.getId().getName());
            }
            assertThat(names).containsExactly("cache.memory.capacity", "cache.memory.used", "cache.size", "cache.weight");
            assertThat(registry.get("cache.size").gauge().value()).isEqualTo(1);
        }
    }

    @Test
    void aCacheThatRecordsStatisticsGetsEveryMeter() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).build()) {
            new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
            TreeSet<String> names = new TreeSet<>();
            for (Meter meter : registry.getMeters()) {
                names.add(meter.getId().getName());
            }
            assertThat(names).containsExactly("cache.eviction.weight", "cache.evictions", "cache.expirations",
                    "cache.gets", "cache.load", "cache.load.duration", "cache.memory.capacity", "cache.memory.used",
                    "cache.size", "cache.weight");
        }
    }
}
