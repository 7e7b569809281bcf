package dev.offheap.cli.compare;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * The seed's service: the description of an offer by id, from the cache, loaded from the store on a
 * miss. Counts requests and loads, so that the hit ratio is measured the same way for every variant.
 *
 * <p>Thread-safe.
 */
public final class OfferService implements AutoCloseable {
    private final OfferCache cache;
    private final OfferStore store;
    private final LongAdder requests = new LongAdder();
    private final LongAdder loads = new LongAdder();
    private final LongAdder hits = new LongAdder();

    /**
     * @param cache the cache; closed with the service
     * @param store the store; closed with the service
     */
    public OfferService(OfferCache cache, OfferStore store) {
        this.cache = cache;
        this.store = store;
    }

    /**
     * @param id the offer id, 0 to {@link #offers()} - 1
     * @return its description
     * @throws IllegalArgumentException if the id is outside the store
     */
    public String offer(long id) {
        if (id < 0 || id >= store.offers()) {
            throw new IllegalArgumentException("no offer " + id + ": ids are 0 to " + (store.offers() - 1));
        }
        requests.increment();
        // a loader of this call's own tells whether the call loaded, so that it counts as a hit only once
        // answered without a load: requests minus loads would count it as a hit until its load starts
        CallLoader loader = new CallLoader();
        String description = cache.get(id, loader);
        if (!loader.loaded) {
            hits.increment();
        }
        return description;
    }

    /**
     * Serves a request as {@code offheap compare} measures it: gets the description and reads it as a
     * response would, in place where the cache can ({@link OfferCache#fetch(long, OfferLoader)}).
     *
     * @param id the offer id, 0 to {@link #offers()} - 1
     * @return a checksum of what was read
     * @throws IllegalArgumentException if the id is outside the store
     */
    public long fetch(long id) {
        if (id < 0 || id >= store.offers()) {
            throw new IllegalArgumentException("no offer " + id + ": ids are 0 to " + (store.offers() - 1));
        }
        requests.increment();
        return cache.fetch(id, countingLoader);
    }

    /** The store, counting every load, whichever way the cache asks for the description. */
    private final OfferLoader countingLoader = new OfferLoader() {
        @Override
        public String load(long id) {
            loads.increment();
            return store.load(id);
        }

        @Override
        public void loadInto(long id, MemorySegment target) {
            loads.increment();
            store.loadInto(id, target);
        }
    };

    /** {@link #countingLoader} for one call of {@link #offer(long)}, noting whether the cache called it. */
    private final class CallLoader implements OfferLoader {
        boolean loaded;

        @Override
        public String load(long id) {
            loaded = true;
            return countingLoader.load(id);
        }

        @Override
        public void loadInto(long id, MemorySegment target) {
            loaded = true;
            countingLoader.loadInto(id, target);
        }
    }

    /** @return requests served */
    public long requests() {
        return requests.sum();
    }

    /** @return requests the cache missed, so the store loaded */
    public long loads() {
        return loads.sum();
    }

    /**
     * Calls of {@link #offer(long)} that returned without loading, each counted once it returned: unlike
     * {@link #requests()} minus {@link #loads()}, which counts a request as a hit from its start until its
     * load begins, this never falls, as a Prometheus counter must not. Calls of {@link #fetch(long)} are
     * not counted here.
     *
     * @return the hits of {@link #offer(long)} so far
     */
    public long hits() {
        return hits.sum();
    }

    /** @return how many offers there are */
    public long offers() {
        return store.offers();
    }

    /** @return the cache */
    public OfferCache cache() {
        return cache;
    }

    /** @return the store */
    public OfferStore store() {
        return store;
    }

    @Override
    public void close() {
        try {
            cache.close();
        } finally {
            store.close();
        }
    }
}
