package dev.offheap.jcache.internal;

import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;

import java.io.Serial;
import java.io.Serializable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * The JCache expiry sweep racing a put of the key it is about to remove: the cache holds one entry, which
 * has expired on the cache's wall clock (the package-private {@link OffHeapJCache#wallClock} seam); one
 * actor runs {@link OffHeapJCache#cleanUp()}, the other puts a new value of the same key. The sweep decides
 * on the entry in place under the segment's lock and the put is an atomic compute of the key, so one of them
 * comes wholly first: either the sweep removes the expired entry (its EXPIRED event) and the put then
 * creates the key (CREATED), or the put finds the entry expired (EXPIRED, then CREATED) and the sweep finds
 * a live entry and removes nothing. Either way the key ends up holding the put's value, and a synchronous
 * listener counts exactly one EXPIRED and one CREATED event and no UPDATED one.
 *
 * <p>A JCache cache costs far more to make than the race, so the samples take their caches from a pool: the
 * arbiter removes the key and gives its cache back. Each cache's clock moves forward 20 s per sample: the
 * setup writes the entry (expiring after 1 s) at the sample's start, the actors run 10 s later.
 *
 * <p>Result: the number the sweep removed, the key's value after both (1 the put's, 0 none, 2 the expired
 * one, 3 anything else), then the EXPIRED, CREATED and UPDATED events the listener got.
 */
@JCStressTest
@Description("JCache: the expiry sweep racing a put of the same expired key; the put's value is never lost, and "
        + "the events tell one expiry and one creation.")
@Outcome(id = "1, 1, 1, 1, 0", expect = Expect.ACCEPTABLE,
        desc = "the sweep removed the expired entry, then the put created the key")
@Outcome(id = "0, 1, 1, 1, 0", expect = Expect.ACCEPTABLE,
        desc = "the put found the entry expired and created the key; the sweep found it live")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "the put's value was lost or the expired one came back, or the events do not tell one expiry "
                + "and one creation")
@State
public class SweepVersusPutOfAnExpiredKeyTest {
    private static final int KEY = 1;
    private static final long SAMPLE_MILLIS = 20_000;
    private static final long RACE_AFTER_MILLIS = 10_000;
    private static final CacheManager MANAGER = new OffHeapCachingProvider().getCacheManager();
    private static final AtomicLong CACHES = new AtomicLong();
    /** Caches whose last sample's arbiter has run: about as many as one batch has samples (what fits in an iteration). */
    private static final ConcurrentLinkedQueue<Lane> POOL = new ConcurrentLinkedQueue<>();

    private final Lane lane;

    public SweepVersusPutOfAnExpiredKeyTest() {
        Lane free = POOL.poll();
        lane = free == null ? new Lane() : free;
        lane.startSample();
    }

    /** One cache with its clock and listener. */
    private static final class Lane {
        final OffHeapJCache<Integer, String> cache;
        final Counter counter = new Counter();
        volatile long now = 1_700_000_000_000L;

        Lane() {
            OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
            configuration.setTypes(Integer.class, String.class);
            configuration.setCapacityBytes(16 << 10);
            configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.SECONDS, 1)));
            configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(counter), null, false, true));
            Cache<Integer, String> made = MANAGER.createCache("sweep-versus-put-" + CACHES.incrementAndGet(),
                    configuration);
            @SuppressWarnings("unchecked")
            OffHeapJCache<Integer, String> offHeap = made.unwrap(OffHeapJCache.class);
            offHeap.wallClock(() -> now);
            cache = offHeap;
        }

        /** Writes the entry at the sample's start, then sets the clock past its expiry. */
        void startSample() {
            now += SAMPLE_MILLIS;
            cache.put(KEY, "expired");
            now += RACE_AFTER_MILLIS;
            counter.reset();
        }
    }

    /** A synchronous listener counting EXPIRED, CREATED and UPDATED events. */
    private static final class Counter implements CacheEntryExpiredListener<Integer, String>,
            CacheEntryCreatedListener<Integer, String>, CacheEntryUpdatedListener<Integer, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        final AtomicInteger expired = new AtomicInteger();
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger updated = new AtomicInteger();

        void reset() {
            expired.set(0);
            created.set(0);
            updated.set(0);
        }

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(event -> expired.incrementAndGet());
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(event -> created.incrementAndGet());
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(event -> updated.incrementAndGet());
        }
    }

    @Actor
    public void sweep(IIIII_Result r) {
        r.r1 = (int) lane.cache.cleanUp();
    }

    @Actor
    public void put() {
        lane.cache.put(KEY, "put");
    }

    @Arbiter
    public void inspectThenGiveBack(IIIII_Result r) {
        String value = lane.cache.get(KEY);
        r.r2 = value == null ? 0 : value.equals("put") ? 1 : value.equals("expired") ? 2 : 3;
        r.r3 = lane.counter.expired.get();
        r.r4 = lane.counter.created.get();
        r.r5 = lane.counter.updated.get();
        lane.cache.remove(KEY);
        POOL.add(lane);
    }
}
