package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code replace(key, value)} and {@code remove(key)} return the value they take away, deserialized. They
 * deserialized it after the change was made: a value serializer that could not read the old value made
 * them throw a SerializationException, which says the entry was rejected, while the new value had been
 * stored (or the entry removed) and the removal listener told of it. Now the old value is read before
 * anything changes, as compute reads it: the call throws and the entry stays as it was.
 */
class AnOldValueThatCannotBeReadLeavesTheEntryAsItWasTest {

    /** Strings as UTF-8, but for "unreadable", which its read refuses. */
    private static final Serializer<String> REFUSES_TO_READ_UNREADABLE = new Serializer<>() {
        @Override
        public int serializedSize(String value) {
            return value.getBytes(StandardCharsets.UTF_8).length;
        }

        @Override
        public void write(String value, MemorySegment target) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(bytes, 0, target, ValueLayout.JAVA_BYTE, 0, bytes.length);
        }

        @Override
        public String read(MemorySegment source) {
            String value = new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            if (value.equals("unreadable")) {
                throw new IllegalArgumentException("cannot read this one");
            }
            return value;
        }
    };

    private static String storedBytes(OffHeapCache<String, String> cache, String key) {
        return cache.readQuietly(key, segment -> new String(segment.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
    }

    private static OffHeapCache<String, String> cacheTelling(List<RemovalCause> told) {
        return OffHeapCache.builder(Serializer.strings(), REFUSES_TO_READ_UNREADABLE).capacity(1 << 20)
                .removalListener((key, value, cause) -> told.add(cause)).build();
    }

    @Test
    void aReplaceWhoseOldValueCannotBeReadStoresNothingAndTellsNothing() {
        List<RemovalCause> told = new ArrayList<>();
        try (OffHeapCache<String, String> cache = cacheTelling(told)) {
            cache.put("k", "unreadable");
            long weighted = cache.weightedSize();

            assertThatThrownBy(() -> cache.replace("k", "a new value of another size"))
                    .isInstanceOf(SerializationException.class).hasMessageContaining("threw in read");
            assertThatThrownBy(() -> cache.replace("k", "same size!"))
                    .isInstanceOf(SerializationException.class);

            assertThat(storedBytes(cache, "k")).isEqualTo("unreadable");
            assertThat(cache.size()).isEqualTo(1);
            assertThat(cache.weightedSize()).isEqualTo(weighted);
            assertThat(told).isEmpty();
        }
    }

    @Test
    void aRemoveWhoseOldValueCannotBeReadRemovesNothingAndTellsNothing() {
        List<RemovalCause> told = new ArrayList<>();
        try (OffHeapCache<String, String> cache = cacheTelling(told)) {
            cache.put("k", "unreadable");

            assertThatThrownBy(() -> cache.remove("k"))
                    .isInstanceOf(SerializationException.class).hasMessageContaining("threw in read");

            assertThat(storedBytes(cache, "k")).isEqualTo("unreadable");
            assertThat(cache.size()).isEqualTo(1);
            assertThat(told).isEmpty();
            cache.invalidate("k"); // removes it without reading it
            assertThat(cache.size()).isZero();
        }
    }

    @Test
    void aReplaceOrRemoveOfAReadableValueStillReturnsIt() {
        List<RemovalCause> told = new ArrayList<>();
        try (OffHeapCache<String, String> cache = cacheTelling(told)) {
            cache.put("k", "first");
            assertThat(cache.replace("k", "second")).isEqualTo("first");
            assertThat(cache.remove("k")).isEqualTo("second");
            assertThat(cache.replace("k", "third")).isNull();
            assertThat(cache.remove("k")).isNull();
            assertThat(told).containsExactly(RemovalCause.REPLACED, RemovalCause.EXPLICIT);
        }
    }
}
