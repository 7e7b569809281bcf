package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A putAll whose map holds a value the cache cannot store (over the entry limit, refused by the value
 * serializer, written shorter than the serializer declared) stores every other entry, and then throws the
 * failure: the first in the map's order, those of later entries suppressed in it. It stopped at the first
 * such value: the entries after it were not stored, and the failures of later ones were never heard of.
 * The entry that could not be stored keeps its previous value, and the cache counts only what it holds.
 */
class APutAllStoresEveryEntryItCanTest {
    private static final String TOO_LARGE = "x".repeat(4096);
    private static final String REFUSED = "refused by the serializer";
    private static final String WRITTEN_SHORT = "declared one byte longer than written";

    /** Strings, but {@link #REFUSED} makes the serializer throw and {@link #WRITTEN_SHORT} is written short. */
    private static final Serializer<String> FAILING = new Serializer<>() {
        @Override
        public int serializedSize(String value) {
            if (value.equals(REFUSED)) {
                throw new IllegalArgumentException("cannot serialize " + value);
            }
            int size = Serializer.strings().serializedSize(value);
            return value.equals(WRITTEN_SHORT) ? size + 1 : size;
        }

        @Override
        public void write(String value, MemorySegment target) {
            Serializer.strings().write(value, value.equals(WRITTEN_SHORT) ? target.asSlice(0, target.byteSize() - 1)
                    : target);
        }

        @Override
        public String read(MemorySegment source) {
            return Serializer.strings().read(source);
        }
    };

    private static OffHeapCache<String, String> cache(List<String> removals) {
        return OffHeapCache.builder(Serializer.strings(), FAILING).capacity(1 << 20).maxEntryBytes(1024)
                .removalListener((key, value, cause) -> removals.add(key + "=" + value + " " + cause)).build();
    }

    private static Map<String, String> inOrder(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static final Map<String, String> MIXED = inOrder("a", "value of a", "big", TOO_LARGE,
            "b", "value of b", "refused", REFUSED, "short", WRITTEN_SHORT, "c", "value of c");

    @Test
    void theEntriesAfterOneThatCannotBeStoredAreStoredAndTheFirstFailureIsThrown() {
        List<String> removals = new ArrayList<>();
        try (OffHeapCache<String, String> cache = cache(removals)) {
            cache.put("refused", "old value");

            Throwable failure = catchThrowable(() -> cache.putAll(MIXED));

            assertThat(failure).isInstanceOf(ValueTooLargeException.class);
            assertThat(failure.getSuppressed()).hasSize(2)
                    .allSatisfy(later -> assertThat(later).isInstanceOf(SerializationException.class));
            assertStoredAroundTheFailures(cache);
            assertThat(removals).as("nothing of the entries that could not be stored was written")
                    .isEmpty();
        }
    }

    @Test
    void theMapViewsPutAllStoresEveryEntryItCanToo() {
        List<String> removals = new ArrayList<>();
        try (OffHeapCache<String, String> cache = cache(removals)) {
            cache.put("refused", "old value");

            Throwable failure = catchThrowable(() -> cache.asMap().putAll(MIXED));

            assertThat(failure).isInstanceOf(ValueTooLargeException.class);
            assertThat(failure.getSuppressed()).hasSize(2);
            assertStoredAroundTheFailures(cache);
        }
    }

    @Test
    void theCacheHoldsAndCountsWhatAPutAllOfTheStorableEntriesAloneWouldHave() {
        try (OffHeapCache<String, String> failed = cache(new ArrayList<>());
             OffHeapCache<String, String> plain = cache(new ArrayList<>())) {
            catchThrowable(() -> failed.putAll(MIXED));
            plain.putAll(inOrder("a", "value of a", "b", "value of b", "c", "value of c"));

            assertThat(failed.size()).isEqualTo(plain.size()).isEqualTo(3);
            assertThat(failed.weightedSize()).isEqualTo(plain.weightedSize());
        }
    }

    private static void assertStoredAroundTheFailures(OffHeapCache<String, String> cache) {
        assertThat(cache.getIfPresent("a")).isEqualTo("value of a");
        assertThat(cache.getIfPresent("b")).isEqualTo("value of b");
        assertThat(cache.getIfPresent("c")).isEqualTo("value of c");
        assertThat(cache.getIfPresent("big")).isNull();
        assertThat(cache.getIfPresent("short")).isNull();
        assertThat(cache.getIfPresent("refused")).as("the entry keeps its previous value").isEqualTo("old value");
        assertThat(cache.size()).isEqualTo(4);
    }
}
