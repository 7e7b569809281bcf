package dev.offheap.memory.alloc;

import java.lang.foreign.MemorySegment;
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

    /** A free refused because a downcall holds the allocation's scope (Arena.close threw): it stays live. */
    static IllegalStateException freeWhileInUse(String name, String what, IllegalStateException cause) {
        return new IllegalStateException("free in allocator '" + name + "' of " + what + " while it is in use (by a"
                + " downcall?): the allocation stays live; free it once the use has ended", cause);
    }

    /**
     * FULL mode: whether a segment of scope {@code freed} is a stale one of an earlier allocation at an address
     * where an allocation of scope {@code live} lives now: its first free closed its scope, and the memory
     * went to the later allocation since.
     */
    static boolean isStale(MemorySegment.Scope freed, MemorySegment.Scope live) {
        return !freed.isAlive() && !live.equals(freed);
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
