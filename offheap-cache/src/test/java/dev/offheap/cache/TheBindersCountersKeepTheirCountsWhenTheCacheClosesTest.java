package dev.offheap.cache;

import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Micrometer binder's counters are cumulative: once the cache is closed they keep the counts last read, as
 * the binder's documentation says ("their last counts stop moving") and as Micrometer's own function counters do
 * once their object is gone. They fell to NaN, which a backend that rates a counter reads as a reset or a gap;
 * the gauges still report NaN.
 */
class TheBindersCountersKeepTheirCountsWhenTheCacheClosesTest {

    @Test
    void countersAndTheLoadTimerKeepTheirLastValuesAndGaugesReportNaN() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).build();
        new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
        cache.put("a", "1");
        cache.getIfPresent("a");
        cache.getIfPresent("b");
        cache.get("c", k -> "3");
        for (int i = 0; i < 2000; i++) {
            cache.put("k" + i, "v".repeat(100));
        }
        Map<Meter.Id, Double> before = new HashMap<>();
        for (FunctionCounter counter : registry.get("cache.gets").functionCounters()) {
            before.put(counter.getId(), counter.count());
        }
        for (String name : new String[]{"cache.evictions", "cache.eviction.weight", "cache.expirations", "cache.load"}) {
            for (FunctionCounter counter : registry.get(name).functionCounters()) {
                before.put(counter.getId(), counter.count());
            }
        }
        // read as a registry's poll reads them: the values kept are the ones last read
        assertThat(registry.get("cache.load.duration").functionTimer().count()).isEqualTo(1);
        double loadTime = registry.get("cache.load.duration").functionTimer().totalTime(TimeUnit.NANOSECONDS);
        assertThat(before.values()).doesNotContain(Double.NaN);
        assertThat(registry.get("cache.evictions").functionCounter().count()).isPositive();
        assertThat(loadTime).isPositive();

        cache.close();

        for (Map.Entry<Meter.Id, Double> entry : before.entrySet()) {
            FunctionCounter counter = registry.find(entry.getKey().getName()).tags(entry.getKey().getTags())
                    .functionCounter();
            assertThat(counter.count()).as("%s after close", entry.getKey()).isEqualTo(entry.getValue());
        }
        assertThat(registry.get("cache.load.duration").functionTimer().count()).isEqualTo(1);
        assertThat(registry.get("cache.load.duration").functionTimer().totalTime(TimeUnit.NANOSECONDS))
                .isEqualTo(loadTime);
        for (String gauge : new String[]{"cache.size", "cache.weight", "cache.memory.used", "cache.memory.capacity"}) {
            assertThat(registry.get(gauge).gauge().value()).as(gauge).isNaN();
        }
    }
}
