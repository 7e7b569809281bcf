package dev.offheap.cache;

import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import dev.offheap.memory.Budget;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;

import static org.assertj.core.api.Assertions.assertThat;

/** What the cache reports to tools: the Micrometer binder against a cache the application drops. */
class MetricsBinderRetentionTest {
    private static final long CAPACITY = 4L << 20;

    /**
     * The binder's javadoc: "binding a cache does not keep it alive". An application that keeps its
     * binders (a dependency-injection container's list of {@code MeterBinder}s, say) and drops a cache
     * without closing it must still get the cache's native memory back once the cache is unreachable; the
     * binder held the cache strongly, so the cache was never collected and its budget never given back.
     */
    @Test
    void aRetainedBinderDoesNotKeepADroppedCacheAlive() {
        Budget budget = Budget.root("binder-retained", 64L << 20);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OffHeapCache<String, String> bound = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(CAPACITY).budget(budget).name("binder-retained").build();
        for (int i = 0; i < 10; i++) {
            bound.put("k" + i, "v" + i);
        }
        OffHeapCacheMetrics binder = new OffHeapCacheMetrics(bound, "binder-retained", Tags.empty());
        binder.bindTo(registry);
        assertThat(registry.get("cache.size").gauge().value()).isEqualTo(10.0);
        WeakReference<OffHeapCache<String, String>> cache = new WeakReference<>(bound);
        bound = null;

        assertThat(UnclosedCacheTest.collectUntil(() -> cache.get() == null)).as("cache collected while its binder is kept").isTrue();
        assertThat(UnclosedCacheTest.collectUntil(() -> budget.used() == 0)).as("budget given back").isTrue();
        assertThat(registry.get("cache.size").gauge().value()).isNaN();
        // the binder is still usable: binding it again after the cache is gone registers nothing new
        SimpleMeterRegistry later = new SimpleMeterRegistry();
        binder.bindTo(later);
        assertThat(later.getMeters()).isEmpty();
    }
}
