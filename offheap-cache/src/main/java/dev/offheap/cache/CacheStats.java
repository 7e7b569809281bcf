package dev.offheap.cache;

/**
 * A snapshot of a cache's statistics. Counts since the cache was built.
 *
 * @param hitCount          lookups that found an entry
 * @param missCount         lookups that did not
 * @param loadSuccessCount  loads that returned a value
 * @param loadFailureCount  loads that threw or returned null
 * @param totalLoadTimeNanos time spent loading, in nanoseconds
 * @param evictionCount     entries evicted for size
 * @param evictionBytes     bytes of those entries
 * @param expirationCount   entries removed because they expired
 * @param entryCount        entries now
 * @param usedBytes         bytes in use now, tables included
 * @param capacityBytes     the capacity in bytes
 */
public record CacheStats(long hitCount, long missCount, long loadSuccessCount, long loadFailureCount,
                         long totalLoadTimeNanos, long evictionCount, long evictionBytes, long expirationCount,
                         long entryCount, long usedBytes, long capacityBytes) {

    /** @return hits / (hits + misses), or 1.0 when there were no lookups */
    public double hitRatio() {
        long requests = hitCount + missCount;
        return requests == 0 ? 1.0 : (double) hitCount / requests;
    }

    /** @return hits + misses */
    public long requestCount() {
        return hitCount + missCount;
    }
}
