package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The map view's {@code replaceAll}: a function that returns the very instance it was given (the fresh copy
 * read for it) changes nothing and tells nothing, as compute and merge have it; a new value replaces the
 * old one and is told REPLACED. Before the fix it went through ConcurrentMap's default, a
 * {@code replace(key, old, new)} per entry, which reported every entry REPLACED by itself, and a function
 * that changed the value in place and returned it looped for ever (the value it compared had changed too).
 */
class ReplaceAllKeepingTheValueReportsNoRemovalTest extends ClockedRemovalsTestBase {

    @Test
    void aFunctionReturningTheGivenValueReportsNothing() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            map.put("a", "1");
            map.put("b", "2");
            List<String> seen = new ArrayList<>();

            map.replaceAll((k, v) -> {
                seen.add(k + "=" + v);
                return v;
            });

            assertThat(seen).containsExactlyInAnyOrder("a=1", "b=2");
            assertThat(removed).isEmpty();
            assertThat(map).containsExactlyInAnyOrderEntriesOf(Map.of("a", "1", "b", "2"));
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    @Test
    void onlyTheEntriesGivenANewValueAreReplaced() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            map.put("a", "1");
            map.put("b", "2");
            map.put("c", "3");

            // an equal but new object is a new value, as in compute
            map.replaceAll((k, v) -> k.equals("a") ? "10" : k.equals("b") ? new String(v) : v);

            assertThat(removed).containsExactlyInAnyOrder("a=1:REPLACED", "b=2:REPLACED");
            assertThat(map).containsExactlyInAnyOrderEntriesOf(Map.of("a", "10", "b", "2", "c", "3"));
            ((OffHeapCacheImpl<?, ?>) cache).verify();
        }
    }

    /** Keeping the value changes nothing: not even the time after write restarts (no write happens). */
    @Test
    void keepingTheValueLeavesTheEntrysTimesAlone() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(10)).build()) {
            cache.put("k", "v");
            advance(Duration.ofSeconds(6));
            cache.asMap().replaceAll((k, v) -> v);
            advance(Duration.ofSeconds(5)); // 11 s after the put
            assertThat(cache.getIfPresent("k")).isNull();
        }
    }

    /**
     * A value changed in place and returned is stored, untold, as compute has it; before, the default's
     * {@code replace(key, changed, changed)} never matched the stored value and retried for ever.
     */
    @Test
    void aValueChangedInPlaceAndReturnedIsStoredWithoutARemoval() {
        List<String> heard = new ArrayList<>();
        try (OffHeapCache<String, byte[]> cache = OffHeapCache.builder(Serializer.strings(), Serializer.byteArrays())
                .capacity(1 << 20).concurrencyLevel(1)
                .removalListener((k, v, cause) -> heard.add(k + "=" + new String(v) + ":" + cause)).build()) {
            cache.put("k", "abc".getBytes());
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> cache.asMap().replaceAll((k, v) -> {
                v[0] = 'x';
                return v;
            }));
            assertThat(cache.getIfPresent("k")).asString().isEqualTo("xbc");
            assertThat(heard).isEmpty();
        }
    }

    /** The function runs with no lock of the cache held, as it did: it may use the cache. */
    @Test
    void theFunctionMayUseTheCache() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            map.put("a", "1");
            map.put("b", "2");
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> map.replaceAll((k, v) -> {
                cache.put("other-of-" + k, cache.getIfPresent(k));
                return v + "!";
            }));
            assertThat(map.get("a")).isEqualTo("1!");
            assertThat(map.get("b")).isEqualTo("2!");
            assertThat(map.get("other-of-a")).startsWith("1");
        }
    }

    /** A value written between the function's look and its store wins a new turn of the function. */
    @Test
    void aValueChangedMeanwhileIsGivenToTheFunctionAgain() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            ConcurrentMap<String, String> map = cache.asMap();
            map.put("k", "1");
            List<String> given = new ArrayList<>();
            map.replaceAll((k, v) -> {
                given.add(v);
                if (v.equals("1")) {
                    cache.put("k", "2");
                }
                return v + "+";
            });
            assertThat(given).containsExactly("1", "2");
            assertThat(map.get("k")).isEqualTo("2+");
            assertThat(removed).containsExactly("k=1:REPLACED", "k=2:REPLACED");
        }
    }

    @Test
    void aNullResultIsRefused() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            cache.put("k", "v");
            assertThatThrownBy(() -> cache.asMap().replaceAll((k, v) -> null))
                    .isInstanceOf(NullPointerException.class);
            assertThat(cache.getIfPresent("k")).isEqualTo("v");
        }
    }
}
