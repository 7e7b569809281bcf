package dev.offheap.jcache.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the events of one key in the order of its changes, across threads.
 *
 * <p>Events are made under the store's lock of their key but delivered after it, so two threads that
 * change one key could otherwise deliver in the reverse order (an UPDATED event whose old value is not
 * the previous event's new value). Each event takes a ticket of its key's stripe under that lock, where
 * the changes of the key are already in order; delivery waits until every earlier ticket of the stripe is
 * {@linkplain #complete completed}. A thread completes its tickets in the order it took them, so a wait
 * only ever waits for an older ticket and the waits cannot form a cycle among operations.
 *
 * <p>A synchronous listener can still wait on another thread that waits for its turn here (a listener
 * that blocks until another thread's put of the same stripe returns). So that such a program stalls
 * instead of hanging, a turn that sees no progress on its stripe for {@link #GIVE_UP_NANOS} is taken
 * anyway, and the order of that stripe's events is not kept for it; a warning says so once per cache.
 *
 * <p>Thread-safe.
 */
final class EventOrder {
    private static final System.Logger LOG = System.getLogger(EventOrder.class.getName());
    /** How long a turn waits for its stripe to move before it gives the order up. */
    static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final int SPINS = 64;
    private static final int YIELDS = 64;
    private static final long PARK_NANOS = 20_000;

    /** The next ticket of each stripe. */
    private final AtomicLongArray issued;
    /** Per stripe: every ticket below this is completed. */
    private final AtomicLongArray completedBelow;
    private final String cacheName;
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * @param stripes   how many stripes the caller maps keys to, a power of two
     * @param cacheName for the warning
     */
    EventOrder(int stripes, String cacheName) {
        if (Integer.bitCount(stripes) != 1) {
            throw new IllegalArgumentException("stripes must be a power of two: " + stripes);
        }
        this.issued = new AtomicLongArray(stripes);
        this.completedBelow = new AtomicLongArray(stripes);
        this.cacheName = cacheName;
    }

    /** Takes the stripe's next ticket; call under the lock that orders the key's changes. */
    long take(int stripe) {
        return issued.getAndIncrement(stripe);
    }

    /** Returns once every ticket of the stripe below {@code ticket} is completed, or the wait gave up. */
    void awaitTurn(int stripe, long ticket) {
        long seen = completedBelow.get(stripe);
        if (seen >= ticket) {
            return;
        }
        // parkNanos returns at once while the interrupt flag is set, so the wait would spin on a core: the
        // flag is cleared for the wait (an interrupt meanwhile too) and set again after it
        boolean interrupted = Thread.interrupted();
        try {
            long lastProgress = System.nanoTime();
            for (int round = 0; ; round++) {
                if (round < SPINS) {
                    Thread.onSpinWait();
                } else if (round < SPINS + YIELDS) {
                    Thread.yield();
                } else {
                    LockSupport.parkNanos(PARK_NANOS);
                    interrupted |= Thread.interrupted();
                }
                long now = completedBelow.get(stripe);
                if (now >= ticket) {
                    return;
                }
                long time = System.nanoTime();
                if (now != seen) {
                    seen = now;
                    lastProgress = time;
                } else if (time - lastProgress > GIVE_UP_NANOS) {
                    if (warned.compareAndSet(false, true)) {
                        LOG.log(System.Logger.Level.WARNING, "cache '" + cacheName + "': an entry event waited "
                                + TimeUnit.NANOSECONDS.toMillis(GIVE_UP_NANOS) + " ms for the delivery of an earlier"
                                + " event of a key of its stripe and was delivered without waiting further; events of"
                                + " one key may then arrive out of order. A synchronous listener that blocks until"
                                + " another thread's cache operation returns causes this.");
                    }
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Marks {@code ticket} completed: the stripe's next ticket may deliver. */
    void complete(int stripe, long ticket) {
        // max, not set: a turn that gave up may have completed a later ticket first
        completedBelow.accumulateAndGet(stripe, ticket + 1, Math::max);
    }
}
