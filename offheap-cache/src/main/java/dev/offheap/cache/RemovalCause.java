package dev.offheap.cache;

/** Why an entry left the cache. */
public enum RemovalCause {
    /** Removed by the user: remove, invalidate, compute returning null. */
    EXPLICIT,
    /**
     * Overwritten by put, replace or compute; not by a compute whose function returned the instance it was
     * given (see {@link OffHeapCache#compute}).
     */
    REPLACED,
    /** Evicted to stay within the capacity. */
    SIZE,
    /** Its time to live or idle time ran out. */
    EXPIRED
}
