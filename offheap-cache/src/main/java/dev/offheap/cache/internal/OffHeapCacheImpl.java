package dev.offheap.cache.internal;

import dev.offheap.cache.CacheLoadException;
import dev.offheap.cache.CacheLoader;
import dev.offheap.cache.CacheMXBean;
import dev.offheap.cache.CacheStats;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.RemovalCause;
import dev.offheap.cache.RemovalListener;
import dev.offheap.cache.SerializationException;
import dev.offheap.cache.Serializer;
import dev.offheap.cache.ValueTooLargeException;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.alloc.LargeRegions;
import dev.offheap.memory.internal.Failures;
import dev.offheap.memory.internal.WeakSchedule;

import javax.management.ObjectName;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The off-heap cache: {@code 2^n} {@link Shard}s chosen by the top bits of a key's hash, each with its own
 * region, lock, table, queues and sketch.
 *
 * <h2>Design</h2>
 * Keys are serialized to a heap array once per call (they are hashed and compared as bytes); values are
 * serialized before any lock is taken, so a serializer that throws or lies changes nothing. Under a shard's
 * write lock an operation replays recorded reads, removes expired entries at the queue heads, then does its
 * work; removals are told to the listener after the lock is released. Lookups copy the value's bytes out
 * under an optimistic read (see {@link Shard}) and deserialize outside any lock.
 *
 * <h2>Capacity</h2>
 * The capacity is split into the heap bytes of the cache's bookkeeping (allocator bins, read buffers,
 * fixed per shard, and {@link #fixedHeapBytes} besides the shards) and one native region per shard;
 * tables, sketches and entries are blocks inside the regions, so the cache never uses more than its
 * capacity (but for what grows with use: statistics cells under contention, running loads). A {@link Budget} or {@link MemoryManager} is
 * charged the whole capacity when the cache is built and released when it is closed.
 *
 * <h2>Close</h2>
 * {@link #close()} marks the cache closed, waits once for every shard's write lock (so no lock holder, in
 * particular no zero-copy reader, is inside a region), then closes the shared arena. An optimistic reader
 * racing the close reads through the arena's segments, which throw {@link IllegalStateException} once the
 * arena is closed: it gets an exception, never freed memory.
 *
 * <p>A cache that the application drops without closing it is released the same way by a
 * {@link Cleaner} once the collector finds it unreachable, with a warning ({@link NativeResources}): nothing
 * outside the cache object (not its MBean, not a memory manager, not a scheduled clean-up) holds it.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class OffHeapCacheImpl<K, V> implements OffHeapCache<K, V> {
    private static final System.Logger LOG = System.getLogger(OffHeapCacheImpl.class.getName());
    /**
     * Heap bytes that a cache keeps besides its shards, charged to the capacity (with
     * {@link #HEAP_BYTES_PER_NAME_BYTE} per byte of its name): the cache object, its statistics counters
     * (eight {@code LongAdder}s, as made), its map of running loads with the table its first load gives it,
     * its arena, cleaner and array of shards, its MBean as the platform MBean server keeps it, the child
     * budget or the memory manager's record it is charged through and its scheduled clean-up: about 2,050
     * bytes with all of them, 1,370 with none, as
     * {@code ACachesFixedHeapChargeCoversWhatItKeepsBesidesItsShardsTest} measures. It said 1,024, which
     * left a cache some 350 bytes (plain) to 1,000 (budget, manager, clean-up) past its capacity, more
     * with a long name. Not charged: what grows with use (see docs/cache.md, Capacity and accounting).
     */
    static final int FIXED_HEAP_BYTES = 2240;
    /**
     * Heap bytes per byte of the cache's name (a character of a Latin-1 name, two of another) that the
     * cache's bookkeeping keeps: its MBean's name, quoted and canonical, and the name of its child budget.
     */
    static final int HEAP_BYTES_PER_NAME_BYTE = 4;
    /** The smallest capacity a cache accepts. */
    public static final long MIN_CAPACITY = 8192;
    private static final int MAX_SHARDS = 1 << 12;
    /** The largest region one shard may have: unit offsets are ints. */
    private static final long MAX_REGION_BYTES = (long) RegionLayout.SIZE_MASK << RegionLayout.UNIT_SHIFT;
    /**
     * The largest capacity, in bytes: {@link #MAX_SHARDS} segments of the largest region an entry's offsets
     * reach (32 TiB). Past it the segment count would have to grow beyond its limit (to 2^30 segments at
     * {@code Long.MAX_VALUE}, whose table alone ran the heap out of memory).
     */
    public static final long MAX_CAPACITY = MAX_SHARDS * MAX_REGION_BYTES;

    /** {@link #asMap()}: stateless apart from its lazily made views, so one per cache. */
    private final CacheMapView<K, V> mapView;
    private final String name;
    private final Serializer<K> keySerializer;
    private final Serializer<V> valueSerializer;
    private final boolean byteArrayKeys;
    private final boolean byteArrayValues;
    private final long capacityBytes;
    private final long maxEntryBytes;
    /** Header bytes of an entry without a time to live of its own (see {@link RegionLayout}). */
    private final int headerBytes;
    /** Header bytes of an entry with every deadline field this cache has: what the size limit assumes. */
    private final int maxHeaderBytes;
    private final long heapBytes;
    private final Shard[] shards;
    private final int shardShift;
    private final long expireAfterWriteMillis;
    private final long expireAfterAccessMillis;
    private final LongSupplier clock;
    private final long startNanos;
    private volatile boolean ttlUsed;
    private final StatsCounter stats;
    private final RemovalListener<? super K, ? super V> listener;
    /** See {@link #failRemovalCopies}. */
    private RemovalCause failingRemovals;
    private final CacheLoader<? super K, V> loader;
    /** The arena, reservations and MBean, released by close() or, for a cache never closed, by a cleaner. */
    private final NativeResources resources;
    private final Cleaner.Cleanable release;
    private final ConcurrentHashMap<Bytes, Load<V>> loads = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** The number of the first shard; the others follow it ({@link LockHolds#reserveIds}). */
    private final long firstShardId;
    /** Threads inside compute's function (see {@link #checkOpen}); changed through {@link #COMPUTING}. */
    @SuppressWarnings("unused")
    private volatile int computing;
    private static final VarHandle COMPUTING;
    static {
        try {
            COMPUTING = MethodHandles.lookup().findVarHandle(OffHeapCacheImpl.class, "computing", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private final Object closeLock = new Object();
    /** The scheduled {@link #cleanUp()} runs, or null; cancelled by close. */
    private volatile ScheduledFuture<?> cleanUpRuns;

    /** Serialized bytes, a key's or a value's, equal when their contents are (as the cache compares them). */
    private record Bytes(byte[] bytes) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Bytes k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return bytes.length + " bytes";
        }
    }

    /** A load running for a key: its thread, and the future its waiters share. */
    private static final class Load<V> {
        final Thread loader;
        final CompletableFuture<V> result;
        /**
         * Whether the loaded value may be handed to callers that waited for it. Not for a load of
         * {@link #readOrLoad}: its loader's value may be a buffer that the loading thread reuses for its next
         * key, so the callers that waited for it read the stored bytes instead (or load the key themselves).
         */
        final boolean shared;
        /**
         * Set, under the key's segment lock, by a write or removal of the key while this load runs (any call
         * that writes or may remove the key, whatever it finds): the loaded value is then given to the
         * thread that ran the loader but not stored, so that a load that read its source before the change
         * neither overwrites a newer put nor undoes an invalidate or a compute that dropped the key. The
         * callers that wait for the load do not take its value: they read the key again (see
         * {@link #loadOnce}), as a call that came after the write must not get a value read before it.
         */
        volatile boolean superseded;

        Load(Thread loader, CompletableFuture<V> result, boolean shared) {
            this.loader = loader;
            this.result = result;
            this.shared = shared;
        }
    }

    /**
     * Builds a cache.
     *
     * @param config the checked options
     * @param <K>    key type
     * @param <V>    value type
     * @return the cache
     * @throws IllegalStateException if the capacity is too small, or maxEntryBytes larger than it can hold
     * @throws dev.offheap.memory.BudgetExceededException if the budget or manager cannot hold the capacity
     * @throws java.util.concurrent.RejectedExecutionException if the clean-up executor refuses the schedule;
     *         nothing stays reserved
     */
    public static <K, V> OffHeapCache<K, V> create(CacheConfig<K, V> config) {
        OffHeapCacheImpl<K, V> cache = new OffHeapCacheImpl<>(config);
        if (config.cleanUpInterval() != null) {
            // after construction, so that the schedule never sees a cache half built; held weakly, so
            // that only the application keeps a cache alive (see NativeResources)
            ScheduledExecutorService executor = config.cleanUpExecutor() != null ? config.cleanUpExecutor()
                    : SharedCleanUpExecutor.INSTANCE;
            try {
                cache.cleanUpRuns = WeakSchedule.atFixedDelayWhileOpen(executor, cache, config.cleanUpInterval(),
                        OffHeapCacheImpl::cleanUp, OffHeapCacheImpl::isClosed, "scheduled clean-up");
            } catch (RuntimeException | Error e) {
                // an executor that refuses the schedule (shut down, say): the caller never gets this cache,
                // so it gives back its memory, budget or manager reservation and MBean now, not when the
                // collector finds it (with a warning that it was never closed)
                cache.close();
                throw e;
            }
        }
        return cache;
    }

    /** The daemon thread of the scheduled clean-ups of all caches without an executor of their own. */
    private static final class SharedCleanUpExecutor {
        static final ScheduledThreadPoolExecutor INSTANCE = WeakSchedule.daemonExecutor("offheap-cache-clean-up");
    }

    private OffHeapCacheImpl(CacheConfig<K, V> config) {
        this.mapView = new CacheMapView<>(this);
        this.name = config.name();
        this.keySerializer = config.keySerializer();
        this.valueSerializer = config.valueSerializer();
        this.byteArrayKeys = keySerializer == Serializer.byteArrays();
        this.byteArrayValues = valueSerializer == Serializer.byteArrays();
        this.capacityBytes = config.capacityBytes();
        this.expireAfterWriteMillis = millisCeil(config.expireAfterWrite());
        this.expireAfterAccessMillis = millisCeil(config.expireAfterAccess());
        boolean twoDeadlines = expireAfterWriteMillis > 0 && expireAfterAccessMillis > 0;
        // any entry may get a time to live of its own, and with it deadline fields
        this.maxHeaderBytes = RegionLayout.headerBytes(true, twoDeadlines);
        this.headerBytes = RegionLayout.headerBytes(expireAfterWriteMillis > 0 || expireAfterAccessMillis > 0,
                twoDeadlines);
        this.clock = config.nanoClock();
        this.stats = new StatsCounter(config.recordStats());
        this.listener = config.removalListener();
        this.loader = config.loader();
        if (capacityBytes < MIN_CAPACITY) {
            throw new IllegalStateException("capacity of " + capacityBytes + " bytes is too small for the cache's"
                    + " tables: at least " + MIN_CAPACITY + " bytes");
        }
        if (capacityBytes > MAX_CAPACITY) {
            throw new IllegalStateException("capacity of " + capacityBytes + " bytes is more than a cache can address:"
                    + " at most " + MAX_CAPACITY + " bytes (" + MAX_SHARDS + " segments of " + MAX_REGION_BYTES + " bytes)");
        }
        long requestedMaxEntry = config.maxEntryBytes();
        long maxEntry = requestedMaxEntry > 0 ? requestedMaxEntry : Math.max(capacityBytes / 16, 256);
        int level = config.concurrencyLevel() > 0 ? config.concurrencyLevel()
                : 4 * Runtime.getRuntime().availableProcessors();
        int shardCount = Math.min(MAX_SHARDS, Integer.highestOneBit(Math.max(1, level - 1)) << 1);
        if (level == 1) {
            shardCount = 1;
        }
        // every shard holds at least two of the largest entries, so one large entry never empties a shard
        while (shardCount > 1 && regionBytes(shardCount) < 2 * (maxEntry + 8) + Shard.initialTableBytes() + 1024) {
            shardCount >>= 1;
        }
        while (regionBytes(shardCount) > MAX_REGION_BYTES) {
            shardCount <<= 1;
        }
        long region = regionBytes(shardCount);
        long fits = region - Shard.initialTableBytes() - 2 * RegionLayout.UNIT;
        if (fits < headerBytes) {
            // a name so long that its heap bookkeeping leaves the region no room for an entry: not even the
            // smallest, its header with an empty key and value (a limit under that made every put fail)
            throw new IllegalStateException("capacity of " + capacityBytes + " bytes is too small for the cache's"
                    + " tables and its heap bookkeeping of " + (fixedHeapBytes(name) + Shard.HEAP_BYTES)
                    + " bytes (its name takes " + (fixedHeapBytes(name) - FIXED_HEAP_BYTES) + " of them)");
        }
        if (maxEntry > fits) {
            if (requestedMaxEntry > 0) {
                throw new IllegalStateException("maxEntryBytes of " + requestedMaxEntry
                        + " is more than a cache of capacity " + capacityBytes + " can hold: at most " + fits);
            }
            maxEntry = fits;
        }
        this.maxEntryBytes = maxEntry;
        this.heapBytes = fixedHeapBytes(name) + (long) shardCount * Shard.HEAP_BYTES;
        this.shardShift = 64 - Integer.numberOfTrailingZeros(shardCount);
        // before anything is reserved: a clock that throws leaves nothing behind
        this.startNanos = clock.getAsLong();
        this.resources = new NativeResources(name, capacityBytes, heapBytes, config.budget(), config.memoryManager(),
                stats);
        resources.reserve();
        Arena arena = Arena.ofShared();
        this.shards = new Shard[shardCount];
        this.firstShardId = LockHolds.reserveIds(shardCount);
        boolean tinyLfu = config.evictionPolicy() == EvictionPolicy.W_TINY_LFU;
        try {
            // One mapping for all the shards' regions, on huge pages where the system offers them: a lookup's
            // random reads then miss the TLB far less (see LargeRegions). region is a multiple of 8 bytes.
            MemorySegment regions = LargeRegions.allocate(region * shardCount, arena);
            for (int i = 0; i < shardCount; i++) {
                shards[i] = new Shard(regions.asSlice(i * region, region), tinyLfu, twoDeadlines, maxEntry, stats, name,
                        firstShardId + i);
            }
        } catch (RuntimeException | Error e) {
            arena.close();
            resources.unreserve();
            throw e;
        }
        this.release = resources.adopt(this, arena, shards);
    }

    /** @return the heap bytes charged to the capacity of a cache of this name besides its shards' */
    static long fixedHeapBytes(String name) {
        boolean latin1 = name.chars().allMatch(c -> c < 256);
        return FIXED_HEAP_BYTES + (long) HEAP_BYTES_PER_NAME_BYTE * name.length() * (latin1 ? 1 : 2);
    }

    private long regionBytes(int shardCount) {
        long heap = fixedHeapBytes(name) + (long) shardCount * Shard.HEAP_BYTES;
        return ((capacityBytes - heap) / shardCount) & ~(long) (RegionLayout.UNIT - 1);
    }

    private static long millisCeil(Duration duration) {
        if (duration == null) {
            return 0;
        }
        long nanos = saturatedNanos(duration);
        // ceilDiv, not (nanos + 999_999) / 1_000_000: that sum overflows for the longest durations
        // (Duration.ofNanos(Long.MAX_VALUE), "never"), which then expired after 1 ms
        return Math.max(1, Math.ceilDiv(nanos, 1_000_000));
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE - 1_000_000;
        }
    }

    // ------------------------------------------------------------------ plumbing

    private Shard shard(long hash) {
        return shards.length == 1 ? shards[0] : shards[(int) (hash >>> shardShift)];
    }

    private void checkOpen() {
        // one read of a second field, next to the closed flag: the thread-local check only runs while some
        // thread is inside compute's function
        if (closed || computing != 0) {
            checkOpenSlow();
        }
    }

    /**
     * Before a write waits for a segment's write lock: refused inside one of this cache's readers, whose
     * read lock it could wait for forever (its own segment's) or deadlock on (another reader's, crosswise).
     */
    private void checkNotInsideReader() {
        // the readers (and computes) the current thread is inside: a reader of one cache may use another,
        // and a deadlock of two threads doing that crosswise is broken by LockHolds
        if (LockHolds.current().holdsReadOf(firstShardId, shards.length)) {
            throw new IllegalStateException("cache '" + name + "' was written inside read()'s function, which holds"
                    + " the read lock of a segment: the write could wait for it forever; write after the read");
        }
    }

    private void checkOpenSlow() {
        if (closed) {
            throw closedException(null);
        }
        if (LockHolds.current().holdsWriteOf(firstShardId, shards.length)) {
            throw new IllegalStateException("cache '" + name + "' was used from inside compute's function (or a"
                    + " serializer it runs), which holds the lock of a segment: a call for that segment could"
                    + " never get it, and one for another could deadlock with a thread doing the reverse");
        }
    }

    private IllegalStateException closedException(Throwable cause) {
        return new IllegalStateException("cache '" + name + "' is closed", cause);
    }

    /** An {@link IllegalStateException} from a closed arena means the cache closed during the call. */
    private RuntimeException translate(IllegalStateException e) {
        return closed ? closedException(e) : e;
    }

    private boolean expiryInUse() {
        return expireAfterWriteMillis > 0 || expireAfterAccessMillis > 0 || ttlUsed;
    }

    /** @return nanoseconds since the cache was built, or {@link Long#MIN_VALUE} when nothing expires */
    private long readNanos() {
        return expiryInUse() ? clock.getAsLong() - startNanos : Long.MIN_VALUE;
    }

    /** @return the whole milliseconds since the cache was built, for expiry checks; MIN_VALUE when nothing expires */
    private long readClock() {
        return checkMillis(readNanos());
    }

    /**
     * A clock reading as expiry checks see it: the milliseconds that have fully passed, so that an entry is
     * expired once its deadline (a whole millisecond) has come.
     */
    private static long checkMillis(long nanos) {
        return nanos == Long.MIN_VALUE ? Long.MIN_VALUE : nanos / 1_000_000;
    }

    /**
     * A clock reading as deadlines count from: rounded up to the next whole millisecond, so that an entry
     * never expires before its time to live has passed (rounded down, an entry written 0.6 ms into a
     * millisecond expired 0.6 ms early, where Caffeine keeps it until its full duration has passed).
     */
    private static long deadlineBaseMillis(long nanos) {
        return nanos == Long.MIN_VALUE ? 0 : Math.ceilDiv(nanos, 1_000_000);
    }

    private long refreshDeadline(long nowMillis) {
        return expireAfterAccessMillis > 0 ? nowMillis + expireAfterAccessMillis : 0;
    }

    /** @return a collector for one operation's removals: a shared one when nothing is collected or timed */
    private Removals removals(long nowMillis) {
        if (listener == null && nowMillis == Long.MIN_VALUE) {
            return Removals.NONE;
        }
        return new Removals(listener != null, nowMillis, failingRemovals);
    }

    /**
     * For tests: the cause of the removals whose copy to the heap fails from now on, as it fails when the heap
     * is full ({@link Removals}); null for none, always so in use. Not thread-safe: set it while no other
     * thread uses the cache.
     */
    void failRemovalCopies(RemovalCause cause) {
        failingRemovals = cause;
    }

    private byte[] keyBytes(K key) {
        Objects.requireNonNull(key, "key");
        byte[] bytes;
        if (byteArrayKeys) {
            bytes = (byte[]) key;
        } else {
            // the declared size is checked before an array of that size is made (a huge one is an OOM)
            int size = declaredSize(keySerializer, key, "key");
            checkKeyLength(size);
            bytes = serialize(keySerializer, key, size, "key");
        }
        checkKeyLength(bytes.length);
        return bytes;
    }

    private static void checkKeyLength(int length) {
        if (length > RegionLayout.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("a key of " + length + " bytes is longer than the "
                    + RegionLayout.MAX_KEY_BYTES + " bytes a key may have");
        }
    }

    private MemorySegment valueSegment(V value, byte[] key) {
        Objects.requireNonNull(value, "value");
        if (byteArrayValues) {
            return checkedEntrySize(key, MemorySegment.ofArray((byte[]) value));
        }
        // refused on its declared size, as put refuses it, before an array of that size is made
        int size = declaredSize(valueSerializer, value, "value");
        checkedEntrySize(key, size);
        return MemorySegment.ofArray(serialize(valueSerializer, value, size, "value"));
    }

    /**
     * Serializes into a new array of the size the serializer already declared, with the checks of every
     * write of this cache ({@link #writeChecked}). Public for the JCache layer, which serializes a value
     * before its cache writer runs; not part of the public API. Thread-safe if {@code serializer} is.
     *
     * @throws SerializationException if the serializer threw, or wrote more or less than {@code size} bytes
     */
    public static <T> byte[] serialize(Serializer<T> serializer, T value, int size, String what) {
        byte[] bytes = new byte[size];
        writeChecked(serializer, value, MemorySegment.ofArray(bytes), what);
        return bytes;
    }

    /**
     * The serializer's declared size of a value, as a SerializationException if it throws or is negative.
     * Public for the JCache layer (see {@link #serialize}); not part of the public API.
     */
    public static <T> int declaredSize(Serializer<T> serializer, T value, String what) {
        int size;
        try {
            size = serializer.serializedSize(value);
        } catch (Exception e) { // checked ones too: a serializer may throw them undeclared (Kotlin, @SneakyThrows)
            throw new SerializationException("the " + what + " serializer " + serializer
                    + " threw in serializedSize: " + e, e);
        }
        if (size < 0) {
            throw new SerializationException("the " + what + " serializer " + serializer
                    + " declared a negative size: " + size + " bytes", null);
        }
        return size;
    }

    /**
     * Serializes into a target of exactly the declared size. Writing past it is a SerializationException, and so is
     * leaving its last byte unwritten (a serializedSize larger than what write writes): the last byte is set to a
     * random mark first, and a last byte that still holds the mark was either written as that value or not at all,
     * which a second write over another mark tells apart (so a serializer's write runs twice for about one value in
     * 256; the built-in serializers, which write exactly their size, are not checked).
     */
    private static <T> void writeChecked(Serializer<T> serializer, T value, MemorySegment target, String what) {
        long size = target.byteSize();
        if (size == 0 || isBuiltIn(serializer)) {
            writeOnce(serializer, value, target, what);
            return;
        }
        long last = size - 1;
        byte mark = (byte) ThreadLocalRandom.current().nextInt();
        target.set(ValueLayout.JAVA_BYTE, last, mark);
        writeOnce(serializer, value, target, what);
        if (target.get(ValueLayout.JAVA_BYTE, last) == mark) {
            byte otherMark = (byte) ~mark;
            target.set(ValueLayout.JAVA_BYTE, last, otherMark);
            writeOnce(serializer, value, target, what);
            if (target.get(ValueLayout.JAVA_BYTE, last) == otherMark) {
                throw new SerializationException("the " + what + " serializer " + serializer + " wrote less than the "
                        + size + " bytes it declared: the last of them was never written", null);
            }
        }
    }

    private static <T> void writeOnce(Serializer<T> serializer, T value, MemorySegment target, String what) {
        try {
            serializer.write(value, target);
        } catch (IndexOutOfBoundsException e) {
            throw new SerializationException("the " + what + " serializer " + serializer
                    + " wrote more than the " + target.byteSize() + " bytes it declared", e);
        } catch (Exception e) { // checked ones too, as in declaredSize: else they passed the callers' clean-up
            throw new SerializationException("the " + what + " serializer " + serializer + " threw in write: " + e, e);
        }
    }

    /**
     * @return whether {@code serializer} is one of {@link Serializer}'s own, which write exactly their size
     *         and never throw for a value of their type (public for the JCache layer; not public API)
     */
    public static boolean isBuiltIn(Serializer<?> serializer) {
        return serializer == Serializer.byteArrays() || serializer == Serializer.strings()
                || serializer == Serializer.longs() || serializer == Serializer.integers()
                || serializer == Serializer.segments();
    }

    @SuppressWarnings("unchecked")
    private V value(byte[] bytes) {
        if (byteArrayValues) {
            return (V) bytes;
        }
        return deserialize(valueSerializer, bytes, "value");
    }

    @SuppressWarnings("unchecked")
    private K key(byte[] bytes) {
        if (byteArrayKeys) {
            return (K) bytes;
        }
        return deserialize(keySerializer, bytes, "key");
    }

    private static <T> T deserialize(Serializer<T> serializer, byte[] bytes, String what) {
        return deserialize(serializer, MemorySegment.ofArray(bytes), what);
    }

    /**
     * Reads a value from its bytes (given to the serializer read-only), as a SerializationException if the
     * serializer throws or reads null (public for the JCache layer; not public API).
     */
    public static <T> T deserialize(Serializer<T> serializer, MemorySegment bytes, String what) {
        T result;
        try {
            result = serializer.read(bytes.asReadOnly());
        } catch (Exception e) { // checked ones too, as in declaredSize
            throw new SerializationException("the " + what + " serializer " + serializer + " threw in read of "
                    + bytes.byteSize() + " bytes: " + e, e);
        }
        if (result == null) {
            throw new SerializationException("the " + what + " serializer " + serializer + " read null from "
                    + bytes.byteSize() + " bytes", null);
        }
        return result;
    }

    private void notifyListener(Removals removals) {
        notifyListener(removals, null);
    }

    /**
     * Tells the listener every removal, even after it threw: those entries are gone already, and nothing
     * would tell them later. An exception it throws is logged; its first Error (or other throwable), the
     * later ones suppressed in it, is thrown once all were told, or each is kept in {@code bulk}.
     *
     * @param bulk where an operation on many entries keeps the listener's failures until it has done all its
     *             work ({@link ListenerErrors}); null to throw at once
     */
    private void notifyListener(Removals removals, ListenerErrors bulk) {
        if (listener == null) {
            return;
        }
        Throwable error = null;
        for (Object[] removal : removals.removed()) {
            try {
                listener.onRemoval(key((byte[]) removal[0]), value((byte[]) removal[1]), (RemovalCause) removal[2]);
            } catch (Exception e) { // checked ones thrown undeclared too: logged, and the other removals still told
                LOG.log(System.Logger.Level.WARNING, "removal listener of cache '" + name + "' threw", e);
            } catch (Throwable e) {
                if (bulk != null) {
                    bulk.add(e);
                } else {
                    error = Failures.firstOrSuppressed(error, e);
                }
            }
        }
        Failures.throwIfAny(error);
    }

    /**
     * The removal listener's Errors during an operation on many entries ({@link #bulk}), kept until the
     * operation has done all its work. One operation's, on one thread.
     */
    static final class ListenerErrors {
        private Throwable first;

        private ListenerErrors() {
        }

        void add(Throwable error) {
            first = Failures.firstOrSuppressed(first, error);
        }
    }

    /**
     * Runs an operation on many entries (putAll, invalidateAll, cleanUp, getAll's loads, the map view's bulk
     * methods), or one that has more to do after its write (a load completing its waiters' result), whose
     * every removal tells the listener with {@code errors}: an Error the listener throws
     * does not stop it midway (the rest neither removed nor told), it does all its work, and then the
     * listener's first Error is thrown, the later ones suppressed in it, as an operation on one entry
     * throws its listener's Error once every removal of the call was told. A failure of the operation itself
     * (the cache closed, a value over the limit, a checked exception a user's filter or function throws
     * undeclared) is thrown with the listener's Errors suppressed in it.
     */
    <R> R bulk(Function<ListenerErrors, R> operation) {
        ListenerErrors errors = new ListenerErrors();
        R result;
        try {
            result = operation.apply(errors);
        } catch (Throwable e) {
            // Throwable: a filter or function written in Kotlin (or with a sneaky throw) throws checked exceptions,
            // which went past a catch of RuntimeException and Error and lost the listener's Errors
            if (errors.first != null && errors.first != e) {
                e.addSuppressed(errors.first);
            }
            throw e;
        }
        Failures.throwIfAny(errors.first);
        return result;
    }

    /**
     * Deadlines for a write, packed in a long (not an array: one less allocation per write): the encoded
     * deadline in the low 32 bits ({@link #deadline}), the encoded write deadline in the high ones
     * ({@link #writeDeadline}). The deadline is fixed (not extended by reads) when the entry has a time to
     * live of its own, {@code timeToLiveMillis > 0}.
     */
    private long deadlines(long nowMillis, long timeToLiveMillis) {
        if (timeToLiveMillis > 0) {
            return packDeadlines(Deadlines.encode(nowMillis + timeToLiveMillis), 0);
        }
        if (expireAfterAccessMillis > 0) {
            int write = expireAfterWriteMillis > 0 ? Deadlines.encode(nowMillis + expireAfterWriteMillis) : 0;
            return packDeadlines(Deadlines.encode(nowMillis + expireAfterAccessMillis), write);
        }
        if (expireAfterWriteMillis > 0) {
            return packDeadlines(Deadlines.encode(nowMillis + expireAfterWriteMillis), 0);
        }
        return packDeadlines(Deadlines.NEVER, Deadlines.NEVER);
    }

    private static long packDeadlines(int deadline, int writeDeadline) {
        return (deadline & 0xFFFF_FFFFL) | ((long) writeDeadline << 32);
    }

    private static int deadline(long deadlines) {
        return (int) deadlines;
    }

    private static int writeDeadline(long deadlines) {
        return (int) (deadlines >>> 32);
    }

    /**
     * The start of every write: loads the key's bucket (and, for a write that may count in the frequency
     * sketch, its counters) before the lock, so that those cache misses overlap rather than queue up
     * under it (puts of 100-byte values among 1,000,000 keys: +12-21% in three alternating JMH rounds);
     * then, under the lock, replays reads and removes expired queue heads.
     */
    private long lockForWrite(Shard shard, long hash, boolean mayCount, Removals removals) {
        prefetchSink(mayCount ? shard.prefetchForWrite(hash) : shard.prefetchBucket(hash));
        long stamp = shard.lockWrite();
        try {
            shard.drainReadsLocked();
            if (removals.nowMillis != Long.MIN_VALUE) {
                shard.expireLocked(removals.nowMillis, removals);
            }
        } catch (RuntimeException | Error e) {
            shard.unlockWrite(stamp);
            throw e;
        }
        return stamp;
    }

    /**
     * Buckets {@link #cleanUp()} looks at per hold of a segment's write lock, the longest a read or
     * write waits for it: at about one entry a bucket and 212 ns per entry removed (measured, a million
     * entries), about 0.2 ms.
     */
    private static final int CLEAN_UP_BUCKETS = 1024;

    /**
     * Clean-ups run at once if called at once: each holds a segment's write lock for one batch of buckets
     * at a time and tells the removal listener between batches with no lock of the cache held, as
     * {@link dev.offheap.cache.RemovalListener} promises (one at a time, under a lock of their own, a
     * listener that waited for another thread's {@code cleanUp()} waited for good). Of concurrent passes
     * over a segment the first owns its deadline bound (see {@link Shard#expireBucketsLocked}).
     */
    @Override
    public void cleanUp() {
        checkOpen();
        checkNotInsideReader();
        long now = readClock();
        bulk(errors -> {
            cleanUpShards(now, errors);
            return null;
        });
    }

    /** @param errors where the listener's Errors are kept, so that one does not stop the pass midway */
    private void cleanUpShards(long now, ListenerErrors errors) {
        Object pass = new Object();
        try {
            for (Shard shard : shards) {
                int bucket = 0;
                boolean passed = false;
                try {
                    do {
                        Removals removals = removals(now);
                        try {
                            long stamp = shard.lockWrite();
                            try {
                                if (bucket == 0) {
                                    shard.drainReadsLocked();
                                }
                                bucket = now == Long.MIN_VALUE ? -1
                                        : shard.expireBucketsLocked(bucket, CLEAN_UP_BUCKETS, now, removals, pass);
                            } finally {
                                shard.unlockWrite(stamp);
                            }
                        } finally {
                            notifyListener(removals, errors);
                        }
                    } while (bucket >= 0);
                    passed = true;
                } finally {
                    if (!passed) {
                        abandonPass(shard, pass);
                    }
                }
            }
        } catch (IllegalStateException e) {
            throw translate(e);
        }
    }

    /**
     * What {@link #removeEntriesIf} asks of each entry: whether to remove it. Not part of the public API:
     * the JCache layer's expiry sweep, which reads the expiry time at the start of each value.
     */
    @FunctionalInterface
    public interface Sweeper {
        /**
         * Called under the write lock of the entry's segment: the cache refuses this thread's calls meanwhile.
         * Work that may throw comes before the answer: an entry whose call threw is kept.
         *
         * @param key   the entry's serialized key, in place: read-only use, valid only during the call
         * @param value the entry's serialized value, in place: read-only use, valid only during the call
         * @return whether the entry is removed (as a compute returning null removes it, EXPLICIT to the
         *         removal listener, no eviction or expiration counted)
         */
        boolean removes(MemorySegment key, MemorySegment value);
    }

    /**
     * Offers every live entry to {@code sweeper} in place, segment by segment, and removes those it
     * accepts: one pass over each segment's table under its write lock, {@link #CLEAN_UP_BUCKETS} buckets
     * per hold as {@link #cleanUp()} does, with no key or value copied or deserialized and no access
     * recorded (the eviction order and the statistics of the entries kept do not change). After each hold
     * of a lock, with no lock of the cache held, {@code afterBatch} runs and the removal listener is told,
     * also where the batch ended with a failure. An entry present for the whole pass is offered at least
     * once; one the table's growth moved may be offered twice.
     *
     * <p>Not part of the public API: the JCache layer's expiry sweep. Thread-safe.
     *
     * @throws IllegalStateException if the cache is closed, or this thread is inside one of its functions
     * @throws RuntimeException      what {@code sweeper} or {@code afterBatch} throws, after the batch
     */
    public void removeEntriesIf(Sweeper sweeper, Runnable afterBatch) {
        Objects.requireNonNull(sweeper, "sweeper");
        Objects.requireNonNull(afterBatch, "afterBatch");
        checkOpen();
        checkNotInsideReader();
        long now = readClock();
        bulk(errors -> {
            try {
                for (Shard shard : shards) {
                    int bucket = 0;
                    do {
                        Removals removals = removals(now);
                        try {
                            long stamp = shard.lockWrite();
                            LockHolds holds = enterUserCodeLocked(shard);
                            try {
                                if (bucket == 0) {
                                    shard.drainReadsLocked();
                                }
                                bucket = shard.sweepBucketsLocked(bucket, CLEAN_UP_BUCKETS, now, sweeper, removals);
                            } finally {
                                leaveUserCode(holds);
                                shard.unlockWrite(stamp);
                            }
                        } finally {
                            try {
                                notifyListener(removals, errors);
                            } finally {
                                afterBatch.run();
                            }
                        }
                    } while (bucket >= 0);
                }
            } catch (IllegalStateException e) {
                throw translate(e);
            }
            return null;
        });
    }

    /** Lets another pass own the segment's deadline bound after this one stopped midway (the cache was closed). */
    private static void abandonPass(Shard shard, Object pass) {
        long stamp;
        try {
            stamp = shard.lockWrite();
        } catch (IllegalStateException closed) {
            return; // closed: no pass will run again
        }
        try {
            shard.abandonPassLocked(pass);
        } finally {
            shard.unlockWrite(stamp);
        }
    }

    /**
     * One write in 64 also cleans a random other segment (if its lock is free), so expired entries of
     * segments that see no writes leave too.
     */
    private void sweepAnotherShard(long nowMillis, ListenerErrors bulk) {
        if (nowMillis == Long.MIN_VALUE || shards.length == 1) {
            return;
        }
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        if ((random.nextInt() & 63) != 0) {
            return;
        }
        Removals removals = removals(nowMillis);
        try {
            shards[random.nextInt(shards.length)].tryExpire(nowMillis, removals);
        } catch (IllegalStateException e) {
            throw translate(e);
        }
        notifyListener(removals, bulk);
    }

    /**
     * Under the write lock: gives a live entry a new value (without a time to live of its own). In place
     * where the entry keeps its block size, as a put does: it keeps its place in the eviction order and the
     * write counts as an access for the policy, as an update does in Caffeine. Else it moves to a new block, a
     * new entry of the window ({@link Shard#moveLocked}): placed before the old entry leaves, so a failure
     * on the way leaves the old value, its replacement untold.
     *
     * @param told whether the value replaced is told as REPLACED: not for a compute that kept its value
     */
    private void rewriteLocked(Shard shard, int entry, long hash, byte[] key, MemorySegment value, long deadlines,
                               boolean told, Removals removals) {
        if (!shard.overwriteLocked(entry, hash, key.length, value, deadline(deadlines), writeDeadline(deadlines),
                false, told, removals)
                && !shard.moveLocked(entry, hash, key, value, deadline(deadlines), writeDeadline(deadlines), false,
                told, removals)) {
            throw tooLarge(shard, key, value, deadlines);
        }
    }

    private void store(Shard shard, long hash, byte[] key, MemorySegment value, long deadlines, boolean fixedTtl,
                       Removals removals) {
        if (!shard.insertLocked(hash, key, value, deadline(deadlines), writeDeadline(deadlines), fixedTtl, removals)) {
            throw tooLarge(shard, key, value, deadlines);
        }
    }

    private ValueTooLargeException tooLarge(Shard shard, byte[] key, MemorySegment value, long deadlines) {
        return new ValueTooLargeException((long) shard.headerBytesFor(deadline(deadlines)) + key.length + value.byteSize(),
                maxEntryBytes);
    }

    // ------------------------------------------------------------------ reads

    @Override
    public V getIfPresent(K key) {
        byte[] bytes = lookup(key, true);
        return bytes == null ? null : value(bytes);
    }

    private byte[] lookup(K key, boolean count) {
        byte[] k = keyBytes(key);
        checkOpen();
        long hash = Hashing.hash(k);
        return lookupBytes(k, hash, count);
    }

    private byte[] lookupBytes(byte[] k, long hash, boolean count) {
        return lookupBytes(k, hash, count, true);
    }

    /**
     * @param access whether the lookup is an access: the eviction policy hears of it and an access deadline
     *               moves (not for an iterator's look at each entry, as a quiet read has it)
     */
    private byte[] lookupBytes(byte[] k, long hash, boolean count, boolean access) {
        try {
            long nanos = readNanos();
            long now = checkMillis(nanos);
            byte[] value = shard(hash).getCopy(hash, k, now,
                    now == Long.MIN_VALUE || !access ? 0 : refreshDeadline(deadlineBaseMillis(nanos)), access);
            if (count) {
                if (value == null) {
                    stats.miss();
                } else {
                    stats.hit();
                }
            }
            return value;
        } catch (IllegalStateException e) {
            throw translate(e);
        }
    }

    @Override
    public V get(K key) {
        Objects.requireNonNull(key, "key"); // a null key is that, with a loader or without
        if (loader == null) {
            checkOpen();
            throw new IllegalStateException("cache '" + name + "' was built without a loader: use get(key, loader)"
                    + " or CacheBuilder.loader");
        }
        return get(key, this::loadWithLoader);
    }

    /** The builder's {@link CacheLoader#load}, a checked exception wrapped as {@link #loadOnce} unwraps it. */
    private V loadWithLoader(K key) {
        try {
            return loader.load(key);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    @Override
    public V get(K key, Function<? super K, ? extends V> mappingFunction) {
        Objects.requireNonNull(mappingFunction, "loader");
        byte[] k = keyBytes(key);
        checkOpen();
        long hash = Hashing.hash(k);
        byte[] present = lookupBytes(k, hash, true);
        if (present != null) {
            return value(present);
        }
        return loadOnce(key, k, hash, mappingFunction, false).value();
    }

    /**
     * What a single-flight load gave its caller: the value, and whether it is this thread's own (loaded here
     * or read back here) rather than another thread's load result, which may be that thread's reusable buffer.
     */
    private record Loaded<V>(V value, boolean ownValue) {
    }

    /**
     * Under the key's segment write lock: tells a load running for the key (other than {@code own}) that
     * the key changed, so that it does not store what it loaded.
     */
    private void supersedeLoadOf(byte[] k, Load<V> own) {
        if (!loads.isEmpty()) {
            Load<V> running = loads.get(new Bytes(k));
            if (running != null && running != own) {
                running.superseded = true;
            }
        }
    }

    /**
     * Runs the loader for an absent key, at most once per key at a time; other callers wait for its result.
     *
     * @param readsInPlace whether the caller is {@link #readOrLoad}, which uses only a value of its own: its
     *                     load's value is not handed to waiting callers, and another thread's value is fine for it
     */
    private Loaded<V> loadOnce(K key, byte[] k, long hash, Function<? super K, ? extends V> mappingFunction,
                               boolean readsInPlace) {
        // a load ends in a write, and waiting for another thread's load inside a reader could wait for that
        // thread's write, which waits for the reader's lock: refused there, as writes are
        checkNotInsideReader();
        Bytes id = new Bytes(k);
        Load<V> mine = new Load<>(Thread.currentThread(), new CompletableFuture<>(), !readsInPlace);
        Load<V> running;
        while ((running = loads.putIfAbsent(id, mine)) != null) {
            V value = awaitLoad(key, running);
            if (value != null && (running.shared || readsInPlace) && !running.superseded) {
                return new Loaded<>(value, false);
            }
            // that load was a getAll whose loadAll left this key out, or a readOrLoad whose value (its thread's
            // buffer, perhaps, reused for its next key) is not for this caller, or a load that a write of the
            // key superseded (its value was read before that write, which this caller may have come after):
            // read the stored value or load it here (and do not find that finished load again, going round
            // until its thread unregisters it)
            loads.remove(id, running);
        }
        // others may wait for this load from now on: a lock this thread then waits for is a wait they are in
        LockHolds holds = LockHolds.current();
        holds.startLoad();
        try {
            byte[] stored = lookupBytes(k, hash, false);
            if (stored != null) {
                V value = value(stored);
                mine.result.complete(value);
                return new Loaded<>(value, true);
            }
            V loaded;
            long start = System.nanoTime();
            try {
                loaded = mappingFunction.apply(key);
            } catch (Error e) {
                stats.loadFailure(System.nanoTime() - start);
                throw e;
            } catch (Exception e) {
                // checked exceptions too: a loader may throw them undeclared (Kotlin, Lombok's @SneakyThrows),
                // and one that passed here as it was failed neither this call as documented nor the waiters
                stats.loadFailure(System.nanoTime() - start);
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                keepInterrupt(cause);
                CacheLoadException failure = new CacheLoadException("loading the value of key " + key
                        + " in cache '" + name + "' failed: " + cause, cause);
                mine.result.completeExceptionally(failure);
                throw failure;
            }
            if (loaded == null) {
                stats.loadFailure(System.nanoTime() - start);
                CacheLoadException failure = new CacheLoadException("the loader returned null for key " + key
                        + " in cache '" + name + "'", null);
                mine.result.completeExceptionally(failure);
                throw failure;
            }
            long loadNanos = System.nanoTime() - start;
            bulk(errors -> {
                try {
                    write(key, loaded, 0, mine, errors);
                } catch (Throwable e) {
                    // not stored (a value over the entry limit, a serializer's failure, the cache closed): the
                    // callers get this failure, and a failure is what the statistics count
                    stats.loadFailure(loadNanos);
                    throw e;
                }
                stats.loadSuccess(loadNanos);
                // stored: the load's result for the callers that wait for it, whatever the listener threw
                // about what the write removed (its Error is this caller's, as any write's)
                mine.result.complete(loaded);
                return null;
            });
            return new Loaded<>(loaded, true);
        } catch (Throwable e) {
            // anything, a checked exception a serializer throws undeclared too: a load left unfinished here is
            // unregistered below, and the threads waiting for it would wait forever
            mine.result.completeExceptionally(e);
            throw e;
        } finally {
            loads.remove(id, mine);
            holds.endLoad();
        }
    }

    /**
     * A loader that threw {@link InterruptedException} fails its call as any exception does, but the
     * thread's interrupt status, which catching it cleared, is set again, as Caffeine's loading cache does:
     * the code around the cache call (a worker's loop, an executor shutting down) must still see it.
     */
    private static void keepInterrupt(Throwable loaderFailure) {
        if (loaderFailure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public <R> R readOrLoad(K key, Function<? super K, ? extends V> mappingFunction,
            Function<? super MemorySegment, ? extends R> reader) {
        Objects.requireNonNull(mappingFunction, "loader");
        Objects.requireNonNull(reader, "reader");
        byte[] k = keyBytes(key);
        checkOpen();
        long hash = Hashing.hash(k);
        boolean counted = false;
        while (true) {
            Object result = readInPlace(k, hash, reader, !counted, true);
            if (result != ABSENT) {
                return cast(result);
            }
            counted = true;
            Loaded<V> loaded = loadOnce(key, k, hash, mappingFunction, true);
            result = readInPlace(k, hash, reader, false, true);
            if (result != ABSENT) {
                return cast(result);
            }
            if (loaded.ownValue()) {
                // stored and already evicted or expired (a full, busy cache): the reader sees this load's bytes
                return readTransient(loaded.value(), reader);
            }
            // another thread's load, gone before this thread read it: go round (this thread may load it next)
        }
    }

    @SuppressWarnings("unchecked")
    private static <R> R cast(Object result) {
        return (R) result;
    }

    /** The value serialized into memory of the reader's call only, for a value that did not stay cached. */
    private <R> R readTransient(V value, Function<? super MemorySegment, ? extends R> reader) {
        // byte[] values too: a view of the loaded array would outlive the call and be usable from any thread
        int size = declaredSize(valueSerializer, value, "value");
        try (Arena call = Arena.ofConfined()) {
            MemorySegment bytes = call.allocate(size);
            writeChecked(valueSerializer, value, bytes, "value");
            return reader.apply(bytes.asReadOnly());
        }
    }

    private V awaitLoad(K key, Load<V> running) {
        Thread current = Thread.currentThread();
        if (running.loader == current) {
            throw new IllegalStateException("recursive load of key " + key + " in cache '" + name
                    + "': the loader asked the cache for the key it is loading");
        }
        // registered before the look along the chain: of two threads closing a cycle at once, the later
        // one to register sees the other's registration
        WAITING.put(current, running);
        try {
            if (closed) {
                throw closedException(null); // close() may have failed the running loads before this one came
            }
            Thread blocked = waitsForItself(current, running);
            if (blocked != null) {
                throw new IllegalStateException("recursive load of key " + key + " in cache '" + name
                        + "': it is loaded by thread " + blocked.getName() + ", which waits, through loads of"
                        + " other threads or its own, for a load of this thread");
            }
            return LockHolds.awaitLoad(running.result, running.loader, name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CacheLoadException("interrupted while waiting for another thread's load of key " + key, e);
        } catch (ExecutionException e) {
            // An exception of this caller's own, never the object the loading thread throws (or close() gave
            // every waiter): that one has the loading thread's stack trace, and is thrown in several threads
            // at once, which may add suppressed exceptions to it concurrently.
            Throwable cause = e.getCause();
            if (cause instanceof CacheLoadException loadFailure) {
                throw new CacheLoadException(loadFailure.getMessage(), loadFailure.getCause());
            }
            if (closed && cause instanceof IllegalStateException) {
                throw closedException(cause); // closed during the load: what a call of a closed cache throws
            }
            // an Error of the loader, or what kept its value from being stored (a value over the entry limit,
            // a serializer's failure, a deadlock given up in the load's write)
            throw new CacheLoadException("loading the value of key " + key + " in cache '" + name + "' failed: "
                    + cause, cause);
        } finally {
            WAITING.remove(current, running);
        }
    }

    /**
     * The load each thread waits for in {@link #awaitLoad}, across all caches: a thread that would wait
     * for a load whose thread waits (directly or along a chain) for a load of the waiting thread would wait
     * forever, as would the others.
     */
    private static final ConcurrentHashMap<Thread, Load<?>> WAITING = new ConcurrentHashMap<>();

    /** @return the thread of {@code running} if waiting for it closes a cycle back to {@code current}, or null */
    private static Thread waitsForItself(Thread current, Load<?> running) {
        Load<?> load = running;
        // bounded: a chain changing under the walk could otherwise loop
        for (int hops = 0; hops < 1024 && load != null && !load.result.isDone(); hops++) {
            if (load.loader == current) {
                return running.loader;
            }
            load = WAITING.get(load.loader);
        }
        return null;
    }

    @Override
    public Map<K, V> getAllPresent(Iterable<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        checkOpen(); // an empty iterable never reaches a lookup's check
        Map<K, V> result = new LinkedHashMap<>();
        lookupAll(keys, result, null);
        return result;
    }

    /** Keys a batched lookup serializes and prefetches together (see {@link #lookupBatch}). */
    private static final int LOOKUP_BATCH = 32;

    /**
     * Looks up every key, in batches: the present ones go to {@code present}, the others to
     * {@code absent} (if not null) and to {@code present} with a null value, which keeps the key's place in
     * the order asked for the value a load may give it. Counts a hit or a miss for each.
     */
    private void lookupAll(Iterable<? extends K> keys, Map<K, V> present, Set<K> absent) {
        List<K> batch = new ArrayList<>(LOOKUP_BATCH);
        byte[][] serialized = new byte[LOOKUP_BATCH][];
        long[] hashes = new long[LOOKUP_BATCH];
        for (K key : keys) {
            serialized[batch.size()] = keyBytes(key);
            hashes[batch.size()] = Hashing.hash(serialized[batch.size()]);
            batch.add(key);
            if (batch.size() == LOOKUP_BATCH) {
                lookupBatch(batch, serialized, hashes, present, absent);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            lookupBatch(batch, serialized, hashes, present, absent);
        }
    }

    /**
     * One batch of {@link #lookupAll}. In a cache larger than the processor's caches every lookup waits
     * for a few cache misses in a row (bucket, then entry, then the value's further lines), and one
     * lookup after another waits for them one after another. So the batch first loads every key's
     * bucket, then every bucket's first entry, without a lock and keeping nothing (loads that do not
     * depend on each other, whose misses overlap), and only then looks the keys up as
     * {@link #getIfPresent} does, in memory that is now in cache. The early loads decide nothing: a
     * bucket or entry that changes in between costs only the miss it was meant to save.
     */
    private void lookupBatch(List<K> batch, byte[][] serialized, long[] hashes, Map<K, V> present, Set<K> absent) {
        checkOpen();
        int n = batch.size();
        int[] heads = new int[n];
        long loaded = 0;
        try {
            for (int i = 0; i < n; i++) {
                heads[i] = shard(hashes[i]).prefetchBucket(hashes[i]);
            }
            for (int i = 0; i < n; i++) {
                loaded ^= shard(hashes[i]).prefetchEntry(heads[i]);
            }
        } catch (IllegalStateException e) {
            throw translate(e); // closed meanwhile: the regions' arena is gone
        }
        prefetchSink(loaded);
        for (int i = 0; i < n; i++) {
            byte[] bytes = lookupBytes(serialized[i], hashes[i], true);
            K key = batch.get(i);
            if (bytes != null) {
                present.put(key, value(bytes));
            } else if (absent != null) {
                absent.add(key);
                present.putIfAbsent(key, null); // its place in the order asked, if it gets a value (see getAll)
            }
        }
    }

    /** Keeps prefetching loads from being optimized away: what they read is compared, almost never stored. */
    @SuppressWarnings("unused")
    private long prefetched;

    private void prefetchSink(long loaded) {
        if (loaded == 0x5EED_5EED_5EED_5EEDL) {
            prefetched = loaded;
        }
    }

    @Override
    public Map<K, V> getAll(Iterable<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        checkOpen();
        if (loader == null) {
            for (K key : keys) {
                Objects.requireNonNull(key, "key"); // a null key is that, with a loader or without
            }
            throw new IllegalStateException("cache '" + name + "' was built without a loader");
        }
        // in the order asked, as Caffeine's: the absent keys hold their places with null until loaded
        Map<K, V> result = new LinkedHashMap<>();
        Set<K> absent = new LinkedHashSet<>();
        lookupAll(keys, result, absent);
        if (absent.isEmpty()) {
            return result;
        }
        bulk(errors -> {
            loadAbsent(absent, result, errors);
            return null;
        });
        result.values().removeIf(Objects::isNull); // the keys that got no value
        return result;
    }

    /**
     * getAll's loads of the keys it did not find, into {@code result}.
     *
     * @param errors where the listener's Errors of the loads' writes are kept, so that one does not stop the
     *               storing of the other values
     */
    private void loadAbsent(Set<K> absent, Map<K, V> result, ListenerErrors errors) {
        // One load per key at a time, as get(key) keeps it: the keys another thread is loading are waited
        // for, only the others go to loadAll. Not inside a reader (see loadOnce).
        checkNotInsideReader();
        Map<K, Load<V>> mine = new LinkedHashMap<>();
        Map<K, Load<V>> others = new LinkedHashMap<>();
        Map<K, Bytes> ids = new HashMap<>();
        // keys with the same bytes as an earlier key of the call (byte[] keys, or keys whose equals is finer
        // than their bytes): one cache key, loaded once; waiting for this call's own load of it would fail
        Map<Bytes, K> firstOf = new HashMap<>();
        Map<K, K> sameBytesAs = new LinkedHashMap<>();
        try {
            for (K key : absent) {
                Bytes id = new Bytes(keyBytes(key));
                K first = firstOf.putIfAbsent(id, key);
                if (first != null) {
                    sameBytesAs.put(key, first);
                    continue;
                }
                Load<V> load = new Load<>(Thread.currentThread(), new CompletableFuture<>(), true);
                Load<V> running = loads.putIfAbsent(id, load);
                if (running == null) {
                    ids.put(key, id);
                    mine.put(key, load);
                } else {
                    others.put(key, running);
                }
            }
            LockHolds holds = LockHolds.current();
            holds.startLoad();
            try {
                loadAllOf(mine, ids, result, errors);
            } finally {
                holds.endLoad();
            }
            for (Map.Entry<K, Load<V>> other : others.entrySet()) {
                Load<V> running = other.getValue();
                V value = running.shared ? awaitLoad(other.getKey(), running) : null;
                if (!running.shared || running.superseded) {
                    // a readOrLoad's, whose value is not handed out (see Load.shared), or one a write of the key
                    // superseded: as a get, wait for it and then read the stored value, or load the key if it is
                    // gone
                    byte[] k = keyBytes(other.getKey());
                    result.put(other.getKey(), loadOnce(other.getKey(), k, Hashing.hash(k), this::loadWithLoader, false)
                            .value());
                    continue;
                }
                if (value != null) {
                    result.put(other.getKey(), value);
                }
            }
            for (Map.Entry<K, K> same : sameBytesAs.entrySet()) {
                V value = result.get(same.getValue());
                if (value != null) {
                    result.put(same.getKey(), value);
                }
            }
        } catch (Throwable e) {
            // the loads this call registered and did not finish: their waiters get what stopped it (a
            // failed loadAll, the cache closed meanwhile, a checked exception a serializer threw undeclared:
            // anything, or they would wait forever)
            for (Load<V> load : mine.values()) {
                load.result.completeExceptionally(e);
            }
            throw e;
        } finally {
            for (Map.Entry<K, Bytes> id : ids.entrySet()) {
                loads.remove(id.getValue(), mine.get(id.getKey()));
            }
        }
    }

    /**
     * Loads the keys this thread registered loads for with one {@code loadAll}, stores and returns what it
     * gives and completes each key's load (null for a key it left out). A key that another thread stored
     * since the lookup is taken as it is.
     */
    private void loadAllOf(Map<K, Load<V>> mine, Map<K, Bytes> ids, Map<K, V> result, ListenerErrors errors) {
        Set<K> toLoad = new LinkedHashSet<>();
        for (Map.Entry<K, Load<V>> registered : mine.entrySet()) {
            byte[] k = ids.get(registered.getKey()).bytes();
            byte[] stored = lookupBytes(k, Hashing.hash(k), false);
            if (stored != null) {
                V value = value(stored);
                result.put(registered.getKey(), value);
                finish(registered.getValue(), ids.get(registered.getKey()), value);
            } else {
                toLoad.add(registered.getKey());
            }
        }
        if (toLoad.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        Map<? super K, V> loaded;
        try {
            @SuppressWarnings("unchecked")
            Map<? super K, V> all = ((CacheLoader<K, V>) loader).loadAll(Collections.unmodifiableSet(toLoad));
            loaded = all;
        } catch (Error e) {
            stats.loadFailure(System.nanoTime() - start);
            throw e;
        } catch (Exception e) {
            stats.loadFailure(System.nanoTime() - start);
            keepInterrupt(e);
            CacheLoadException failure = new CacheLoadException("loading " + toLoad.size() + " keys in cache '" + name
                    + "' failed: " + e, e);
            toLoad.forEach(key -> mine.get(key).result.completeExceptionally(failure));
            throw failure;
        }
        if (loaded == null) {
            stats.loadFailure(System.nanoTime() - start);
            throw new CacheLoadException("loadAll returned null in cache '" + name + "'", null);
        }
        long loadNanos = System.nanoTime() - start;
        // counted once the values are stored: a value of an asked key that cannot be stored fails the call,
        // and that is a load failure (one for the whole loadAll, as its success is one)
        Throwable notStored = null;
        boolean stored = false;
        try {
            notStored = storeLoaded(loaded, mine, ids, toLoad, result, errors);
            stored = notStored == null;
        } finally {
            if (stored) {
                stats.loadSuccess(loadNanos);
            } else {
                stats.loadFailure(loadNanos);
            }
        }
        // as a get whose value cannot be stored: the failure as it is, once every other value is stored
        Failures.throwIfAny(notStored);
    }

    /**
     * Stores what {@link #loadAllOf}'s {@code loadAll} gave, into {@code result}, and completes each key's
     * load: with its value, with null for a key loadAll left out, or with what kept its value from being
     * stored (a value over the entry limit, a serializer's failure, the cache closed), so that the callers
     * waiting for each key get that key's own outcome. A value that cannot be stored does not stop the
     * others: it stopped them, and the keys after it were neither stored nor returned, their waiters given
     * its failure. Keys that were not asked for are stored as puts; one that cannot be stored is skipped
     * and logged (nobody asked for it: it failed the call, every asked key stored).
     *
     * @return what kept values of asked keys from being stored, the first with the later ones suppressed in
     *         it; null if every value given for an asked key was stored
     */
    private Throwable storeLoaded(Map<? super K, V> loaded, Map<K, Load<V>> mine, Map<K, Bytes> ids, Set<K> toLoad,
                                  Map<K, V> result, ListenerErrors errors) {
        Map<K, V> values = new HashMap<>();
        for (K key : toLoad) {
            V value = loaded.get(key);
            if (value != null) {
                values.put(key, value);
            }
        }
        Map<K, V> extras = values.size() < loaded.size() ? matchByBytes(loaded, toLoad, ids, values) : Map.of();
        Throwable notStored = null;
        for (K key : toLoad) {
            V value = values.get(key);
            Load<V> load = mine.get(key);
            if (value != null) {
                try {
                    write(key, value, 0, load, errors);
                } catch (Throwable e) {
                    // anything, a checked exception thrown undeclared too: this key's waiters get it
                    load.result.completeExceptionally(e);
                    loads.remove(ids.get(key), load);
                    notStored = Failures.firstOrSuppressed(notStored, e);
                    continue;
                }
                result.put(key, value);
            }
            finish(load, ids.get(key), value);
        }
        // keys nobody asked for are cached too (as in Caffeine), as puts, but not returned
        for (Map.Entry<K, V> extra : extras.entrySet()) {
            try {
                write(extra.getKey(), extra.getValue(), 0, null, errors);
            } catch (Exception e) {
                if (closed) {
                    break; // nothing more can be stored, and the asked keys were
                }
                skippedExtra(extra.getKey(), e);
            }
        }
        return notStored;
    }

    /** Logs a key {@code loadAll} gave without being asked for it that could not be cached. */
    private void skippedExtra(Object key, Exception failure) {
        LOG.log(System.Logger.Level.WARNING, "cache '" + name + "': loadAll gave key " + key + ", which was not"
                + " asked for, and it could not be cached: " + failure, failure);
    }

    /**
     * The entries of a {@code loadAll} result that {@code equals} did not match to an asked key: matched by
     * their serialized bytes, as the cache compares keys, into {@code values} (a loader that makes its keys
     * anew, as for {@code byte[]} keys, whose equals is identity: their values were dropped, every key
     * reported absent and nothing cached); the rest, keys that were not asked for, are returned, but for one
     * the key serializer cannot serialize, which is skipped and logged as {@link #storeLoaded} does.
     */
    private Map<K, V> matchByBytes(Map<? super K, V> loaded, Set<K> toLoad, Map<K, Bytes> ids, Map<K, V> values) {
        Map<Bytes, K> asked = new HashMap<>();
        for (K key : toLoad) {
            asked.put(ids.get(key), key);
        }
        Map<K, V> extras = new LinkedHashMap<>();
        for (Map.Entry<? super K, V> entry : loaded.entrySet()) {
            if (entry.getKey() == null || entry.getValue() == null || toLoad.contains(entry.getKey())) {
                continue; // nothing to cache, or an asked key matched by equals
            }
            @SuppressWarnings("unchecked")
            K key = (K) entry.getKey();
            byte[] bytes;
            try {
                bytes = keyBytes(key);
            } catch (Exception e) {
                // not one of the asked keys, whose bytes were made: a key not asked for that cannot be stored
                skippedExtra(key, e);
                continue;
            }
            K askedKey = asked.get(new Bytes(bytes));
            if (askedKey == null) {
                extras.put(key, entry.getValue());
            } else {
                values.putIfAbsent(askedKey, entry.getValue());
            }
        }
        return extras;
    }

    /**
     * Completes one of getAll's loads and unregisters it at once, not when the call ends: the call may
     * wait long for other threads' loads yet, and meanwhile a get of the key would be handed this finished
     * load's value (one an invalidate since has removed) or, for a key loadAll left out, find it again and
     * again.
     */
    private void finish(Load<V> load, Bytes id, V value) {
        load.result.complete(value);
        loads.remove(id, load);
    }

    @Override
    public <R> R read(K key, Function<? super MemorySegment, ? extends R> reader) {
        Objects.requireNonNull(reader, "reader");
        byte[] k = keyBytes(key);
        checkOpen();
        long hash = Hashing.hash(k);
        Object result = readInPlace(k, hash, reader, true, true);
        return result == ABSENT ? null : cast(result);
    }

    @Override
    public <R> R readQuietly(K key, Function<? super MemorySegment, ? extends R> reader) {
        Objects.requireNonNull(reader, "reader");
        byte[] k = keyBytes(key);
        checkOpen();
        Object result = readInPlace(k, Hashing.hash(k), reader, false, false);
        return result == ABSENT ? null : cast(result);
    }

    /** What {@link #readInPlace} returns for an absent key, so that a reader may return null itself. */
    private static final Object ABSENT = new Object();

    /**
     * Applies the reader to the key's value in place; {@link #ABSENT} if the key is absent.
     *
     * @param count  whether the read counts as a hit or a miss in the statistics
     * @param access whether it is an access: the eviction policy sees it and an access deadline moves
     */
    private Object readInPlace(byte[] k, long hash, Function<? super MemorySegment, ?> reader, boolean count,
                               boolean access) {
        Shard shard = shard(hash);
        long nanos = readNanos();
        long now = checkMillis(nanos);
        long stamp;
        try {
            stamp = shard.lockRead();
        } catch (IllegalStateException e) {
            throw translate(e);
        }
        LockHolds holds = LockHolds.current();
        try {
            // close() waits for this read lock, then frees the regions: seen closed here, the region may be gone
            checkOpen();
            MemorySegment slice = shard.valueSliceLocked(hash, k, now,
                    now == Long.MIN_VALUE || !access ? 0 : refreshDeadline(deadlineBaseMillis(nanos)), access);
            if (slice == null) {
                if (count) {
                    stats.miss();
                }
                return ABSENT;
            }
            if (count) {
                stats.hit();
            }
            holds.push(shard.id, false);
            try (Arena call = Arena.ofConfined()) {
                return reader.apply(scopedTo(slice, call));
            } finally {
                holds.pop();
                // the reader's segment is scoped to the call, not to the regions' arena: the cache must stay
                // reachable until the reader returns, or a cleaner could free the regions under it
                Reference.reachabilityFence(this);
            }
        } catch (IllegalStateException e) {
            throw translate(e);
        } finally {
            shard.lock.unlockRead(stamp);
            if (access) {
                // the read recorded itself under the lock; a full buffer is replayed now, outside it (a
                // replay after close finds the segment released and does nothing)
                shard.replayReadsIfFull();
            }
        }
    }

    /**
     * The value's bytes under the scope of a confined arena the reader's call owns: closing that arena
     * after the call makes every later access throw, and the confinement keeps other threads out. The
     * read lock held around the call keeps the bytes from being freed or reused while the segment is live,
     * which is what makes this restricted method safe here.
     */
    @SuppressWarnings("restricted")
    private static MemorySegment scopedTo(MemorySegment slice, Arena call) {
        return slice.reinterpret(call, null).asReadOnly();
    }

    @Override
    public boolean containsKey(K key) {
        byte[] k = keyBytes(key);
        checkOpen();
        long hash = Hashing.hash(k);
        try {
            return shard(hash).contains(hash, k, readClock());
        } catch (IllegalStateException e) {
            throw translate(e);
        }
    }

    // ------------------------------------------------------------------ writes

    @Override
    public void put(K key, V value) {
        write(key, value, 0, null, null);
    }

    @Override
    public void put(K key, V value, Duration timeToLive) {
        Objects.requireNonNull(timeToLive, "timeToLive");
        if (timeToLive.isZero() || timeToLive.isNegative()) {
            throw new IllegalArgumentException("timeToLive must be positive, got " + timeToLive);
        }
        ttlUsed = true;
        write(key, value, millisCeil(timeToLive), null, null);
    }

    /**
     * @param storing the load whose value this is, or null for a put (see {@link Load#superseded})
     * @param bulk    where a bulk operation keeps the listener's Errors, or null to throw them
     */
    private void write(K key, V value, long timeToLiveMillis, Load<V> storing, ListenerErrors bulk) {
        byte[] k = keyBytes(key);
        Objects.requireNonNull(value, "value");
        if (byteArrayValues) {
            write(k, valueSegment(value, k), timeToLiveMillis, storing, bulk);
            return;
        }
        int size = declaredSize(valueSerializer, value, "value");
        if (size <= HEAP_STAGING_LIMIT) {
            write(k, checkedEntrySize(k, MemorySegment.ofArray(serialize(valueSerializer, value, size, "value"))),
                    timeToLiveMillis, storing, bulk);
            return;
        }
        checkedEntrySize(k, size);
        // A large value goes through native memory, not a heap array, so a put (and a load) of a 100 KB
        // value leaves no 100 KB of garbage. The memory is a buffer the thread reuses: allocating and
        // freeing it per put made glibc map, fault in and trim it every time (2-2.5x slower puts of 100 KB
        // values than heap staging). The serializer sees it through a scope of this call only, so a
        // serializer that keeps the target segment fails on later use instead of writing into a later
        // put's bytes. A virtual thread (a buffer each would pile up), a value over the limit, or a put
        // from inside a serializer that is writing into this thread's buffer gets memory of the call.
        StagingBuffer reusable = Thread.currentThread().isVirtual() || size > REUSED_STAGING_LIMIT ? null
                : STAGING.get();
        boolean reuse = reusable != null && !reusable.inUse;
        if (reuse) {
            reusable.inUse = true;
        }
        try (Arena call = Arena.ofConfined()) {
            // both zeroed, as a new array is, so that a serializer that writes less than it declared leaves
            // zeros, never a previous value's bytes
            MemorySegment bytes = reuse ? reusable.slice(size, call).fill((byte) 0) : call.allocate(size);
            writeChecked(valueSerializer, value, bytes, "value");
            write(k, bytes, timeToLiveMillis, storing, bulk);
        } finally {
            if (reuse) {
                reusable.inUse = false;
            }
        }
    }

    /** Values up to this many bytes are staged in a native buffer their (platform) thread reuses. */
    private static final int REUSED_STAGING_LIMIT = 1 << 20;
    private static final ThreadLocal<StagingBuffer> STAGING = ThreadLocal.withInitial(StagingBuffer::new);

    /**
     * A platform thread's native staging memory for large puts, shared by every cache; grown as needed up
     * to {@link #REUSED_STAGING_LIMIT}, freed by the collector once the thread is gone.
     */
    private static final class StagingBuffer {
        private MemorySegment memory = MemorySegment.NULL;
        boolean inUse;

        /** The first {@code size} bytes, under the scope of {@code call}: unusable once the call ends. */
        // reinterpret is restricted: the memory stays allocated while this thread-local buffer holds it,
        // at least as long as the call's scope is open.
        @SuppressWarnings("restricted")
        MemorySegment slice(int size, Arena call) {
            if (memory.byteSize() < size) {
                memory = Arena.ofAuto().allocate(Math.min(REUSED_STAGING_LIMIT, Math.max(size, 2 * memory.byteSize())), 16);
            }
            return memory.asSlice(0, size).reinterpret(call, null);
        }
    }

    /** Values up to this many bytes are staged for a put in a heap array: cheaper than a native allocation. */
    private static final int HEAP_STAGING_LIMIT = 16 * 1024;

    private MemorySegment checkedEntrySize(byte[] key, MemorySegment value) {
        checkedEntrySize(key, value.byteSize());
        return value;
    }

    private void checkedEntrySize(byte[] key, long valueBytes) {
        checkedEntrySize(headerBytes, key, valueBytes);
    }

    /** @param header the header the entry will have: larger for one with a time to live of its own */
    private void checkedEntrySize(int header, byte[] key, long valueBytes) {
        checkedEntrySize(header, key.length, valueBytes);
    }

    private void checkedEntrySize(int header, int keyBytes, long valueBytes) {
        long entry = (long) header + keyBytes + valueBytes;
        if (entry > maxEntryBytes) {
            throw new ValueTooLargeException(entry, maxEntryBytes);
        }
    }

    /** Stores serialized bytes under a serialized key; the bytes are copied into the key's shard. */
    private void write(byte[] k, MemorySegment v, long timeToLiveMillis, Load<V> storing, ListenerErrors bulk) {
        checkOpen();
        checkNotInsideReader();
        if (timeToLiveMillis > 0) {
            // an entry with a time to live of its own has deadline fields: its header is the largest
            checkedEntrySize(maxHeaderBytes, k, v.byteSize());
        }
        long hash = Hashing.hash(k);
        Shard shard = shard(hash);
        long nanos = readNanos();
        Removals removals = removals(checkMillis(nanos));
        try {
            long deadlines = deadlines(deadlineBaseMillis(nanos), timeToLiveMillis);
            boolean fixedTtl = timeToLiveMillis > 0;
            long stamp = lockForWrite(shard, hash, true, removals);
            try {
                if (storing != null && storing.superseded) {
                    return; // the key was written or removed while the value was loaded
                }
                supersedeLoadOf(k, storing);
                int old = shard.find(hash, k);
                if (old != 0 && removals.nowMillis != Long.MIN_VALUE && shard.expired(old, removals.nowMillis)) {
                    shard.removeLocked(old, RemovalCause.EXPIRED, removals);
                    old = 0;
                }
                if (old == 0) {
                    store(shard, hash, k, v, deadlines, fixedTtl, removals);
                } else if (!shard.overwriteLocked(old, hash, k.length, v, deadline(deadlines),
                        writeDeadline(deadlines), fixedTtl, true, removals)
                        && !shard.moveLocked(old, hash, k, v, deadline(deadlines), writeDeadline(deadlines), fixedTtl,
                        true, removals)) {
                    throw tooLarge(shard, k, v, deadlines);
                }
            } finally {
                shard.unlockWrite(stamp);
            }
        } catch (IllegalStateException e) {
            throw translate(e);
        } finally {
            // also when the write failed (an entry over the limit): what it expired or evicted is gone
            notifyListener(removals, bulk);
        }
        sweepAnotherShard(removals.nowMillis, bulk);
    }

    /**
     * Stores every entry it can: one that cannot be stored (over the entry limit, refused by a serializer,
     * a null) is skipped, nothing of it written, and its failure kept; they stopped the call, and the
     * entries after it were not stored. Then the first failure is thrown as it is, the later ones suppressed
     * in it, as getAll's loads do ({@link #storeLoaded}). A failure that every later write would meet too
     * (the cache closed meanwhile) ends the call.
     */
    @Override
    public void putAll(Map<? extends K, ? extends V> map) {
        Objects.requireNonNull(map, "map");
        // an empty map never reaches a put's checks; and a call that no write of it can pass fails whole
        checkOpen();
        checkNotInsideReader();
        bulk(errors -> {
            // each entry's failure is its own; once the cache is closed nothing more can be stored
            Failures.throwIfAny(Failures.forEach(map.entrySet(),
                    entry -> write(entry.getKey(), entry.getValue(), 0, null, errors), () -> closed));
            return null;
        });
    }

    /**
     * What a conditional write does with the live entry it finds (0 if none); returns the old value's bytes.
     * {@code now} is the millisecond its deadlines count from ({@link #deadlineBaseMillis}). Before it runs,
     * {@link #update} supersedes a load of the key running meanwhile, whatever the update then finds or does.
     */
    @FunctionalInterface
    private interface Update {
        byte[] apply(Shard shard, int entry, Removals removals, long hash, byte[] key, long now);
    }

    private byte[] update(K key, Update update) {
        return update(keyBytes(key), update, null);
    }

    /** @param bulk where a bulk operation keeps the listener's Errors, or null to throw them */
    private byte[] update(byte[] k, Update update, ListenerErrors bulk) {
        checkOpen();
        checkNotInsideReader();
        long hash = Hashing.hash(k);
        Shard shard = shard(hash);
        long nanos = readNanos();
        Removals removals = removals(checkMillis(nanos));
        byte[] result;
        try {
            long stamp = lockForWrite(shard, hash, true, removals);
            try {
                // A write of the key wins over a load of it that runs meanwhile, whatever the write finds: one
                // that finds the key absent and leaves it so (a compute giving null, a replace, a conditional
                // remove) was made against the key as it stands, and the load's value, read from the source
                // before it, must not appear after it (a compute(k, (k, v) -> null) made to drop the key was
                // undone by the load running when it was called). A present key's load was superseded already,
                // by the write that stored it: marking it again changes nothing.
                supersedeLoadOf(k, null);
                int entry = shard.findLiveLocked(hash, k, removals.nowMillis, removals);
                result = update.apply(shard, entry, removals, hash, k, deadlineBaseMillis(nanos));
            } finally {
                shard.unlockWrite(stamp);
            }
        } catch (IllegalStateException e) {
            throw translate(e);
        } finally {
            // also when the update threw (a compute function, a serializer): what it expired is gone
            notifyListener(removals, bulk);
        }
        sweepAnotherShard(removals.nowMillis, bulk);
        return result;
    }

    /**
     * Under the write lock: a conditional write that finds the key live and returns its value has read it,
     * and an entry expires after access "this long after it was last read or written" (as Caffeine's
     * putIfAbsent has it): its access deadline moves, as a get's would, and the eviction policy hears of
     * the read, as Caffeine's putIfAbsent and computeIfAbsent tell theirs.
     */
    private void accessLocked(Shard shard, int entry, long hash, long nowMillis) {
        if (expireAfterAccessMillis > 0) {
            shard.refreshAccessDeadline(entry, refreshDeadline(nowMillis));
        }
        shard.readLocked(entry, hash);
    }

    @Override
    public V putIfAbsent(K key, V value) {
        MemorySegment v = valueSegment(value, keyBytes(key));
        byte[] present = update(key, (shard, entry, removals, hash, k, now) -> {
            if (entry != 0) {
                accessLocked(shard, entry, hash, now);
                return shard.valueCopyLocked(entry);
            }
            store(shard, hash, k, v, deadlines(now, 0), false, removals);
            return null;
        });
        return present == null ? null : value(present);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The previous value is deserialized before the new one is stored, under the key's segment lock, as
     * compute's is: a value serializer that cannot read it fails the call, and the entry keeps that value.
     */
    @Override
    public V replace(K key, V value) {
        MemorySegment v = valueSegment(value, keyBytes(key));
        @SuppressWarnings("unchecked")
        V[] previous = (V[]) new Object[1];
        update(key, (shard, entry, removals, hash, k, now) -> {
            if (entry == 0) {
                return null;
            }
            previous[0] = valueLocked(shard, entry);
            rewriteLocked(shard, entry, hash, k, v, deadlines(now, 0), true, removals);
            return null;
        });
        return previous[0];
    }

    /**
     * Marks this thread as running user code (a function, a serializer) under {@code shard}'s write lock, so
     * that the cache refuses the calls it makes back into it; {@link #leaveUserCode} in a finally ends it.
     */
    private LockHolds enterUserCodeLocked(Shard shard) {
        LockHolds holds = LockHolds.current();
        holds.push(shard.id, true);
        COMPUTING.getAndAdd(this, 1);
        return holds;
    }

    private void leaveUserCode(LockHolds holds) {
        COMPUTING.getAndAdd(this, -1);
        holds.pop();
    }

    /**
     * Under the write lock: the live entry's value, deserialized before a change that returns it is made, so
     * that a value serializer that cannot read it fails the call with nothing changed. The serializer runs
     * under the segment's lock, as compute's function does: the cache refuses its calls.
     *
     * @throws SerializationException if the value serializer throws or reads null
     */
    private V valueLocked(Shard shard, int entry) {
        byte[] bytes = shard.valueCopyLocked(entry);
        if (byteArrayValues) {
            return value(bytes);
        }
        LockHolds holds = enterUserCodeLocked(shard);
        try {
            return value(bytes);
        } finally {
            leaveUserCode(holds);
        }
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        byte[] k = keyBytes(key);
        byte[] expected = valueBytes(oldValue, "oldValue");
        MemorySegment v = valueSegment(Objects.requireNonNull(newValue, "newValue"), k);
        return replaceBytes(k, expected, v, true, null);
    }

    /**
     * Stores {@code v} if the key's live value has the bytes {@code expected} (null matches nothing).
     *
     * @param told whether the value replaced is told to the removal listener as REPLACED
     * @param bulk where a bulk operation keeps the listener's Errors, or null to throw them
     * @return whether it was stored
     */
    private boolean replaceBytes(byte[] k, byte[] expected, MemorySegment v, boolean told, ListenerErrors bulk) {
        return update(k, (shard, entry, removals, hash, kb, now) -> {
            if (entry == 0 || expected == null || !shard.valueEqualsLocked(entry, expected)) {
                return null;
            }
            rewriteLocked(shard, entry, hash, kb, v, deadlines(now, 0), told, removals);
            return expected;
        }, bulk) != null;
    }

    /**
     * {@link java.util.Map#replaceAll} for the map view, as compute has it: a function that returns the very
     * instance it was given changes nothing and is told nothing (not written, its times left alone), while
     * a changed value (a new object, or the given one changed in place) is stored, told REPLACED unless it
     * is the given instance. ConcurrentMap's default, a {@code replace(key, old, new)} per entry, reported
     * every kept value REPLACED by itself, and retried a value changed in place for ever (the old value it
     * compared had changed with it).
     *
     * <p>The function runs with no lock of the cache held, as the default's did (it may use the cache),
     * on a copy read as an iteration reads it (no access, no hit or miss); the store is conditional on the
     * bytes it was given, and a key written meanwhile has the function run again on its new value.
     */
    void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
        Objects.requireNonNull(function, "function");
        checkOpen();
        bulk(errors -> {
            replaceAll(function, errors);
            return null;
        });
    }

    private void replaceAll(BiFunction<? super K, ? super V, ? extends V> function, ListenerErrors errors) {
        EntryCursor entries = new EntryCursor();
        while (entries.next()) {
            byte[] k = entries.key;
            K key = key(k);
            for (byte[] seen = entries.value; seen != null; seen = quietValue(k)) {
                // a byte[] value is the array read itself: keep what it was, the function may change it
                byte[] expected = byteArrayValues ? seen.clone() : seen;
                V given = value(seen);
                V computed = function.apply(key, given);
                Objects.requireNonNull(computed, "the replaceAll function returned null");
                MemorySegment v = valueSegment(computed, k);
                boolean kept = computed == given;
                if (kept && MemorySegment.mismatch(v, 0, v.byteSize(),
                        MemorySegment.ofArray(expected), 0, expected.length) < 0) {
                    break;
                }
                if (replaceBytes(k, expected, v, !kept, errors)) {
                    break;
                }
            }
        }
    }

    /**
     * The map view's {@code keySet().removeIf}: removes each key the filter accepts, whatever its value by
     * then, as the iterator's {@code remove()} does, and all of them whatever the listener throws
     * ({@link #bulk}). The filter runs with no lock of the cache held.
     *
     * @return whether the filter accepted a key
     */
    boolean removeKeysIf(Predicate<? super K> filter) {
        Objects.requireNonNull(filter, "filter");
        checkOpen();
        return bulk(errors -> {
            boolean removed = false;
            KeyCursor cursor = new KeyCursor();
            while (cursor.hasNext()) {
                byte[] k = cursor.next();
                if (filter.test(key(k))) {
                    invalidateBytes(k, errors);
                    removed = true;
                }
            }
            return removed;
        });
    }

    /**
     * The map view's {@code containsValue} and its values' {@code remove(value)}: looks for a live entry
     * whose value has the serialized bytes of {@code value}, as the view compares values (equals would
     * never find a {@code byte[]} value, each read a fresh copy), reading entries as an iteration does (no
     * access, no hit or miss, no value deserialized).
     *
     * @param remove whether the first entry found is removed, while it still has those bytes
     * @return whether one was found (and removed)
     */
    boolean findValue(V value, boolean remove) {
        byte[] expected = valueBytes(value, "value");
        checkOpen();
        if (expected == null) {
            return false;
        }
        EntryCursor entries = new EntryCursor();
        while (entries.next()) {
            if (Arrays.equals(entries.value, expected) && (!remove || removeBytes(entries.key, expected, null))) {
                return true;
            }
        }
        return false;
    }

    // The map view's removeAll and retainAll compare the argument's elements by their serialized bytes, as
    // its remove(o) and contains(o) do: Java's defaults compared byte[] keys and values by identity (a copy
    // read from the cache never equals an argument's array), and AbstractSet.removeAll chose which side to
    // iterate, remove(o) or the argument's contains(o), by the sizes. An element of a type the serializer
    // does not take, or null, matches nothing. Entries are read as an iteration reads them (no access, no
    // hit or miss); each removal is told to the listener, all of them whatever it throws (bulk).

    /** The keys' {@code removeAll}: removes the key of each element. */
    boolean removeKeys(Collection<?> keys) {
        Objects.requireNonNull(keys, "collection");
        checkOpen();
        return bulk(errors -> {
            boolean removed = false;
            for (Object key : keys) {
                byte[] k = bytesOrNull(key, true);
                if (k != null && removeKey(k, errors)) {
                    removed = true;
                }
            }
            return removed;
        });
    }

    /**
     * @param asKeys whether the elements are keys (else values)
     * @return the serialized bytes of each element that can be a key (value) of this cache; the others
     *         match nothing
     */
    private Set<Bytes> bytesOfEach(Collection<?> elements, boolean asKeys) {
        Set<Bytes> bytes = new HashSet<>();
        for (Object element : elements) {
            byte[] b = bytesOrNull(element, asKeys);
            if (b != null) {
                bytes.add(new Bytes(b));
            }
        }
        return bytes;
    }

    /** The keys' {@code retainAll}: removes each entry whose key is none of the elements. */
    boolean retainKeys(Collection<?> keys) {
        Objects.requireNonNull(keys, "collection");
        checkOpen();
        Set<Bytes> kept = bytesOfEach(keys, true);
        return bulk(errors -> {
            boolean removed = false;
            KeyCursor cursor = new KeyCursor();
            while (cursor.hasNext()) {
                byte[] k = cursor.next();
                if (!kept.contains(new Bytes(k)) && removeKey(k, errors)) {
                    removed = true;
                }
            }
            return removed;
        });
    }

    /**
     * The values' {@code removeAll} and {@code retainAll}: removes each entry whose value is (or, to retain,
     * is not) one of the elements, while it still has that value.
     */
    boolean removeValues(Collection<?> values, boolean retain) {
        Objects.requireNonNull(values, "collection");
        checkOpen();
        Set<Bytes> given = bytesOfEach(values, false);
        return bulk(errors -> {
            boolean removed = false;
            EntryCursor entries = new EntryCursor();
            while (entries.next()) {
                if (given.contains(new Bytes(entries.value)) != retain
                        && removeBytes(entries.key, entries.value, errors)) {
                    removed = true;
                }
            }
            return removed;
        });
    }

    /** The entries' {@code removeAll}: removes the entry of each element's key while it has the element's value. */
    boolean removeEntries(Collection<?> entries) {
        Objects.requireNonNull(entries, "collection");
        checkOpen();
        return bulk(errors -> {
            boolean removed = false;
            for (Object element : entries) {
                byte[][] kv = entryBytesOrNull(element);
                if (kv != null && removeBytes(kv[0], kv[1], errors)) {
                    removed = true;
                }
            }
            return removed;
        });
    }

    /** The entries' {@code retainAll}: removes each entry whose key and value are none of the elements'. */
    boolean retainEntries(Collection<?> entries) {
        Objects.requireNonNull(entries, "collection");
        checkOpen();
        Map<Bytes, Set<Bytes>> kept = new HashMap<>();
        for (Object element : entries) {
            byte[][] kv = entryBytesOrNull(element);
            if (kv != null) {
                kept.computeIfAbsent(new Bytes(kv[0]), key -> new HashSet<>()).add(new Bytes(kv[1]));
            }
        }
        return bulk(errors -> {
            boolean removed = false;
            EntryCursor present = new EntryCursor();
            while (present.next()) {
                Set<Bytes> values = kept.get(new Bytes(present.key));
                if ((values == null || !values.contains(new Bytes(present.value)))
                        && removeBytes(present.key, present.value, errors)) {
                    removed = true;
                }
            }
            return removed;
        });
    }

    /**
     * @return the serialized key and value of an element that is a {@link Map.Entry}, as {@link #bytesOrNull}
     *         makes them; null for one that matches no entry
     */
    private byte[][] entryBytesOrNull(Object element) {
        if (element instanceof Map.Entry<?, ?> entry) {
            byte[] k = bytesOrNull(entry.getKey(), true);
            byte[] v = k == null ? null : bytesOrNull(entry.getValue(), false);
            if (v != null) {
                return new byte[][] {k, v};
            }
        }
        return null;
    }

    /**
     * @param key whether {@code element} is a key (else a value)
     * @return the element's serialized bytes; null for one that matches no entry: null, of a type the
     *         serializer does not take, or a value over the entry limit
     */
    private byte[] bytesOrNull(Object element, boolean key) {
        if (element == null) {
            return null;
        }
        try {
            return key ? keyBytes(cast(element)) : valueBytes(cast(element), "value");
        } catch (ClassCastException wrongType) {
            return null;
        } catch (SerializationException e) {
            if (e.getCause() instanceof ClassCastException) {
                return null;
            }
            throw e;
        }
    }

    /** Removes the key's live entry, if it has one; told EXPLICIT. */
    private boolean removeKey(byte[] k, ListenerErrors bulk) {
        return update(k, (shard, entry, removals, hash, kb, now) -> {
            if (entry == 0) {
                return null;
            }
            shard.removeLocked(entry, RemovalCause.EXPLICIT, removals);
            return kb;
        }, bulk) != null;
    }

    /**
     * The map view's entry set's {@code contains}: whether the key's value has the serialized bytes of
     * {@code value}. Read as the view's get reads (a hit or a miss, an access), as it was.
     */
    boolean containsEntry(K key, V value) {
        byte[] present = lookup(key, true);
        byte[] expected = valueBytes(value, "value");
        return present != null && expected != null && Arrays.equals(present, expected);
    }

    /** @return the value's bytes, or null for a value over the entry limit, which equals no stored value */
    private byte[] valueBytes(V value, String what) {
        Objects.requireNonNull(value, what);
        if (byteArrayValues) {
            return (byte[]) value;
        }
        int size = declaredSize(valueSerializer, value, "value");
        return size > maxEntryBytes ? null : serialize(valueSerializer, value, size, "value");
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(remapping, "remapping");
        return compute(key, (k, keyBytes, old) -> remapping.apply(k, old), false, true);
    }

    /**
     * A compute function that is also told how many bytes the key takes serialized. Not part of the public
     * API: the JCache layer checks with it, before its cache writer runs, that the entry will fit
     * ({@link #checkEntrySize}).
     */
    @FunctionalInterface
    public interface SizedRemapping<K, V> {
        /**
         * @param key      the key
         * @param keyBytes the length of the key's serialized bytes
         * @param old      the live value, or null
         * @return the new value, or null to remove the entry
         */
        V apply(K key, int keyBytes, V old);
    }

    /**
     * {@link #compute(Object, BiFunction)}, with the key's serialized length told to the function. Not part
     * of the public API: the JCache layer. Thread-safe; throws what {@code compute} throws.
     */
    public V compute(K key, SizedRemapping<? super K, V> remapping) {
        Objects.requireNonNull(remapping, "remapping");
        return compute(key, remapping, false, true);
    }

    /**
     * Refuses, as a put or compute refuses it, an entry of a key of {@code keyBytes} serialized bytes and
     * a value of {@code valueBytes}: the same check, made before the value is serialized into the cache.
     * Not part of the public API: the JCache layer makes it before its cache writer runs. Thread-safe.
     *
     * @param keyBytes   the length of the serialized key ({@link #serializedKeyBytes}, {@link SizedRemapping})
     * @param valueBytes the length of the serialized value, as the value serializer declares it
     * @throws ValueTooLargeException if the entry, header included, is larger than {@link #maxEntryBytes()}
     */
    public void checkEntrySize(int keyBytes, long valueBytes) {
        checkedEntrySize(headerBytes, keyBytes, valueBytes);
    }

    /**
     * Serializes {@code key} as every call of this cache does, checking it the same way. Not part of the
     * public API: the JCache layer checks with it the entries of a bulk write before its cache writer runs.
     * Thread-safe.
     *
     * @return the length of the key's serialized bytes
     * @throws NullPointerException     if {@code key} is null
     * @throws SerializationException   if the key serializer threw or lied about the key's size
     * @throws IllegalArgumentException if the key is longer than a key may be
     */
    public int serializedKeyBytes(K key) {
        return keyBytes(key).length;
    }

    /**
     * {@link java.util.Map#put} for the map view: stores {@code value} and returns the previous value, read
     * under the same lock. A put, so the value it overwrites is REPLACED even where the serializer reads back
     * the very instance put ({@code Integer.valueOf}'s cached ones), as {@link #put(Object, Object)} has it.
     */
    V getAndPut(K key, V value) {
        Objects.requireNonNull(value, "value");
        @SuppressWarnings("unchecked")
        V[] previous = (V[]) new Object[1];
        compute(key, (k, keyBytes, old) -> {
            previous[0] = old;
            return value;
        }, false, false);
        return previous[0];
    }

    /**
     * {@link java.util.concurrent.ConcurrentMap#computeIfAbsent} for the map view, atomically for the key: a
     * present entry is returned as it is, neither rewritten nor reported REPLACED (a compute whose function
     * returned the present value did both when a put came between the view's look-up and its compute).
     */
    V computeIfAbsent(K key, Function<? super K, ? extends V> mapping) {
        Objects.requireNonNull(mapping, "mappingFunction");
        return compute(key, (k, keyBytes, old) -> mapping.apply(k), true, true);
    }

    /**
     * @param onlyIfAbsent whether a live entry is left as it is and its value returned, the function not run
     * @param keptUntold   whether a function that returns the very instance it was given keeps the entry
     *                     without a REPLACED removal, as Caffeine's compute does; the instance is still
     *                     serialized and stored (it may have been changed in place) with a new write time
     */
    private V compute(K key, SizedRemapping<? super K, V> remapping, boolean onlyIfAbsent,
                      boolean keptUntold) {
        @SuppressWarnings("unchecked")
        V[] result = (V[]) new Object[1];
        byte[] present = update(key, (shard, entry, removals, hash, k, now) -> {
            if (onlyIfAbsent && entry != 0) {
                accessLocked(shard, entry, hash, now);
                return shard.valueCopyLocked(entry);
            }
            V old;
            V computed;
            MemorySegment v;
            // the function and the serializers run under the segment's lock: the cache refuses their calls
            LockHolds holds = enterUserCodeLocked(shard);
            try {
                old = entry == 0 ? null : value(shard.valueCopyLocked(entry));
                computed = remapping.apply(key, k.length, old);
                v = computed == null ? null : valueSegment(computed, k);
            } finally {
                leaveUserCode(holds);
            }
            if (computed == null) {
                if (entry != 0) {
                    shard.removeLocked(entry, RemovalCause.EXPLICIT, removals);
                }
                return null;
            }
            if (entry != 0) {
                // The function kept the value it was given (the fresh copy read for it): no replacement to
                // tell, as in Caffeine. It is still a write: what it returned is stored, its times restart;
                // the entry stays where it is in the eviction order, read once more, as an update in Caffeine.
                boolean kept = keptUntold && computed == old;
                rewriteLocked(shard, entry, hash, k, v, deadlines(now, 0), !kept, removals);
            } else {
                store(shard, hash, k, v, deadlines(now, 0), false, removals);
            }
            result[0] = computed;
            return null;
        });
        return present != null ? value(present) : result[0];
    }

    /**
     * {@inheritDoc}
     *
     * <p>The value is deserialized before the entry is removed, under the key's segment lock: a value
     * serializer that cannot read it fails the call, and the entry stays ({@link #invalidate} removes it
     * without reading it).
     */
    @Override
    public V remove(K key) {
        @SuppressWarnings("unchecked")
        V[] previous = (V[]) new Object[1];
        update(key, (shard, entry, removals, hash, k, now) -> {
            if (entry == 0) {
                return null;
            }
            previous[0] = valueLocked(shard, entry);
            shard.removeLocked(entry, RemovalCause.EXPLICIT, removals);
            return null;
        });
        return previous[0];
    }

    @Override
    public boolean remove(K key, V value) {
        return removeBytes(keyBytes(key), valueBytes(value, "value"), null);
    }

    /**
     * {@link #remove(Object, Object)} in one of the map view's bulk operations ({@link #bulk}).
     *
     * @param bulk where the listener's Errors are kept
     */
    boolean remove(K key, V value, ListenerErrors bulk) {
        return removeBytes(keyBytes(key), valueBytes(value, "value"), bulk);
    }

    /**
     * Removes the key's entry if its live value has the bytes {@code expected} (null matches nothing).
     *
     * @param bulk where a bulk operation keeps the listener's Errors, or null to throw them
     */
    private boolean removeBytes(byte[] key, byte[] expected, ListenerErrors bulk) {
        return update(key, (shard, entry, removals, hash, k, now) -> {
            if (entry == 0 || expected == null || !shard.valueEqualsLocked(entry, expected)) {
                return null;
            }
            shard.removeLocked(entry, RemovalCause.EXPLICIT, removals);
            return expected;
        }, bulk) != null;
    }

    @Override
    public void invalidate(K key) {
        removeKey(keyBytes(key), null);
    }

    /** @param bulk where a bulk operation keeps the listener's Errors, or null to throw them */
    private void invalidateBytes(byte[] k, ListenerErrors bulk) {
        checkNotInsideReader();
        long hash = Hashing.hash(k);
        Shard shard = shard(hash);
        Removals removals = removals(readClock());
        try {
            long stamp = lockForWrite(shard, hash, false, removals);
            try {
                supersedeLoadOf(k, null);
                // an entry that expired since the iterator saw it leaves as EXPIRED, as invalidate(key) has it
                int entry = shard.findLiveLocked(hash, k, removals.nowMillis, removals);
                if (entry != 0) {
                    shard.removeLocked(entry, RemovalCause.EXPLICIT, removals);
                }
            } finally {
                shard.unlockWrite(stamp);
            }
        } catch (IllegalStateException e) {
            throw translate(e);
        } finally {
            notifyListener(removals, bulk);
        }
    }

    @Override
    public void invalidateAll() {
        checkOpen();
        checkNotInsideReader();
        long now = readClock();
        // before any segment is cleared: a load that stores after its segment's clear finds this under the lock
        for (Load<V> running : loads.values()) {
            running.superseded = true;
        }
        bulk(errors -> {
            for (Shard shard : shards) {
                // with the clock: an entry whose time ran out is reported EXPIRED, as a read would have found it
                Removals removals = removals(now);
                try {
                    long stamp = shard.lockWrite();
                    try {
                        shard.clearLocked(removals);
                    } finally {
                        shard.unlockWrite(stamp);
                    }
                } catch (IllegalStateException e) {
                    throw translate(e);
                } finally {
                    notifyListener(removals, errors);
                }
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ inspection

    private long[] totals() {
        checkOpen();
        try {
            return Shard.sumOfSizes(shards);
        } catch (IllegalStateException e) {
            throw translate(e);
        }
    }

    @Override
    public long size() {
        return totals()[0];
    }

    @Override
    public long weightedSize() {
        return totals()[1];
    }

    @Override
    public long capacityBytes() {
        checkOpen();
        return capacityBytes;
    }

    /** @return the largest entry (key, value and header) this cache accepts, in bytes */
    public long maxEntryBytes() {
        return maxEntryBytes;
    }

    /** @return bytes in use: the shards' heap bookkeeping and the allocated blocks of their regions */
    public long usedBytes() {
        return heapBytes + totals()[2];
    }

    /**
     * @return the bytes of the header of an entry stored without a time to live of its own; one stored
     *         with {@code put(key, value, ttl)} in a cache that expires nothing otherwise has 4 more
     */
    public int headerBytes() {
        return headerBytes;
    }

    /** @return how many shards the cache has */
    public int shardCount() {
        return shards.length;
    }

    /** Checks every shard's structures against each other; throws {@link IllegalStateException} if broken. */
    public void verify() {
        checkOpen();
        for (Shard shard : shards) {
            shard.verify();
        }
    }

    @Override
    public Iterator<K> keys() {
        checkOpen();
        KeyCursor cursor = new KeyCursor();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return cursor.hasNext();
            }

            @Override
            public K next() {
                return key(cursor.next());
            }

            @Override
            public void remove() {
                cursor.remove();
            }
        };
    }

    @Override
    public Iterator<Map.Entry<K, V>> entries() {
        checkOpen();
        EntryCursor entries = new EntryCursor();
        return new Iterator<>() {
            private Map.Entry<K, V> next;
            private byte[] nextKey;
            /** The key of the entry next() returned last; hasNext() looks ahead, so the cursor's is not it. */
            private byte[] lastReturnedKey;

            @Override
            public boolean hasNext() {
                // also with an entry looked ahead: after close, next() handed out that entry (read before the
                // close) instead of throwing, where keys() and every other call throw
                checkOpen();
                if (next == null && entries.next()) {
                    next = new AbstractMap.SimpleImmutableEntry<>(key(entries.key), value(entries.value));
                    nextKey = entries.key;
                }
                return next != null;
            }

            @Override
            public Map.Entry<K, V> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Map.Entry<K, V> entry = next;
                lastReturnedKey = nextKey;
                next = null;
                nextKey = null;
                return entry;
            }

            @Override
            public void remove() {
                if (lastReturnedKey == null) {
                    throw new IllegalStateException("remove() without a preceding next()");
                }
                checkOpen();
                invalidateBytes(lastReturnedKey, null);
                lastReturnedKey = null;
            }
        };
    }

    /** @return the key's value read as an iteration reads it (no access, no hit or miss), or null */
    private byte[] quietValue(byte[] k) {
        return lookupBytes(k, Hashing.hash(k), false, false);
    }

    /**
     * Walks the live entries, reading each one's value as an iteration does ({@link #quietValue}): not an
     * access, since iterating (a sweep, a metrics export, containsValue) would otherwise keep every entry
     * from expiring after access and make every entry look used to the policy. A key whose entry left
     * since its segment's snapshot ({@link KeyCursor}) is skipped. The one walk of the entries iterator, the
     * map view's value look-ups and its bulk methods.
     */
    private final class EntryCursor {
        private final KeyCursor keys = new KeyCursor();
        /** The key and value bytes of the entry {@link #next()} found last. */
        byte[] key;
        byte[] value;

        /** @return whether there was another live entry, now in {@link #key} and {@link #value} */
        boolean next() {
            while (keys.hasNext()) {
                byte[] k = keys.next();
                byte[] v = quietValue(k);
                if (v != null) {
                    key = k;
                    value = v;
                    return true;
                }
            }
            return false;
        }
    }

    /** Walks the shards one at a time, each through a snapshot of its keys. */
    private final class KeyCursor {
        private int shardIndex;
        private Iterator<byte[]> current = Collections.emptyIterator();
        private byte[] last;

        boolean hasNext() {
            // not only when a segment's snapshot is taken: keys() handed out the rest of a snapshot after close
            checkOpen();
            while (!current.hasNext()) {
                if (shardIndex == shards.length) {
                    return false;
                }
                try {
                    List<byte[]> keys = shards[shardIndex++].keySnapshot(readClock());
                    current = keys.iterator();
                } catch (IllegalStateException e) {
                    throw translate(e);
                }
            }
            return true;
        }

        byte[] next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            last = current.next();
            return last;
        }

        void remove() {
            if (last == null) {
                throw new IllegalStateException("remove() without a preceding next()");
            }
            checkOpen();
            invalidateBytes(last, null);
            last = null;
        }
    }

    @Override
    public java.util.concurrent.ConcurrentMap<K, V> asMap() {
        checkOpen();
        return mapView;
    }

    @Override
    public CacheStats stats() {
        long[] totals = totals();
        return new CacheStats(stats.hits(), stats.misses(), stats.loadSuccesses(), stats.loadFailures(),
                stats.loadNanos(), stats.evictions(), stats.evictionBytes(), stats.expirations(),
                totals[0], heapBytes + totals[2], capacityBytes);
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (LockHolds.current().holdsReadOf(firstShardId, shards.length)) {
            throw new IllegalStateException("close() of cache '" + name + "' inside read()'s function: it would"
                    + " wait for that read forever");
        }
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        ScheduledFuture<?> runs = cleanUpRuns;
        if (runs != null) {
            runs.cancel(false);
        }
        // callers waiting for a running load get the closed cache's exception now, not when (if ever) the
        // loader returns; the loader's own call throws it once its value cannot be stored
        if (!loads.isEmpty()) {
            IllegalStateException closedDuringLoad = closedException(null);
            for (Load<V> running : loads.values()) {
                running.result.completeExceptionally(closedDuringLoad);
            }
        }
        resources.markClosedByOwner();
        release.clean();
    }

    @Override
    public String toString() {
        return "OffHeapCache[" + name + "]";
    }

    // ------------------------------------------------------------------ JMX

    /** @return whether the cache counts hits, misses, loads, evictions and expirations ({@code recordStats}) */
    public boolean recordsStats() {
        return stats.enabled();
    }

    /** @return the name the MBean was registered under, or null if registration failed */
    public ObjectName mbeanName() {
        return resources.mbeanName();
    }
}
