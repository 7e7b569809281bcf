package dev.offheap.cache;

/**
 * A snapshot of a cache's statistics. Counts since the cache was built.
 *
 * @param hitCount          lookups that found an entry
 * @param missCount         lookups that did not
 * @param loadSuccessCount  loads that gave their callers a value: the loader returned one and it was stored
 *                          (or, the key written meanwhile, handed to the callers only); one per
 *                          {@code loadAll} call
 * @param loadFailureCount  loads that failed their callers: the loader threw or returned null, or the value
 *                          it returned could not be stored (over the entry limit, a serializer's failure,
 *                          the cache closed meanwhile)
 * @param totalLoadTimeNanos time spent in the loader, in nanoseconds, of failed loads too
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
