package dev.offheap.cache;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** The serializers {@link Serializer} offers by name. Stateless, so one instance each. */
final class BuiltInSerializers {
    private BuiltInSerializers() {
    }

    static final Serializer<byte[]> BYTE_ARRAYS = new Serializer<>() {
        @Override
        public int serializedSize(byte[] value) {
            return value.length;
        }

        @Override
        public void write(byte[] value, MemorySegment target) {
            MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, 0, value.length);
        }

        @Override
        public byte[] read(MemorySegment source) {
            return source.toArray(ValueLayout.JAVA_BYTE);
        }

        @Override
        public String toString() {
            return "Serializer.byteArrays()";
        }
    };

    static final Serializer<String> STRINGS = new Serializer<>() {
        @Override
        public int serializedSize(String value) {
            // Exact UTF-8 length without encoding twice would need a scan; encoding once is simpler and
            // the cache calls write right after, so the common ASCII case takes the fast path.
            return utf8Length(value);
        }

        @Override
        public void write(String value, MemorySegment target) {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(bytes, 0, target, ValueLayout.JAVA_BYTE, 0, bytes.length);
        }

        @Override
        public String read(MemorySegment source) {
            return new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "Serializer.strings()";
        }
    };

    static final Serializer<Long> LONGS = new Serializer<>() {
        @Override
        public int serializedSize(Long value) {
            return Long.BYTES;
        }

        @Override
        public void write(Long value, MemorySegment target) {
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
        }

        @Override
        public Long read(MemorySegment source) {
            return source.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }

        @Override
        public String toString() {
            return "Serializer.longs()";
        }
    };

    static final Serializer<Integer> INTEGERS = new Serializer<>() {
        @Override
        public int serializedSize(Integer value) {
            return Integer.BYTES;
        }

        @Override
        public void write(Integer value, MemorySegment target) {
            target.set(ValueLayout.JAVA_INT_UNALIGNED, 0, value);
        }

        @Override
        public Integer read(MemorySegment source) {
            return source.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        }

        @Override
        public String toString() {
            return "Serializer.integers()";
        }
    };

    static final Serializer<MemorySegment> SEGMENTS = new Serializer<>() {
        @Override
        public int serializedSize(MemorySegment value) {
            long size = value.byteSize();
            if (size > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "a cached segment holds at most " + Integer.MAX_VALUE + " bytes, this one " + size);
            }
            return (int) size;
        }

        @Override
        public void write(MemorySegment value, MemorySegment target) {
            MemorySegment.copy(value, 0, target, 0, value.byteSize());
        }

        @Override
        public MemorySegment read(MemorySegment source) {
            return MemorySegment.ofArray(source.toArray(ValueLayout.JAVA_BYTE));
        }

        @Override
        public String toString() {
            return "Serializer.segments()";
        }
    };

    /** UTF-8 length of a string, counting surrogate pairs as 4 bytes and lone surrogates as '?' (1). */
    static int utf8Length(String s) {
        int length = s.length();
        long bytes = length;
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                continue;
            }
            if (c < 0x800) {
                bytes += 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 2; // 4 bytes for 2 chars
                i++;
            } else if (Character.isSurrogate(c)) {
                // getBytes replaces a lone surrogate with '?': one byte, already counted.
                continue;
            } else {
                bytes += 2;
            }
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a string of " + bytes + " UTF-8 bytes is too long to cache");
        }
        return (int) bytes;
    }
}
