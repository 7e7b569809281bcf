package dev.offheap.jcache.internal;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import javax.cache.management.CacheStatisticsMXBean;

/**
 * JCache's statistics of one cache, counted by the JCache layer (its notions of hit, miss, put and removal
 * differ from the off-heap cache's). Evictions come from the off-heap cache, which counts them whether
 * statistics are enabled or not: those made while statistics were disabled, or before the last
 * {@link #clear()}, are subtracted, so that evictions are gathered only while enabled, as the other counts
 * are. Thread-safe.
 */
final class JCacheStatistics implements CacheStatisticsMXBean {
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder puts = new LongAdder();
    private final LongAdder removals = new LongAdder();
    private final LongAdder getNanos = new LongAdder();
    private final LongAdder putNanos = new LongAdder();
    private final LongAdder removeNanos = new LongAdder();
    private final LongSupplier evictionsSinceStart;
    /**
     * The store's evictions that are not counted: those before the last clear() and those made while
     * statistics were disabled. Guarded by this.
     */
    private long evictionsNotCounted;
    /** The store's evictions when statistics were disabled, or -1 while they are enabled. Guarded by this. */
    private long evictionsWhenDisabled;

    /**
     * @param evictionsSinceStart the store's evictions since it was built; never decreasing
     * @param enabled             whether statistics are enabled from the start
     */
    JCacheStatistics(LongSupplier evictionsSinceStart, boolean enabled) {
        this.evictionsSinceStart = evictionsSinceStart;
        this.evictionsWhenDisabled = enabled ? -1 : 0;
    }

    /**
     * Statistics were enabled or disabled: the evictions the store makes while they are disabled are not
     * counted. Calls that do not change the state do nothing.
     */
    synchronized void enabled(boolean enabled) {
        if (enabled && evictionsWhenDisabled >= 0) {
            evictionsNotCounted += evictionsSinceStart.getAsLong() - evictionsWhenDisabled;
            evictionsWhenDisabled = -1;
        } else if (!enabled && evictionsWhenDisabled < 0) {
            evictionsWhenDisabled = evictionsSinceStart.getAsLong();
        }
    }

    /** @return the store's evictions, those since statistics were disabled left out */
    private long storeEvictions() {
        return evictionsWhenDisabled >= 0 ? evictionsWhenDisabled : evictionsSinceStart.getAsLong();
    }

    void hits(long count) {
        hits.add(count);
    }

    void misses(long count) {
        misses.add(count);
    }

    void puts(long count) {
        puts.add(count);
    }

    void removals(long count) {
        removals.add(count);
    }

    /** Counts one get: a hit where {@code hit}, else a miss. */
    void get(boolean hit) {
        if (hit) {
            hits.increment();
        } else {
            misses.increment();
        }
    }

    /** Counts {@code count} puts that took {@code nanos} nanoseconds together. */
    void puts(long count, long nanos) {
        puts.add(count);
        putNanos.add(nanos);
    }

    /** Counts {@code count} removals that took {@code nanos} nanoseconds together. */
    void removals(long count, long nanos) {
        removals.add(count);
        removeNanos.add(nanos);
    }

    void getTime(long nanos) {
        getNanos.add(nanos);
    }

    void putTime(long nanos) {
        putNanos.add(nanos);
    }

    void removeTime(long nanos) {
        removeNanos.add(nanos);
    }

    @Override
    public synchronized void clear() {
        hits.reset();
        misses.reset();
        puts.reset();
        removals.reset();
        getNanos.reset();
        putNanos.reset();
        removeNanos.reset();
        evictionsNotCounted = storeEvictions();
    }

    @Override
    public long getCacheHits() {
        return hits.sum();
    }

    @Override
    public float getCacheHitPercentage() {
        long hitCount = getCacheHits();
        long gets = hitCount + getCacheMisses();
        return gets == 0 ? 0f : hitCount * 100f / gets;
    }

    @Override
    public long getCacheMisses() {
        return misses.sum();
    }

    @Override
    public float getCacheMissPercentage() {
        long missCount = getCacheMisses();
        long gets = getCacheHits() + missCount;
        return gets == 0 ? 0f : missCount * 100f / gets;
    }

    @Override
    public long getCacheGets() {
        return getCacheHits() + getCacheMisses();
    }

    @Override
    public long getCachePuts() {
        return puts.sum();
    }

    @Override
    public long getCacheRemovals() {
        return removals.sum();
    }

    @Override
    public synchronized long getCacheEvictions() {
        return storeEvictions() - evictionsNotCounted;
    }

    /** @return mean time per get in microseconds */
    @Override
    public float getAverageGetTime() {
        return averageMicros(getNanos.sum(), getCacheGets());
    }

    /** @return mean time per put in microseconds */
    @Override
    public float getAveragePutTime() {
        return averageMicros(putNanos.sum(), getCachePuts());
    }

    /** @return mean time per removal in microseconds */
    @Override
    public float getAverageRemoveTime() {
        return averageMicros(removeNanos.sum(), getCacheRemovals());
    }

    private static float averageMicros(long nanos, long count) {
        return count == 0 ? 0f : (nanos / 1_000f) / count;
    }
}
