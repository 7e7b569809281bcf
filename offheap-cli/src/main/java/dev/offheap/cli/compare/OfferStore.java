package dev.offheap.cli.compare;

/**
 * Where the service loads an offer's description from when the cache misses: the embedded database
 * ({@link H2OfferStore}) or an in-memory loader with a fixed latency ({@link LatencyOfferStore}).
 *
 * <p>Threading: {@link #load(long)} and {@link #loadInto(long, java.lang.foreign.MemorySegment)} may be called
 * from many threads at once.
 */
public interface OfferStore extends OfferLoader, AutoCloseable {
    /**
     * Loads an offer's description.
     *
     * @param id the offer id, from 0 to {@link #offers()} - 1
     * @return the description, exactly the store's value size in characters (and bytes)
     * @throws IllegalArgumentException if the id is outside the store
     * @throws IllegalStateException if the store is closed or cannot be read
     */
    @Override
    String load(long id);

    /** @return how many offers the store has; ids are 0 to this - 1 */
    long offers();

    /**
     * Reads every offer, so that a store that caches what it reads (H2 keeps recently read pages
     * on the heap) starts a measurement in the state it reaches in a long-running service rather than
     * filling up during it. The default does nothing.
     *
     * @throws IllegalStateException if the store is closed or cannot be read
     */
    default void prime() {
    }

    /** @return a short description for reports, e.g. {@code H2 database ~/.cache/offheap/compare/offers} */
    String describe();

    /** Releases the store's connections; idempotent. */
    @Override
    void close();
}
