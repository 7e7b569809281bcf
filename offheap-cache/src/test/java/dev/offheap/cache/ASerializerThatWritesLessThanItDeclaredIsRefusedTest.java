package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A serializer that writes more than it declared, or throws, was refused; one that declared more than it wrote
 * was stored with zeros for the bytes it left, and every read returned a value the caller never put. Its entry is
 * now refused as the others are, with a SerializationException, and nothing of it is stored. A serializer
 * whose values end in any byte at all is never mistaken for one that left its last byte unwritten.
 */
class ASerializerThatWritesLessThanItDeclaredIsRefusedTest {

    /** byte[] values declared one byte longer than they are, written as they are. */
    private static final Serializer<byte[]> DECLARES_ONE_MORE = new Serializer<>() {
        @Override
        public int serializedSize(byte[] value) {
            return value.length + 1;
        }

        @Override
        public void write(byte[] value, MemorySegment target) {
            MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, 0, value.length);
        }

        @Override
        public byte[] read(MemorySegment source) {
            return source.toArray(ValueLayout.JAVA_BYTE);
        }
    };

    /** Exact byte[] values through a serializer that is not a built-in one, counting its writes. */
    private static final class Exact implements Serializer<byte[]> {
        final AtomicInteger writes = new AtomicInteger();

        @Override
        public int serializedSize(byte[] value) {
            return value.length;
        }

        @Override
        public void write(byte[] value, MemorySegment target) {
            writes.incrementAndGet();
            MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, 0, value.length);
        }

        @Override
        public byte[] read(MemorySegment source) {
            return source.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void aValueWrittenShortIsRefusedAndNothingIsStored() {
        try (OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), DECLARES_ONE_MORE)
                .capacity(8 << 20).build()) {
            // small values are staged on the heap, large ones in native memory: both are checked
            for (int length : new int[] {1, 100, 100_000}) {
                long key = length;
                assertThatThrownBy(() -> cache.put(key, new byte[length])).isInstanceOf(SerializationException.class)
                        .hasMessageContaining("wrote less than the " + (length + 1) + " bytes it declared");
                assertThat(cache.getIfPresent(key)).isNull();
            }
            assertThat(cache.size()).isZero();
            assertThat(cache.weightedSize()).isZero();
        }
    }

    @Test
    void aKeyWrittenShortIsRefused() {
        try (OffHeapCache<byte[], Long> cache = OffHeapCache.builder(DECLARES_ONE_MORE, Serializer.longs())
                .capacity(1 << 20).build()) {
            assertThatThrownBy(() -> cache.put(new byte[] {1, 2, 3}, 7L)).isInstanceOf(SerializationException.class)
                    .hasMessageContaining("key serializer").hasMessageContaining("wrote less than the 4 bytes");
            assertThat(cache.size()).isZero();
        }
    }

    @Test
    void valuesEndingInEveryByteAreStoredAndWrittenAtMostTwice() {
        Exact values = new Exact();
        try (OffHeapCache<Integer, byte[]> cache = OffHeapCache.builder(Serializer.integers(), values)
                .capacity(8 << 20).build()) {
            int puts = 0;
            for (int round = 0; round < 8; round++) {
                for (int last = 0; last < 256; last++) {
                    byte[] value = {(byte) round, 42, (byte) last};
                    int before = values.writes.get();
                    cache.put(puts, value);
                    assertThat(values.writes.get() - before).as("writes of one put").isBetween(1, 2);
                    assertThat(cache.getIfPresent(puts)).containsExactly(value);
                    puts++;
                }
            }
            assertThat(cache.size()).isEqualTo(puts);
            assertThat(values.writes.get()).as("a second write only where the last byte was the random mark")
                    .isLessThan(puts + puts / 16);
        }
    }
}
