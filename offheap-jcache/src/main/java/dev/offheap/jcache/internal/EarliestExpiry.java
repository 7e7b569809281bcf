package dev.offheap.jcache.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A lower bound on the expiry times of one cache's entries, so that a sweep can tell at once that
 * nothing is due. Every write of an entry lowers it to the entry's expiry time ({@link #written}); a
 * completed sweep raises it to the earliest expiry time it saw ({@link #startSweep},
 * {@link #endSweep}).
 *
 * <p>Why a sweep may raise it: the sweep begins by setting the bound to {@link Expirable#NEVER}, so from
 * then on writes lower it again; an entry written before that moment and still there at the sweep's end
 * was there for the whole sweep, which therefore saw it and folds its time in. Concurrent sweeps only
 * lower each other's results. A sweep that stops early puts back the bound it found.
 *
 * <p>Thread-safe. A write whose time is not below the bound (the common case: expiry times grow with
 * the clock) costs one volatile read. Sweeps start and end under this object's monitor, so that a sweep
 * never skips on a bound that a running sweep has reset and not yet completed.
 */
final class EarliestExpiry {
    private final AtomicLong bound = new AtomicLong(Expirable.NEVER);
    /** Sweeps started and not ended; guarded by this. */
    private int sweepsRunning;

    /** An entry that expires at {@code expiresAtMillis} is being stored. */
    void written(long expiresAtMillis) {
        if (expiresAtMillis < bound.get()) {
            bound.accumulateAndGet(expiresAtMillis, Math::min);
        }
    }

    /** @return whether no entry can have expired at {@code nowMillis}: no sweep runs and the bound is later */
    synchronized boolean nothingDueAt(long nowMillis) {
        return sweepsRunning == 0 && bound.get() > nowMillis;
    }

    /**
     * Starts a sweep that will see every entry present from now to its end.
     *
     * @return the bound before, for {@link #abandonSweep}
     */
    synchronized long startSweep() {
        sweepsRunning++;
        return bound.getAndSet(Expirable.NEVER);
    }

    /** Ends a completed sweep: {@code earliestSeen} is the earliest expiry time of the entries it left. */
    synchronized void endSweep(long earliestSeen) {
        bound.accumulateAndGet(earliestSeen, Math::min);
        sweepsRunning--;
    }

    /** Ends a sweep that stopped before seeing every entry: the bound it found comes back. */
    synchronized void abandonSweep(long boundBefore, long earliestSeen) {
        bound.accumulateAndGet(Math.min(boundBefore, earliestSeen), Math::min);
        sweepsRunning--;
    }
}
