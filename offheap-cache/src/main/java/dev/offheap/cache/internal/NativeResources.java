package dev.offheap.cache.internal;

import dev.offheap.cache.CacheMXBean;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.internal.PlatformMBeans;

import javax.management.ObjectName;
import java.lang.foreign.Arena;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one {@link OffHeapCacheImpl} holds outside the Java heap: its regions' arena, the capacity charged
 * to a {@link Budget} (as a child budget named after the cache) or {@link MemoryManager}, and its MBean.
 * Kept apart from the cache object, and never referring to it, so that a {@link Cleaner} can give all of it
 * back when an application drops a cache without closing it: the native memory, the reservation and the
 * MBean registration would otherwise stay for the life of the process (the MBean server held the cache, so
 * it was never even collected).
 *
 * <p>{@link #run()} releases everything exactly once: called through the cache's {@link Cleaner.Cleanable}
 * by {@link OffHeapCacheImpl#close()}, or by the cleaner's thread once the cache is unreachable, which
 * logs a warning naming the cache, since an application that relies on it holds the memory until the next
 * collection that finds the cache. This object is also the owner of the cache's reservation in a
 * {@link MemoryManager}, so that the manager's reports name the cache without holding it.
 *
 * <p>Thread-safe: {@link #run()} runs once (the cleanable guarantees it); the MBean's getters may run on
 * any thread at any time and read zeros once the resources are released.
 */
final class NativeResources implements Runnable {
    private static final System.Logger LOG = System.getLogger(NativeResources.class.getName());
    private static final AtomicInteger CLEANER_THREADS = new AtomicInteger();

    /** One daemon thread for all caches, started with the first cache. */
    private static final class UnclosedCaches {
        static final Cleaner CLEANER = Cleaner.create(r -> {
            Thread t = new Thread(r, "offheap-cache-cleaner-" + CLEANER_THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    private final String name;
    private final long capacityBytes;
    private final long heapBytes;
    private final Budget budget;
    /**
     * The child of {@link #budget} that holds the capacity, named after the cache; null until reserved. A
     * child rather than a direct reservation, so that the budget's refusals and usage and leak reports name
     * the cache: reserved directly, the capacity showed there only as "reserved directly", with every other
     * cache's and component's, and a refusal of a budget shared by several caches named none of them.
     */
    private volatile Budget charged;
    private final MemoryManager memoryManager;
    private final StatsCounter stats;
    private Arena arena;
    private Shard[] shards;
    private ObjectName mbeanName;
    /** Set by the cache's close() before it runs {@link #run()}: a release that is no leak. */
    private volatile boolean closedByOwner;
    private volatile boolean released;

    NativeResources(String name, long capacityBytes, long heapBytes, Budget budget, MemoryManager memoryManager,
                    StatsCounter stats) {
        this.name = name;
        this.capacityBytes = capacityBytes;
        this.heapBytes = heapBytes;
        this.budget = budget;
        this.memoryManager = memoryManager;
        this.stats = stats;
    }

    /**
     * Charges the capacity to the budget and the memory manager, if any; on failure nothing stays charged.
     *
     * @throws dev.offheap.memory.BudgetExceededException if either refuses
     * @throws IllegalStateException                     if the manager is closed
     */
    void reserve() {
        if (budget != null && !chargedThroughManager(budget, memoryManager)) {
            // a budget name has no '/' (it separates the names in a budget's path); a cache's may
            charged = budget.child(name.replace('/', '_'), capacityBytes, capacityBytes);
        }
        if (memoryManager != null) {
            try {
                memoryManager.reserve(this, capacityBytes);
            } catch (RuntimeException | Error e) {
                // an Error too: the manager lets one through from another owner's spill callback, and the budget
                // stayed charged the whole capacity for good.
                // The refused reserve has still made this object an owner of the manager, with nothing
                // reserved: forget it, or the manager keeps it and lists it for as long as it lives
                forgetOwner();
                if (charged != null) {
                    charged.close();
                }
                throw e;
            }
        }
    }

    /**
     * Whether the manager's reservation already counts against {@code budget}: the manager's budget is
     * {@code budget} or one of its descendants. Charged directly too, the capacity counted twice there, and a
     * budget that held the cache once refused it for want of twice its capacity.
     */
    private static boolean chargedThroughManager(Budget budget, MemoryManager memoryManager) {
        if (memoryManager == null) {
            return false;
        }
        for (Budget b = memoryManager.budget(); b != null; b = b.parent()) {
            if (b == budget) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes over the regions' arena and shards of a fully built cache, registers the MBean and arranges for
     * {@link #run()} to run when {@code cache} becomes unreachable.
     *
     * @return the cleanable that the cache's close() calls
     */
    Cleaner.Cleanable adopt(Object cache, Arena regionsArena, Shard[] cacheShards) {
        this.arena = regionsArena;
        this.shards = cacheShards;
        this.mbeanName = PlatformMBeans.register("Cache", name, true, MXBean::new);
        return UnclosedCaches.CLEANER.register(cache, this);
    }

    /** Called by close() just before it cleans: the release that follows is the owner's own. */
    void markClosedByOwner() {
        closedByOwner = true;
    }

    ObjectName mbeanName() {
        return mbeanName;
    }

    /**
     * Releases everything, once (through the cleanable): marks each shard released under both its locks
     * ({@link Shard#markReleased}), so that no lock holder (in particular no zero-copy reader) and no
     * replay of recorded reads is inside a region, and none starts there later; closes the arena, frees
     * the reservations and unregisters the MBean.
     */
    @Override
    public void run() {
        released = true;
        if (!closedByOwner) {
            LOG.log(System.Logger.Level.WARNING, "cache '" + name + "' was never closed: its " + capacityBytes
                    + " bytes of native memory were given back only when the garbage collector found the cache"
                    + " unreachable; close() caches that are no longer used");
        }
        for (int i = 0; i < shards.length; i++) {
            try {
                shards[i].markReleased();
            } catch (IllegalStateException deadlock) {
                // a close() from inside a reader or compute of another cache, chosen to give up a deadlock
                // (LockHolds): a holder of this shard's lock waits for a lock this thread holds, so this thread
                // cannot wait for it. The cleanable has run and never runs again: a thread that holds nothing
                // finishes the release once the holders are gone, or the regions, the reservation and the MBean
                // stayed for the life of the process
                int rest = i;
                Thread.ofPlatform().daemon().name("offheap-cache-release-" + name).start(() -> releaseFrom(rest));
                throw deadlock;
            }
        }
        releaseFrom(shards.length);
    }

    /** Marks the shards from {@code first} on released, waiting for their holders, then frees the rest. */
    private void releaseFrom(int first) {
        for (int i = first; i < shards.length; i++) {
            shards[i].markReleased();
        }
        arena.close();
        unreserve();
        PlatformMBeans.unregister(mbeanName);
    }

    /** Gives back what {@link #reserve()} charged: on release, or for a cache whose construction failed after it. */
    void unreserve() {
        if (memoryManager != null) {
            forgetOwner();
        }
        if (charged != null) {
            // gives the capacity back to the budget; does nothing if the budget was closed meanwhile (it then
            // closed this child, reporting the cache as a leak)
            charged.close();
        }
    }

    /**
     * Gives the manager's reservation back and has the manager forget this owner. Not
     * {@code releaseReservation}: that leaves the owner's record, keyed by this object, in the manager,
     * which then held every cache's resources (its shards' heap bookkeeping, a few KiB per shard) and
     * listed it in {@code usageByOwner()} for as long as the manager lived, long after the cache closed.
     */
    private void forgetOwner() {
        try {
            memoryManager.releaseAll(this);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cache '" + name + "': releasing its reservation failed", e);
        }
    }

    /** Names the cache in the memory manager's reports, where this object is the reservation's owner. */
    @Override
    public String toString() {
        return "OffHeapCache[" + name + "]";
    }

    // ------------------------------------------------------------------ JMX

    /** Entries, entry bytes and used region bytes summed over the shards; zeros once released. */
    private long[] totals() {
        if (released) {
            return new long[3];
        }
        try {
            long[] sum = Shard.sumOfSizes(shards);
            return released ? new long[3] : sum;
        } catch (IllegalStateException e) {
            return new long[3]; // released during the sum: the arena is closed
        }
    }

    /** The MBean: reads the statistics and the shards, never the cache object. */
    private final class MXBean implements CacheMXBean {
        private final String registeredName;

        MXBean(String registeredName) {
            this.registeredName = registeredName;
        }

        @Override
        public String getName() {
            return registeredName;
        }

        @Override
        public long getHitCount() {
            return stats.hits();
        }

        @Override
        public long getMissCount() {
            return stats.misses();
        }

        @Override
        public double getHitRatio() {
            long hits = stats.hits();
            long requests = hits + stats.misses();
            return requests == 0 ? 1.0 : (double) hits / requests;
        }

        @Override
        public long getLoadSuccessCount() {
            return stats.loadSuccesses();
        }

        @Override
        public long getLoadFailureCount() {
            return stats.loadFailures();
        }

        @Override
        public long getTotalLoadTimeNanos() {
            return stats.loadNanos();
        }

        @Override
        public long getEvictionCount() {
            return stats.evictions();
        }

        @Override
        public long getEvictionBytes() {
            return stats.evictionBytes();
        }

        @Override
        public long getExpirationCount() {
            return stats.expirations();
        }

        @Override
        public long getEntryCount() {
            return totals()[0];
        }

        @Override
        public long getWeightedSize() {
            return totals()[1];
        }

        @Override
        public long getUsedBytes() {
            long used = totals()[2];
            return released ? 0 : heapBytes + used;
        }

        @Override
        public long getCapacityBytes() {
            return capacityBytes;
        }
    }
}
