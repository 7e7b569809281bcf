package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A removal listener that throws an Error does not stop an operation that removes several entries part-way:
 * every entry is removed (or stored) and told, and then the listener's first Error is thrown, the others
 * suppressed in it, as an operation on one entry throws it once all its removals were told. An exception the
 * listener throws is logged and the operation goes on.
 */
class ABulkOperationFinishesItsWorkWhenTheRemovalListenerThrowsTest {
    private static final int KEYS = 40;

    /** The listener's own failure. */
    private static final class ListenerFailure extends Error {
        private static final long serialVersionUID = 1L;

        ListenerFailure(String message) {
            super(message);
        }
    }

    private record Removal(String key, String value, RemovalCause cause) {
    }

    private final AtomicLong nanos = new AtomicLong();
    private final List<Removal> told = Collections.synchronizedList(new ArrayList<>());

    /** A cache of several segments whose listener records each removal, then throws an Error. */
    private OffHeapCache<String, String> cache(Consumer<CacheBuilder<String, String>> options) {
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(4).clock(nanos::get).removalListener((k, v, cause) -> {
                    told.add(new Removal(k, v, cause));
                    throw new ListenerFailure("the listener failed at " + k);
                });
        options.accept(builder);
        return builder.build();
    }

    private static void fill(OffHeapCache<String, String> cache) {
        for (int i = 0; i < KEYS; i++) {
            cache.put("k" + i, "v" + i);
        }
    }

