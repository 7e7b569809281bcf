package dev.offheap.cache;

import dev.offheap.cache.internal.CacheConfig;
import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * Configures and builds an {@link OffHeapCache}. Not thread-safe; build once, use the cache from any
 * thread. Every setter checks its argument at once and throws {@link IllegalArgumentException} (or
 * {@link NullPointerException}) naming the option and the bad value.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class CacheBuilder<K, V> {
    final Serializer<K> keySerializer;
    final Serializer<V> valueSerializer;
    long capacityBytes = -1;
    long maxEntryBytes = -1;
    EvictionPolicy evictionPolicy = EvictionPolicy.W_TINY_LFU;
    Duration expireAfterWrite;
    Duration expireAfterAccess;
    int concurrencyLevel = 0;
    boolean recordStats = true;
    RemovalListener<? super K, ? super V> removalListener;
    CacheLoader<? super K, V> loader;
    Budget budget;
    MemoryManager memoryManager;
    String name = "offheap-cache";
    LongSupplier nanoClock = System::nanoTime;
    Duration cleanUpInterval;
    ScheduledExecutorService cleanUpExecutor;

    CacheBuilder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
        this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
    }

    /**
     * @param bytes the most native memory the cache may use, everything included; required, positive
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is zero or negative
     */
    public CacheBuilder<K, V> capacity(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("capacity must be positive, got " + bytes + " bytes");
        }
        this.capacityBytes = bytes;
        return this;
    }

    /**
     * @param bytes the largest entry (key, value and header) accepted; default capacity / 16 (less where a
     *              segment cannot hold that much). It may be set higher, up to what one segment of the cache
     *              can hold beside its tables; {@link #build()} refuses more. Larger entries get a
     *              {@link ValueTooLargeException}.
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes} is zero or negative
     */
    public CacheBuilder<K, V> maxEntryBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("maxEntryBytes must be positive, got " + bytes);
        }
        this.maxEntryBytes = bytes;
        return this;
    }

    /**
     * @param policy the eviction policy (default W-TinyLFU)
     * @return this builder
     * @throws NullPointerException if {@code policy} is null
     */
    public CacheBuilder<K, V> evictionPolicy(EvictionPolicy policy) {
        this.evictionPolicy = Objects.requireNonNull(policy, "evictionPolicy");
        return this;
    }

    /**
     * @param duration entries expire this long after they were written; positive
     * @return this builder
     * @throws NullPointerException     if {@code duration} is null
     * @throws IllegalArgumentException if {@code duration} is zero or negative
     */
    public CacheBuilder<K, V> expireAfterWrite(Duration duration) {
        this.expireAfterWrite = positive(duration, "expireAfterWrite");
        return this;
    }

    /**
     * @param duration entries expire this long after they were last read or written; positive
     * @return this builder
     * @throws NullPointerException     if {@code duration} is null
     * @throws IllegalArgumentException if {@code duration} is zero or negative
     */
    public CacheBuilder<K, V> expireAfterAccess(Duration duration) {
        this.expireAfterAccess = positive(duration, "expireAfterAccess");
        return this;
    }

    /**
     * @param level how many threads are expected to write at once; the cache uses about this many
     *              independent segments (default: 4 x available processors), rounded to a power of two and
     *              at most as many as let every segment hold two of the largest entries with its tables: with
     *              the default {@linkplain #maxEntryBytes max entry size}, a sixteenth of the capacity, that is
     *              4; a smaller max entry size allows more
     * @return this builder
     * @throws IllegalArgumentException if {@code level} is not in 1..65536
     */
    public CacheBuilder<K, V> concurrencyLevel(int level) {
        if (level <= 0 || level > 65_536) {
            throw new IllegalArgumentException("concurrencyLevel must be in 1..65536, got " + level);
        }
        this.concurrencyLevel = level;
        return this;
    }

    /**
     * @param enabled whether to count hits, misses, loads and their time, evictions and expirations (default
     *                on); without, those counts of {@link OffHeapCache#stats()} and of the MBean read 0, while the
     *                sizes (entries, bytes used, capacity) are reported as ever
     * @return this builder
     */
    public CacheBuilder<K, V> recordStats(boolean enabled) {
        this.recordStats = enabled;
        return this;
    }

    /**
     * @param listener told about every removal, after the cache's locks are released; what it throws is
     *                 handled as {@link RemovalListener} says (an exception logged, an Error thrown to the
     *                 caller once the call has done all its work)
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public CacheBuilder<K, V> removalListener(RemovalListener<? super K, ? super V> listener) {
        this.removalListener = Objects.requireNonNull(listener, "removalListener");
        return this;
    }

    /**
     * @param loader loads absent keys for {@link OffHeapCache#get(Object)}
     * @return this builder
     * @throws NullPointerException if {@code loader} is null
     */
    public CacheBuilder<K, V> loader(CacheLoader<? super K, V> loader) {
        this.loader = Objects.requireNonNull(loader, "loader");
        return this;
    }

    /**
     * @param budget the budget the cache's memory is charged to: its whole capacity, when built, held by a
     *               child budget named after the cache ({@linkplain #name(String) its name}, '/' replaced by
     *               '_'), so that the budget's refusals, usage and leak reports name the cache; given back at
     *               close. With a {@linkplain #memoryManager memory manager} whose budget is this one or a
     *               descendant of it, the capacity is charged once, through the manager's reservation (which
     *               already counts here). Default: none beyond the capacity
     * @return this builder
     * @throws NullPointerException if {@code budget} is null
     */
    public CacheBuilder<K, V> budget(Budget budget) {
        this.budget = Objects.requireNonNull(budget, "budget");
        return this;
    }

    /**
     * @param manager a memory manager whose budget the cache's whole capacity is reserved from when it is
     *                built ({@link MemoryManager#reserve}) and given back to at close; the cache's memory is
     *                its own native regions, not the manager's pages. With a {@linkplain #budget budget} too,
     *                the capacity counts against both, but once against a budget that is the manager's own
     *                or one of its ancestors
     * @return this builder
     * @throws NullPointerException if {@code manager} is null
     */
    public CacheBuilder<K, V> memoryManager(MemoryManager manager) {
        this.memoryManager = Objects.requireNonNull(manager, "memoryManager");
        return this;
    }

    /**
     * @param name names the cache in its MBean, its budget and its messages
     * @return this builder
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public CacheBuilder<K, V> name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank");
        }
        this.name = name;
        return this;
    }

    /**
     * Has the cache run {@link OffHeapCache#cleanUp()} every {@code interval}, so that the memory of
     * expired entries comes back even when no writes come (default: never; expired entries then leave
     * with writes, evictions and sweeps, see {@link OffHeapCache#cleanUp()}). The runs happen on one
     * daemon thread that all caches share, and stop when the cache is closed; an Error the removal listener
     * throws during a run is logged and the runs go on.
     *
     * @param interval the time between the end of one run and the start of the next; positive
     * @return this builder
     * @throws NullPointerException     if {@code interval} is null
     * @throws IllegalArgumentException if {@code interval} is zero or negative
     */
    public CacheBuilder<K, V> cleanUpInterval(Duration interval) {
        return cleanUpInterval(interval, null);
    }

    /**
     * Like {@link #cleanUpInterval(Duration)}, on an executor of the application's.
     *
     * @param interval the time between the end of one run and the start of the next; positive
     * @param executor where the runs are scheduled; the cache never shuts it down; null for the shared
     *                 daemon thread
     * @return this builder
     * @throws NullPointerException     if {@code interval} is null
     * @throws IllegalArgumentException if {@code interval} is zero or negative
     */
    public CacheBuilder<K, V> cleanUpInterval(Duration interval, ScheduledExecutorService executor) {
        this.cleanUpInterval = positive(interval, "cleanUpInterval");
        this.cleanUpExecutor = executor;
        return this;
    }

    /**
     * The time source for expiry, read as {@link System#nanoTime()} is: any long, of which only differences
     * count, so it may start anywhere and run past {@link Long#MAX_VALUE} into negative readings. Expiry counts
     * from its reading when the cache is built, for up to 2<sup>63</sup> - 1 ns (292 years) after it. Deadlines
     * are exact to the millisecond for the first 12 days after the build and then rounded up, by at most
     * 2<sup>-26</sup> of the time since the build (256 ms a year on, 16 s after 34 years): an entry never
     * expires early. A duration too long for the clock to reach (such as
     * {@code expireAfterWrite(Duration.ofNanos(Long.MAX_VALUE))}) never runs out.
     *
     * @param nanoClock the time source for expiry, in nanoseconds (default {@link System#nanoTime()}); for tests.
     *                  It is called by the threads that use the cache, and must not go backward (a reading
     *                  before an earlier one may keep entries past their time, never expire them early)
     * @return this builder
     * @throws NullPointerException if {@code nanoClock} is null
     */
    public CacheBuilder<K, V> clock(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "clock");
        return this;
    }

    /**
     * @return a new cache
     * @throws IllegalStateException if no capacity was set, the capacity is too small for the cache's tables and heap bookkeeping
     *         (some 2 KB and 4 bytes per byte of its {@linkplain #name(String) name} besides its segments') or
     *         more than a cache can address (32 TiB), or the {@linkplain #maxEntryBytes max entry size} set is more than a segment of this capacity can hold
     * @throws dev.offheap.memory.BudgetExceededException if the budget cannot hold the capacity
     * @throws java.util.concurrent.RejectedExecutionException if the {@linkplain #cleanUpInterval(Duration,
     *         ScheduledExecutorService) clean-up executor} refuses the schedule (it was shut down, say); the
     *         cache is closed again at once, so nothing stays charged to the budget or manager
     */
    public OffHeapCache<K, V> build() {
        if (capacityBytes < 0) {
            throw new IllegalStateException("capacity(bytes) is required");
        }
        return OffHeapCacheImpl.create(new CacheConfig<>(keySerializer, valueSerializer, capacityBytes, maxEntryBytes,
                evictionPolicy, expireAfterWrite, expireAfterAccess, concurrencyLevel, recordStats, removalListener,
                loader, budget, memoryManager, name, nanoClock, cleanUpInterval, cleanUpExecutor));
    }

    private static Duration positive(Duration duration, String option) {
        Objects.requireNonNull(duration, option);
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(option + " must be positive, got " + duration);
        }
        return duration;
    }
}
