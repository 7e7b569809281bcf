package dev.offheap.cache.internal;

import dev.offheap.cache.RemovalCause;

import java.util.ArrayList;
import java.util.List;

/**
 * What one operation removed, collected under a shard's lock and told to the removal listener after the
 * lock is released. Also carries the operation's clock reading, so eviction can tell expired victims.
 */
final class Removals {
    /**
     * For an operation of a cache without a listener or expiry: nothing to collect and no clock. Shared, so
     * that such a write allocates no collector; it never changes, since {@link #add} refuses it.
     */
    static final Removals NONE = new Removals(false, Long.MIN_VALUE);

    final boolean wanted;
    final long nowMillis;
    /**
     * For tests: the cause of the removals whose collection fails, as the copy of an entry to the heap fails
     * when the heap is full (with an {@link OutOfMemoryError}); null for none, always so in use.
     */
    private final RemovalCause failing;
    private List<Object[]> removed;

    Removals(boolean wanted, long nowMillis) {
        this(wanted, nowMillis, null);
    }

    Removals(boolean wanted, long nowMillis, RemovalCause failing) {
        this.wanted = wanted;
        this.nowMillis = nowMillis;
        this.failing = failing;
    }

    /**
     * @return the removal's index among those collected, for {@link #retract}
     * @throws OutOfMemoryError for a removal of the cause set to fail (tests)
     */
    int add(byte[] key, byte[] value, RemovalCause cause) {
        if (!wanted) {
            throw new IllegalStateException("removals added to a collector that does not collect them");
        }
        if (cause == failing) {
            throw new OutOfMemoryError("copying a removed entry to the heap failed (injected by a test)");
        }
        if (removed == null) {
            removed = new ArrayList<>(2);
        }
        removed.add(new Object[]{key, value, cause});
        return removed.size() - 1;
    }

    /**
     * Takes back a removal collected by {@link #add} whose entry stays after all: the operation failed
     * before removing it. Allocates nothing.
     *
     * @param index what {@code add} returned, or -1 for none (nothing then)
     */
    void retract(int index) {
        if (index >= 0) {
            removed.remove(index);
        }
    }

    /** @return key bytes, value bytes and cause of each removal, in order */
    List<Object[]> removed() {
        return removed == null ? List.of() : removed;
    }
}
