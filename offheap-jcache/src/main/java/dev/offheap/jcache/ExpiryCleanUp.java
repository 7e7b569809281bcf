package dev.offheap.jcache;

/**
 * The clean-up of expired entries that every cache of this provider offers beyond
 * {@link javax.cache.Cache}: reach it with {@code cache.unwrap(ExpiryCleanUp.class)}.
 *
 * <p>JCache drops an expired entry when an operation finds it; one that nobody touches keeps its bytes
 * until it is evicted. {@link #cleanUp()} removes them all at once, and
 * {@link OffHeapConfiguration#setCleanUpInterval(java.time.Duration)} has it run in the background.
 */
public interface ExpiryCleanUp {

    /**
     * Removes every entry whose expiry time had passed when the sweep began. Each removal sends the
     * EXPIRED event an operation that found the entry would send, to the cache's listeners (synchronous
     * ones before this method returns); it is not a JCache removal, so the statistics do not count it.
     * The sweep reads each entry's expiry time in place, without deserializing its value and without
     * making it look used to the eviction policy. Other operations go on while it runs, and it sees each
     * entry that was there for the whole sweep; entries added meanwhile may or may not be seen. The cache
     * keeps a lower bound on its entries' expiry times, so a sweep with nothing due returns at once.
     *
     * <p>Thread-safe; may run at the same time as another sweep (an entry is removed once).
     *
     * @return how many entries it removed
     * @throws IllegalStateException if the cache is closed, or if called from the cache's own loader,
     *                               writer, expiry policy or entry processor
     * @throws javax.cache.event.CacheEntryListenerException if a synchronous listener threw; the sweep
     *                               went on and this is the first such failure, the others suppressed
     */
    long cleanUp();
}
