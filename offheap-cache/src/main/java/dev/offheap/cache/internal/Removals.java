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
    private List<Object[]> removed;

    Removals(boolean wanted, long nowMillis) {
        this.wanted = wanted;
        this.nowMillis = nowMillis;
    }

    void add(byte[] key, byte[] value, RemovalCause cause) {
        if (!wanted) {
            throw new IllegalStateException("removals added to a collector that does not collect them");
        }
        if (removed == null) {
            removed = new ArrayList<>(2);
        }
        removed.add(new Object[]{key, value, cause});
    }

    /** @return key bytes, value bytes and cause of each removal, in order */
    List<Object[]> removed() {
        return removed == null ? List.of() : removed;
    }
}
