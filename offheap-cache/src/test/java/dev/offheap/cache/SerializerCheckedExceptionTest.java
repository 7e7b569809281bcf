package dev.offheap.cache;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A serializer that throws a checked exception it does not declare (Kotlin, Lombok's {@code @SneakyThrows}):
 * the call fails with the documented {@link SerializationException} naming the serializer, with the
 * exception as its cause, and the cache is intact. Before, only runtime exceptions were turned into
 * SerializationException, and the checked one came out of the cache as it was.
 */
class SerializerCheckedExceptionTest {

    /** Where the serializer throws. */
    enum Failing { SIZE, WRITE, READ }

    /** Longs as 8 bytes; throws an IOException, undeclared, from one method for the value 13 (and in read of 13). */
    private record Throwing(Failing where) implements Serializer<Long> {
        @Override
        public int serializedSize(Long value) {
            if (where == Failing.SIZE && value == 13) {
                throw sneaky(new IOException("no size for 13"));
            }
            return Long.BYTES;
        }

        @Override
        public void write(Long value, MemorySegment target) {
            if (where == Failing.WRITE && value == 13) {
                throw sneaky(new IOException("cannot write 13"));
            }
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        }

        @Override
        public Long read(MemorySegment source) {
            long value = source.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            if (where == Failing.READ && value == 13) {
                throw sneaky(new IOException("cannot read 13"));
            }
            return value;
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }

    @ParameterizedTest
    @EnumSource(Failing.class)
    void aCheckedExceptionOfAValueSerializerIsASerializationExceptionAndTheCacheStaysIntact(Failing where) {
        try (OffHeapCache<Long, Long> cache = OffHeapCache.builder(Serializer.longs(), new Throwing(where))
                .capacity(1 << 20).build()) {
            cache.put(1L, 10L);
            long sizeBefore = cache.weightedSize();
            if (where == Failing.READ) {
                cache.put(2L, 13L); // stored fine; reading it back throws
                assertThatThrownBy(() -> cache.getIfPresent(2L)).isInstanceOf(SerializationException.class)
                        .hasCauseInstanceOf(IOException.class).hasMessageContaining("serializer");
                cache.invalidate(2L);
            } else {
                assertThatThrownBy(() -> cache.put(2L, 13L)).isInstanceOf(SerializationException.class)
                        .hasCauseInstanceOf(IOException.class).hasMessageContaining("serializer");
            }
            assertThat(cache.weightedSize()).as("bytes in use after the failure").isEqualTo(sizeBefore);
            assertThat(cache.getIfPresent(1L)).isEqualTo(10L);
            assertThat(cache.getIfPresent(2L)).isNull();
            cache.put(3L, 30L);
            assertThat(cache.getIfPresent(3L)).isEqualTo(30L);
        }
    }

    /**
     * A removal listener's checked exception, thrown undeclared, is logged like a runtime one ({@link
     * RemovalListener}: "logged and otherwise ignored"): the removal it was told of happened, and the other
     * removals of the same call are still told. Before, it came out of invalidateAll and the removals after
     * it were never told.
     */
    @org.junit.jupiter.api.Test
    void aCheckedExceptionOfARemovalListenerIsLoggedAndTheOtherRemovalsAreStillTold() {
        java.util.List<Long> told = new java.util.ArrayList<>();
        RemovalListener<Long, Long> listener = (key, value, cause) -> {
            told.add(key);
            if (key == 1) {
                throw sneaky(new IOException("listener failed for 1"));
            }
        };
        try (OffHeapCache<Long, Long> cache = OffHeapCache.builder(Serializer.longs(), Serializer.longs())
                .capacity(1 << 20).concurrencyLevel(1).removalListener(listener).build()) {
            for (long key = 0; key < 5; key++) {
                cache.put(key, key * 10);
            }
            cache.invalidateAll();
            assertThat(told).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
            assertThat(cache.size()).isZero();
        }
    }
}
