package dev.offheap.cache;

/**
 * The management view of an {@link OffHeapCache}, registered under
 * {@code dev.offheap:type=Cache,name="<name>"} (the name always quoted, as {@link javax.management.ObjectName#quote}
 * writes it) while the cache is open; a second open cache of the same name gets {@code "<name>-2"}, and so on. Every attribute is read at the time of the call; thread-safe.
 * Counters are zero when statistics are off.
 */
public interface CacheMXBean {
    /**
     * @return the name the bean is registered under, unquoted: the cache's {@linkplain CacheBuilder#name name},
     *         or it with the {@code -2}, {@code -3}... that set it apart from other open caches of that name
     */
    String getName();

    /** @return lookups that found an entry */
    long getHitCount();

    /** @return lookups that did not */
    long getMissCount();

    /** @return hits / (hits + misses), 1.0 without lookups */
    double getHitRatio();

    /** @return loads that gave their callers a value (see {@link CacheStats#loadSuccessCount()}) */
    long getLoadSuccessCount();

    /**
     * @return loads that failed: the loader threw or returned null, or its value could not be stored (see
     *         {@link CacheStats#loadFailureCount()})
     */
    long getLoadFailureCount();

    /** @return time spent loading, in nanoseconds */
    long getTotalLoadTimeNanos();

    /** @return entries evicted for size */
    long getEvictionCount();

    /** @return bytes of the entries evicted for size */
    long getEvictionBytes();

    /** @return entries removed because they expired */
    long getExpirationCount();

    /** @return entries now */
    long getEntryCount();

    /** @return bytes the entries use (keys, values, headers) */
    long getWeightedSize();

    /** @return bytes in use now, tables and sketch included */
    long getUsedBytes();

    /** @return the capacity in bytes */
    long getCapacityBytes();
}