    private static String[] keys() {
        String[] keys = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "k" + i;
        }
        return keys;
    }

    @Test
    void invalidateAllRemovesAndTellsEveryEntryOfEverySegmentThenThrowsTheListenersFirstError() {
        try (OffHeapCache<String, String> cache = cache(b -> { })) {
            fill(cache);

            assertThatThrownBy(cache::invalidateAll).isInstanceOf(ListenerFailure.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).as("the other removals' failures")
                            .hasSize(KEYS - 1));

            assertThat(cache.size()).isZero();
            assertThat(told).extracting(Removal::key).containsExactlyInAnyOrder(keys());
            assertThat(told).extracting(Removal::cause).containsOnly(RemovalCause.EXPLICIT);
        }
    }

    @Test
    void theMapViewsClearRemovesEveryEntry() {
        try (OffHeapCache<String, String> cache = cache(b -> { })) {
            fill(cache);

            assertThatThrownBy(() -> cache.asMap().keySet().clear()).isInstanceOf(ListenerFailure.class);

            assertThat(cache.asMap()).isEmpty();
            assertThat(told).hasSize(KEYS);
        }
    }

    @Test
    void cleanUpRemovesAndTellsEveryExpiredEntryOfEverySegment() {
        try (OffHeapCache<String, String> cache = cache(b -> b.expireAfterWrite(Duration.ofSeconds(1)))) {
            fill(cache);
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());

            assertThatThrownBy(cache::cleanUp).isInstanceOf(ListenerFailure.class);

            assertThat(cache.size()).as("no expired entry is left waiting").isZero();
            assertThat(cache.stats().expirationCount()).isEqualTo(KEYS);
            assertThat(told).extracting(Removal::key).containsExactlyInAnyOrder(keys());
            assertThat(told).extracting(Removal::cause).containsOnly(RemovalCause.EXPIRED);
        }
    }

    @Test
    void putAllStoresEveryEntryAndTellsEveryValueItReplaced() {
        try (OffHeapCache<String, String> cache = cache(b -> { })) {
            fill(cache);
            Map<String, String> newer = new LinkedHashMap<>();
            for (int i = 0; i < KEYS; i++) {
                newer.put("k" + i, "w" + i);
            }

            assertThatThrownBy(() -> cache.putAll(newer)).isInstanceOf(ListenerFailure.class);

            for (int i = 0; i < KEYS; i++) {
                assertThat(cache.getIfPresent("k" + i)).isEqualTo("w" + i);
            }
            assertThat(told).hasSize(KEYS).extracting(Removal::cause).containsOnly(RemovalCause.REPLACED);
        }
    }

    @Test
    void theMapViewsPutAllStoresEveryEntry() {
        try (OffHeapCache<String, String> cache = cache(b -> { })) {
            fill(cache);
            Map<String, String> newer = new LinkedHashMap<>();
            for (int i = 0; i < KEYS; i++) {
                newer.put("k" + i, "w" + i);
            }

            assertThatThrownBy(() -> cache.asMap().putAll(newer)).isInstanceOf(ListenerFailure.class);

            assertThat(cache.asMap()).isEqualTo(newer);
            assertThat(told).hasSize(KEYS);
        }
    }

    @Test
    void getAllStoresEveryLoadedValueWhenTheListenerFailsOnWhatItsWritesExpired() {
        try (OffHeapCache<String, String> cache = cache(b -> b.concurrencyLevel(1)
                .expireAfterWrite(Duration.ofSeconds(1)).loader(k -> "loaded " + k))) {
            fill(cache);
            nanos.addAndGet(Duration.ofSeconds(2).toNanos()); // the writes of the loads remove these
            List<String> absent = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                absent.add("new" + i);
            }

            assertThatThrownBy(() -> cache.getAll(absent)).isInstanceOf(ListenerFailure.class);

            for (String key : absent) {
                assertThat(cache.asMap().get(key)).as(key).isEqualTo("loaded " + key);
            }
            assertThat(told).isNotEmpty().extracting(Removal::cause).containsOnly(RemovalCause.EXPIRED);
        }
    }

    @Test
    void theMapViewsReplaceAllReplacesEveryValue() {
        try (OffHeapCache<String, String> cache = cache(b -> { })) {
            fill(cache);

            assertThatThrownBy(() -> cache.asMap().replaceAll((k, v) -> v + "!"))
                    .isInstanceOf(ListenerFailure.class);

            for (int i = 0; i < KEYS; i++) {
                assertThat(cache.getIfPresent("k" + i)).isEqualTo("v" + i + "!");
            }
            assertThat(told).hasSize(KEYS).extracting(Removal::cause).containsOnly(RemovalCause.REPLACED);
        }
    }

    @Test
    void theViewsRemoveIfRemovesEveryEntryTheFilterAccepts() {
        List<Consumer<Map<String, String>>> removeIfs = List.of(
                map -> map.keySet().removeIf(k -> true),
                map -> map.values().removeIf(v -> true),
                map -> map.entrySet().removeIf(e -> true));
        for (Consumer<Map<String, String>> removeIf : removeIfs) {
            told.clear();
            try (OffHeapCache<String, String> cache = cache(b -> { })) {
                fill(cache);

                assertThatThrownBy(() -> removeIf.accept(cache.asMap())).isInstanceOf(ListenerFailure.class);

                assertThat(cache.size()).isZero();
                assertThat(told).extracting(Removal::key).containsExactlyInAnyOrder(keys());
            }
        }
    }

    @Test
    void theViewsRemoveAllAndRetainAllRemoveEveryEntryTheyMatch() {
        List<Consumer<Map<String, String>>> removals = List.of(
                map -> map.keySet().removeAll(List.of(keys())),
                map -> map.keySet().retainAll(List.of()),
                map -> map.values().removeAll(new ArrayList<>(map.values())),
                map -> map.values().retainAll(List.of()),
                map -> map.entrySet().removeAll(new ArrayList<>(map.entrySet())),
                map -> map.entrySet().retainAll(List.of()));
        for (Consumer<Map<String, String>> removal : removals) {
            told.clear();
            try (OffHeapCache<String, String> cache = cache(b -> { })) {
                fill(cache);

                assertThatThrownBy(() -> removal.accept(cache.asMap())).isInstanceOf(ListenerFailure.class);

                assertThat(cache.size()).isZero();
                assertThat(told).extracting(Removal::key).containsExactlyInAnyOrder(keys());
            }
        }
    }

    @Test
    void aListenerThatThrowsAnExceptionIsLoggedAndTheOperationGoesOnWithoutThrowing() {
        AtomicLong calls = new AtomicLong();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).concurrencyLevel(4).removalListener((k, v, cause) -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("the listener failed at " + k);
                }).build()) {
            fill(cache);

            cache.invalidateAll();

            assertThat(cache.size()).isZero();
            assertThat(calls).hasValue(KEYS);
        }
    }
}
