package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remapping function (compute, and the view's compute, computeIfPresent and merge) that returns the very
 * instance it was given keeps the entry: no REPLACED removal, as Caffeine has it. The value handed to the
 * function is a fresh copy deserialized from off-heap memory, so "the same value" is that instance, by
 * reference; an equal new object is a new value, REPLACED as before. Before the fix every one of these
 * calls reported the entry REPLACED by itself.
 */
class ComputeKeepingTheValueReportsNoRemovalTest extends ClockedRemovalsTestBase {

    @Test
    void computeReturningTheGivenValueReportsNothing() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            cache.put("k", "v");
            AtomicReference<String> given = new AtomicReference<>();
            String result = cache.compute("k", (k, v) -> {
                given.set(v);
                return v;
            });
            assertThat(result).isSameAs(given.get()).isEqualTo("v");
            assertThat(cache.getIfPresent("k")).isEqualTo("v");
            assertThat(cache.size()).isEqualTo(1);
            assertThat(removed).isEmpty();
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    @Test
    void theViewsComputeComputeIfPresentAndMergeReturningTheGivenValueReportNothing() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            map.put("k", "v");
            assertThat(removed).isEmpty();

            assertThat(map.compute("k", (k, v) -> v)).isEqualTo("v");
            assertThat(map.computeIfPresent("k", (k, v) -> v)).isEqualTo("v");
            assertThat(map.merge("k", "other", (old, given) -> old)).isEqualTo("v");

            assertThat(removed).isEmpty();
            assertThat(map).containsExactly(java.util.Map.entry("k", "v"));
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    @Test
    void anEqualButNewValueIsStillReplaced() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            cache.put("k", "v");

            cache.compute("k", (k, v) -> new String(v));
            map.compute("k", (k, v) -> new String(v));
            map.computeIfPresent("k", (k, v) -> new String(v));
            map.merge("k", "v", (old, given) -> new String(old));
            // merge's own argument is not the value it was given as the present one
            map.merge("k", "v", (old, given) -> given);

            assertThat(removed).containsExactly("k=v:REPLACED", "k=v:REPLACED", "k=v:REPLACED", "k=v:REPLACED",
                    "k=v:REPLACED");
            assertThat(cache.getIfPresent("k")).isEqualTo("v");
        }
    }

    @Test
    void keepingTheValueAfterAnotherChangeTellsOnlyTheOtherChange() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            cache.put("k", "1");
            cache.compute("k", (k, v) -> "2");
            cache.compute("k", (k, v) -> v);
            cache.compute("k", (k, v) -> null);
            assertThat(removed).containsExactly("k=1:REPLACED", "k=2:EXPLICIT");
            assertThat(cache.getIfPresent("k")).isNull();
        }
    }

    /** The returned instance is what is stored: a change made to it in place is kept, and told as no removal. */
    @Test
    void aValueChangedInPlaceAndReturnedIsStoredWithoutARemoval() {
        List<String> heard = new ArrayList<>();
        try (OffHeapCache<String, byte[]> cache = OffHeapCache.builder(Serializer.strings(), Serializer.byteArrays())
                .capacity(1 << 20).concurrencyLevel(1)
                .removalListener((k, v, cause) -> heard.add(k + "=" + new String(v) + ":" + cause)).build()) {
            cache.put("k", "abc".getBytes());
            cache.compute("k", (k, v) -> {
                v[0] = 'x';
                return v;
            });
            assertThat(cache.getIfPresent("k")).asString().isEqualTo("xbc");
            assertThat(heard).isEmpty();
        }
    }

    /**
     * Keeping the value is still a write, as in Caffeine's compute: the time after write counts from it.
     */
    @Test
    void keepingTheValueRestartsTheTimeAfterWrite() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(10)).build()) {
            cache.put("k", "v");
            advance(Duration.ofSeconds(6));
            cache.asMap().computeIfPresent("k", (k, v) -> v);
            advance(Duration.ofSeconds(6)); // 12 s after the put, 6 s after the compute
            assertThat(cache.getIfPresent("k")).isEqualTo("v");
            advance(Duration.ofSeconds(5));
            assertThat(cache.getIfPresent("k")).isNull();
            cache.invalidate("k");
            assertThat(removed).containsExactly("k=v:EXPIRED");
        }
    }

    /**
     * The view's put is a put, whatever instance the serializer reads back: with {@code Integer.valueOf}'s
     * cached instances the previous value can be the very object put, and the put still reports the value it
     * overwrote REPLACED, as the cache's own put does.
     */
    @Test
    void theViewsPutOfTheSameInstanceIsStillReplaced() {
        List<String> heard = new ArrayList<>();
        try (OffHeapCache<String, Integer> cache = OffHeapCache.builder(Serializer.strings(), Serializer.integers())
                .capacity(1 << 20).concurrencyLevel(1)
                .removalListener((k, v, cause) -> heard.add(k + "=" + v + ":" + cause)).build()) {
            Integer five = 5;
            cache.put("k", five);
            assertThat(cache.getIfPresent("k")).as("the serializer reads back the cached instance").isSameAs(five);
            cache.put("k", five);
            assertThat(cache.asMap().put("k", five)).isSameAs(five);
            assertThat(heard).containsExactly("k=5:REPLACED", "k=5:REPLACED");
        }
    }
}
