package dev.offheap.cli.compare;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * An in-memory store: generates each description and waits a fixed time, standing in for a database or
 * service whose speed should not vary between runs.
 *
 * <p>Thread-safe: stateless; every load waits on its own thread.
 */
public final class LatencyOfferStore implements OfferStore {
    private final long offers;
    private final int valueSize;
    private final long latencyNanos;

    /**
     * @param offers how many offers, 1 or more
     * @param valueSize description size in bytes, 1 or more
     * @param latency how long each load takes at least (the thread parks; the OS may wake it later), 0 or more
     * @throws IllegalArgumentException if a count is not positive or the latency negative
     */
    public LatencyOfferStore(long offers, int valueSize, Duration latency) {
        if (offers <= 0) {
            throw new IllegalArgumentException("a store needs at least 1 offer, got " + offers);
        }
        if (valueSize <= 0) {
            throw new IllegalArgumentException("value size must be positive, got " + valueSize + " bytes");
        }
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, got " + latency);
        }
        this.offers = offers;
        this.valueSize = valueSize;
        this.latencyNanos = latency.toNanos();
    }

    @Override
    public String load(long id) {
        long deadline = startLoad(id);
        String description = Offers.description(id, valueSize);
        awaitLatency(deadline);
        return description;
    }

    @Override
    public void loadInto(long id, MemorySegment target) {
        Offers.requireDescriptionSize(target, valueSize);
        long deadline = startLoad(id);
        Offers.describeInto(Offers.text(id), target);
        awaitLatency(deadline);
    }

    /** Checks the id; returns when the load may end, {@link #latencyNanos} from now. */
    private long startLoad(long id) {
        if (id < 0 || id >= offers) {
            throw new IllegalArgumentException("offer id " + id + " is outside the store's 0.." + (offers - 1));
        }
        return System.nanoTime() + latencyNanos;
    }

    /** Parks until the deadline: at least that long, later if the OS wakes the thread late. */
    private static void awaitLatency(long deadline) {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    @Override
    public long offers() {
        return offers;
    }

    @Override
    public String describe() {
        return "in-memory loader, " + Durations.format(Duration.ofNanos(latencyNanos)) + " per load";
    }

    @Override
    public void close() {
        // nothing held
    }
}
