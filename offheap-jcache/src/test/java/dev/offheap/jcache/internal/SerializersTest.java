package dev.offheap.jcache.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.Serializer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SerializersTest {

    @Test
    void configuredTypesWithABuiltInSerializerUseIt() {
        ClassLoader loader = getClass().getClassLoader();
        assertThat(OffHeapJCache.serializerFor(String.class, loader)).isSameAs(Serializer.strings());
        assertThat(OffHeapJCache.serializerFor(Long.class, loader)).isSameAs(Serializer.longs());
        assertThat(OffHeapJCache.serializerFor(Integer.class, loader)).isSameAs(Serializer.integers());
        assertThat(OffHeapJCache.serializerFor(byte[].class, loader)).isSameAs(Serializer.byteArrays());
        assertThat(OffHeapJCache.serializerFor(Object.class, loader)).isInstanceOf(JavaSerializer.class);
        assertThat(OffHeapJCache.serializerFor(BigDecimal.class, loader)).isInstanceOf(JavaSerializer.class);
    }

    private static <T> T roundTrip(Serializer<T> serializer, T value) {
        try (Arena arena = Arena.ofConfined()) {
            int size = serializer.serializedSize(value);
            MemorySegment target = arena.allocate(size);
            serializer.write(value, target);
            return serializer.read(target);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 42L, 20260101L})
    void javaSerializationRoundTripsRandomValues(long seed) {
        Random random = new Random(seed);
        JavaSerializer<Object> serializer = new JavaSerializer<>(Object.class, getClass().getClassLoader());
        for (int i = 0; i < 200; i++) {
            Object value = switch (random.nextInt(4)) {
                case 0 -> random.nextLong();
                case 1 -> new BigDecimal(random.nextDouble() * 1e6).toPlainString();
                case 2 -> List.of(random.nextInt(), random.nextInt());
                default -> {
                    byte[] bytes = new byte[random.nextInt(300)];
                    random.nextBytes(bytes);
                    yield new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
                }
            };
            assertThat(roundTrip(serializer, value)).isEqualTo(value);
        }
    }

    @Test
    void writeWithoutSizeStillWritesTheRightBytes() {
        JavaSerializer<String> serializer = new JavaSerializer<>(String.class, getClass().getClassLoader());
        int size = serializer.serializedSize("first");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(size);
            // A write for a different value than the last size asked for serializes that value afresh.
            serializer.serializedSize("other");
            serializer.write("first", target);
            assertThat(serializer.read(target)).isEqualTo("first");
        }
    }

    @Test
    void aValueThatIsNotSerializableIsRejectedNamingItsClass() {
        JavaSerializer<Object> serializer = new JavaSerializer<>(Object.class, getClass().getClassLoader());
        assertThatThrownBy(() -> serializer.serializedSize(new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Object")
                .hasMessageContaining("not java.io.Serializable");
    }

    @Test
    void corruptBytesGiveAClearError() {
        JavaSerializer<Object> serializer = new JavaSerializer<>(Object.class, getClass().getClassLoader());
        MemorySegment garbage = MemorySegment.ofArray(new byte[] {1, 2, 3, 4});
        assertThatThrownBy(() -> serializer.read(garbage))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot deserialize")
                .hasMessageContaining("4 bytes");
    }

    @Test
    void theExpiryTimeComesFirstAndTheValueAfterIt() {
        ExpirableSerializer<String> serializer = new ExpirableSerializer<>(Serializer.strings());
        Expirable<String> stored = Expirable.of("value", 1234L);
        assertThat(serializer.serializedSize(stored)).isEqualTo(8 + 5);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment target = arena.allocate(13);
            serializer.write(stored, target);
            assertThat(ExpirableSerializer.expiresAt(target)).isEqualTo(1234L);
            Expirable<String> read = serializer.read(target);
            assertThat(read.expiresAtMillis()).isEqualTo(1234L);
            assertThat(read.value()).isEqualTo("value");
        }
        assertThat(stored.isExpiredAt(1233L)).isFalse();
        assertThat(stored.isExpiredAt(1234L)).isTrue();
    }

    /** Counts reads, to show which operations deserialize. */
    private static final class CountingStrings implements Serializer<String> {
        int reads;
        int writes;

        @Override
        public int serializedSize(String value) {
            return Serializer.strings().serializedSize(value);
        }

        @Override
        public void write(String value, MemorySegment target) {
            writes++;
            Serializer.strings().write(value, target);
        }

        @Override
        public String read(MemorySegment source) {
            reads++;
            return Serializer.strings().read(source);
        }
    }

    @Test
    void aStoredEntryWrittenBackWithANewExpiryIsCopiedNotReserialized() {
        CountingStrings strings = new CountingStrings();
        ExpirableSerializer<String> serializer = new ExpirableSerializer<>(strings);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment first = arena.allocate(13);
            serializer.write(Expirable.of("value", 1L), first);
            Expirable<String> read = serializer.read(first);
            Expirable<String> touched = read.withExpiry(99L);
            MemorySegment second = arena.allocate(serializer.serializedSize(touched));
            serializer.write(touched, second);
            assertThat(strings.reads).isZero();
            assertThat(strings.writes).isEqualTo(1);
            assertThat(ExpirableSerializer.expiresAt(second)).isEqualTo(99L);
            assertThat(serializer.read(second).value()).isEqualTo("value");
            assertThat(strings.reads).isEqualTo(1);
        }
    }
}
