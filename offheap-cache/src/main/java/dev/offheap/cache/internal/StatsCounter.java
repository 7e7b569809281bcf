package dev.offheap.cache.internal;

import java.util.concurrent.atomic.LongAdder;

/** The cache's counters; every method does nothing when statistics are off. Thread-safe. */
final class StatsCounter {
    private final boolean enabled;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder loadSuccesses = new LongAdder();
    private final LongAdder loadFailures = new LongAdder();
    private final LongAdder loadNanos = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder evictionBytes = new LongAdder();
    private final LongAdder expirations = new LongAdder();

    StatsCounter(boolean enabled) {
        this.enabled = enabled;
    }

    boolean enabled() {
        return enabled;
    }

    void hit() {
        if (enabled) {
            hits.increment();
        }
    }

    void miss() {
        if (enabled) {
            misses.increment();
        }
    }

    void loadSuccess(long nanos) {
        if (enabled) {
            loadSuccesses.increment();
            loadNanos.add(nanos);
        }
    }

    void loadFailure(long nanos) {
        if (enabled) {
            loadFailures.increment();
            loadNanos.add(nanos);
        }
    }

    void evicted(long bytes) {
        if (enabled) {
            evictions.increment();
            evictionBytes.add(bytes);
        }
    }

    void expired() {
        if (enabled) {
            expirations.increment();
        }
    }

    long hits() {
        return hits.sum();
    }

    long misses() {
        return misses.sum();
    }

    long loadSuccesses() {
        return loadSuccesses.sum();
    }

    long loadFailures() {
        return loadFailures.sum();
    }

    long loadNanos() {
        return loadNanos.sum();
    }

    long evictions() {
        return evictions.sum();
    }

    long evictionBytes() {
        return evictionBytes.sum();
    }

    long expirations() {
        return expirations.sum();
    }
}
