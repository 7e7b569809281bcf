package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import java.lang.foreign.Arena;
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

    /**
     * The empty segment of an allocator whose scope is {@code arena}'s: what a request for 0 bytes gets. No
     * memory and no allocation: a zero-length segment at address 0, which every alignment divides. A
     * zero-length segment at any other address can be the end of one allocation and the start of the next,
     * so free could not tell it from an empty allocation there and would free the neighbour.
     */
    // reinterpret is restricted: the segment has no bytes to access
    @SuppressWarnings("restricted")
    static MemorySegment emptySegment(Arena arena) {
        return MemorySegment.NULL.reinterpret(0, arena, null);
    }

    /** @return whether {@code segment}, of zero length, is the empty segment of an allocator whose scope is {@code scope} */
    private static boolean isEmptySegment(MemorySegment segment, MemorySegment.Scope scope) {
        return segment.address() == 0 && segment.isNative() && segment.scope().equals(scope);
    }

    /**
     * The free of a zero-length segment: nothing for the allocator's {@linkplain #emptySegment empty segment},
     * refused for any other (told to {@code tracker} as a problem, where the allocator has one).
     *
     * @param scope   the allocator's scope, its empty segment's
     * @param tracker the allocator's tracker, or null for none
     * @throws IllegalArgumentException if {@code segment} is not the empty segment
     */
    static void freeZeroLength(String name, MemorySegment segment, MemorySegment.Scope scope,
                               AllocationTracker tracker) {
        if (isEmptySegment(segment, scope)) {
            return;
        }
        String message = "free of a segment that allocator '" + name + "' did not allocate: " + segment
                + " (0 bytes at 0x" + Long.toHexString(segment.address()) + "): a 0-byte allocation is the"
                + " allocator's empty segment, at address 0 and in its scope, and no other zero-length segment (a"
                + " slice of an allocation, such as one at its end, where the next allocation starts) is an"
                + " allocation of it";
        if (tracker != null) {
            tracker.problem(message);
        }
        throw new IllegalArgumentException(message);
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

    /**
     * Refuses a memory manager's own budget at the builder: it refuses reserves from anyone but its manager,
     * so every allocation charged to it would fail. Probed with a reserve of nothing, which a manager's budget
     * refuses and any other budget grants without a change.
     *
     * @return {@code budget}
     * @throws IllegalArgumentException if {@code budget} is a {@link dev.offheap.memory.MemoryManager#budget()}
     */
    static Budget usableBudget(Budget budget) {
        if (budget != null) {
            try {
                budget.tryReserve(0);
            } catch (UnsupportedOperationException managers) {
                throw new IllegalArgumentException("an allocator cannot charge this budget: " + managers.getMessage()
                        + " (give the allocator budget.child(name, limit))", managers);
            } catch (IllegalStateException closed) {
                // a closed budget: each allocation is refused as such, as the builders document
            }
        }
        return budget;
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
