package dev.offheap.memory.alloc;

import java.util.Objects;

/** Argument checks and their messages, in one place for every allocator. */
final class Checks {
    private Checks() {
    }

    static void sizeAndAlignment(long byteSize, long byteAlignment) {
        if (byteSize < 0) {
            throw new IllegalArgumentException("allocation size must be at least 0 bytes, was " + byteSize);
        }
        if (byteAlignment <= 0 || (byteAlignment & (byteAlignment - 1)) != 0) {
            throw new IllegalArgumentException("alignment must be a positive power of two, was " + byteAlignment);
        }
    }

    static IllegalStateException closed(String name) {
        return new IllegalStateException("allocator '" + name + "' is closed");
    }

    static int sampleRate(int rate) {
        if (rate < 1) {
            throw new IllegalArgumentException("sample rate must be at least 1 (1 in N allocations tracked), was " + rate);
        }
        return rate;
    }

    static String name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        return name;
    }
}
