package dev.offheap.cache.internal;

import dev.offheap.cache.RemovalCause;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;

import static dev.offheap.cache.internal.RegionLayout.CHAIN_NEXT;
import static dev.offheap.cache.internal.RegionLayout.DEADLINE;
import static dev.offheap.cache.internal.RegionLayout.META;
import static dev.offheap.cache.internal.RegionLayout.PROBATION;
import static dev.offheap.cache.internal.RegionLayout.PROTECTED;
import static dev.offheap.cache.internal.RegionLayout.QUEUE_NEXT;
import static dev.offheap.cache.internal.RegionLayout.QUEUE_PREV;
import static dev.offheap.cache.internal.RegionLayout.SIZE_MASK;
import static dev.offheap.cache.internal.RegionLayout.TABLE_DATA;
import static dev.offheap.cache.internal.RegionLayout.WINDOW;
import static dev.offheap.cache.internal.RegionLayout.WRITE_DEADLINE;
import static dev.offheap.cache.internal.RegionLayout.address;
import static dev.offheap.cache.internal.RegionLayout.getInt;
import static dev.offheap.cache.internal.RegionLayout.keyLength;
import static dev.offheap.cache.internal.RegionLayout.setInt;
import static dev.offheap.cache.internal.RegionLayout.units;

/**
 * One independent part of the cache: a region of native memory holding a hash table, a frequency sketch
 * and entries (see {@link RegionLayout}), guarded by one {@link StampedLock}.
 *
 * <h2>Reads</h2>
 * A lookup first runs as an optimistic read: it reads the table and the entry's bytes without any lock,
 * copies the value to the heap, then validates the lock's stamp. Every read goes through the region's
 * {@link MemorySegment}, so a lookup racing a writer that frees or reuses the bytes it reads gets garbage
 * or an {@link IndexOutOfBoundsException}, never a crash; lengths are checked before they size an array,
 * and chain walks are bounded, so garbage cannot loop or exhaust the heap. A failed validation retries
 * under the read lock, which readers share. Reads do not reorder queues themselves: they record the entry
 * in a lossy, striped read buffer, and whoever takes the policy lock next (a writer, or a reader whose
 * stripe is full) replays those records (updating the frequency sketch, promoting or marking the entry)
 * if no entry was removed since they were made.
 *
 * <h2>Eviction</h2>
 * W-TinyLFU as Caffeine does it, weighted by bytes: new entries enter a window LRU (1% of the entry
 * bytes); entries leaving the window become candidates at the tail of the probation queue; when room is
 * needed the candidate's estimated frequency is compared with the probation head's and the less frequent
 * one leaves. An entry read while in probation moves to the protected queue (80% of the main space), whose
 * overflow goes back to probation. A read of a window or protected entry only marks it; the queue's head
 * gives marked entries a second chance (CLOCK) when it is taken, see {@link #coldHead}. With {@link dev.offheap.cache.EvictionPolicy#LRU} all entries stay in
 * the window queue, which then has no limit. Eviction goes on until the block allocator can place the new
 * entry, so fragmentation is paid with evictions, never with memory beyond the region.
 *
 * <p>Every method whose name ends in {@code Locked} needs the write lock (and so the policy lock, which
 * {@link #lockWrite} takes after it), but for the replay of recorded reads ({@link #replayReadsLocked}
 * and what it calls), which needs the policy lock only.
 */
final class Shard {
    /**
     * Heap bytes of a shard besides its allocator's arrays and its read buffer's: the shard object (144 bytes
     * with compressed references), its two locks (48 each), the slice of the cache's memory that is its
     * region (40), its sketch object (48), its read buffer object (24) and its three queue arrays (104),
     * about 460 in all, rounded up to cover the short-lived slices its construction makes and its place in
     * the cache's array of shards. It said 256: a shard was charged 3,736 bytes where making it allocates
     * 4,024 (W-TinyLFU), as {@code AShardsHeapBytesCoverWhatItsConstructionAllocatesTest} measures.
     */
    private static final int OWN_HEAP_BYTES = 576;
    /** Heap bytes a shard costs, charged to the cache's capacity: its own objects, its allocator, its read buffer. */
    static final int HEAP_BYTES = OWN_HEAP_BYTES + BlockAllocator.HEAP_BYTES + ReadBuffer.BYTES;
    static final int INITIAL_BUCKETS = 64;
    static final int INITIAL_SKETCH_LONGS = 8;
    private static final int MAX_BUCKETS = 1 << 28;
    /**
     * Entries per bucket before the table doubles: 1 keeps chains at 0.5 to 1 entry per bucket and the table
     * at 4 to 8 bytes per entry. Each entry a lookup passes on its chain is a cache miss in a large cache:
     * against a load factor of 2 (2 to 4 bytes per entry), gets of 100-byte values among 1,000,000 keys ran
     * 5-20% faster, the 90/10 mix 10-23% and puts 5-15% (four A/B rounds of JMH, one thread), for 2.3 bytes
     * more per entry.
     */
    private static final long LOAD_FACTOR = 1;
    private static final int MAX_SKETCH_LONGS = 1 << 26;
    /** An optimistic chain walk longer than this means the chain changed under it. */
    private static final int OPTIMISTIC_CHAIN_LIMIT = 64;
    /** Referenced heads one look at a queue moves to its tail at most (see {@link #coldHead}). */
    private static final int MAX_SECOND_CHANCES = 64;
    /**
     * Tries for a held lock before queueing for it, writers and readers alike (see
     * {@link #writeLockAfterSpinning} and {@link #lockRead}): about 3 microseconds.
     */
    private static final int LOCK_SPINS = 128;
    /** Value lengths above this are checked against the optimistic read's stamp before an array is made. */
    private static final long TORN_LENGTH_CHECK = 1 << 16;
    /** The largest array the JVM makes. */
    private static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;
    /** Returned by an optimistic read that saw inconsistent bytes. */
    static final byte[] RETRY = new byte[0];
    /** A key's bytes read a long at a time, in the order the region's longs are read (native). */
    private static final VarHandle KEY_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    final StampedLock lock = new StampedLock();
    /**
     * Held by whoever changes the eviction policy's state (queues, marks, sketch, the read buffer's batch):
     * every writer, after the write lock ({@link #lockWrite}), and the replay of recorded reads alone. The
     * replay changes nothing that readers read (an entry's mark and queue bits share its header int with
     * its key length and tag, which a replay writes back unchanged; queue links and the sketch no reader
     * reads), so it runs without the write lock, and readers of the segment, optimistic or not, never wait
     * for it or retry because of it.
     */
    private final ReentrantLock policyLock = new ReentrantLock();
    private final MemorySegment region;
    private final BlockAllocator allocator;
    private final FrequencySketch sketch;
    private final boolean tinyLfu;
    private final boolean twoDeadlines;
    private final long maxEntryBytes;
    private final StatsCounter stats;
    /** The cache's name, for the message of a deadlock {@link LockHolds} finds. */
    final String cacheName;
    /** The shard's number in the process ({@link LockHolds#reserveIds}), as {@link LockHolds} records holds. */
    final long id;
    private final ReadBuffer readBuffer = new ReadBuffer();
    /**
     * Set under both locks by the release of the cache's memory: a replay that gets the policy lock after
     * that finds nothing left to replay into.
     */
    private boolean released;

    private int tableBlock;
    private int tableMask;
    private int sketchBlock;
    private long count;
    private long entryBytes;
    private final int[] queueHead = new int[3];
    private final int[] queueTail = new int[3];
    private final long[] queueBytes = new long[3];
    /** The probation entry to compare with the next victim; entries after it came from the window later. */
    private int candidate;
    /**
     * Counts removals (and clears) under the write lock: a recorded read whose count still matches names an
     * entry that is still there, so its replay needs no chain walk to prove it. Read by optimistic readers
     * inside their validated section; wraps around harmlessly (records are replayed long before).
     */
    private int removalEpoch;
    /** Where {@link #replayReadsLocked} keeps what its loads read, so that the compiler keeps the loads. */
    @SuppressWarnings("unused")
    private long prefetched;
    /** The thread holding the write lock, to refuse reentrant use instead of deadlocking. */
    private Thread writer;
    /**
     * A lower bound on every deadline of the segment's entries, encoded ({@link Deadlines}; encodings
     * order as the deadlines do), {@link Integer#MAX_VALUE} for none: a clean-up skips the segment
     * while it lies ahead. It holds because an entry's deadlines only move later once written (a read
     * moves the access deadline to now + expireAfterAccess), and every write lowers the bound to its own
     * deadlines; a full clean-up pass raises it to the earliest deadline it left behind.
     */
    private int earliestDeadline = Integer.MAX_VALUE;
    /**
     * The clean-up pass whose result will raise {@link #earliestDeadline}, null when none runs. Passes may
     * run at once (a clean-up holds no lock while it tells the removal listener); a pass that begins while
     * another owns the bound removes what has expired and leaves the bound alone. Guarded by the write lock.
     */
    private Object boundingPass;
    /** The earliest deadline written since the bounding pass began (see {@link #earliestDeadline}). */
    private int earliestWrittenDuringPass = Integer.MAX_VALUE;
    /** The earliest deadline among the entries the bounding pass kept. */
    private int earliestKeptByPass = Integer.MAX_VALUE;

    Shard(MemorySegment region, boolean tinyLfu, boolean twoDeadlines, long maxEntryBytes, StatsCounter stats,
          String cacheName, long id) {
        this.region = region;
        this.cacheName = cacheName;
        this.id = id;
        this.allocator = new BlockAllocator(region);
        this.tinyLfu = tinyLfu;
        this.twoDeadlines = twoDeadlines;
        this.maxEntryBytes = maxEntryBytes;
        this.stats = stats;
        this.sketch = tinyLfu ? new FrequencySketch(region) : null;
        initTables();
    }

    /** @return the fixed bytes a fresh shard's tables take in its region */
    static long initialTableBytes() {
        return 2L * RegionLayout.UNIT
                + RegionLayout.UNIT + (long) INITIAL_BUCKETS * Integer.BYTES
                + RegionLayout.UNIT + FrequencySketch.bytesFor(INITIAL_SKETCH_LONGS);
    }

    private void initTables() {
        tableBlock = allocator.allocate(1 + units((long) INITIAL_BUCKETS * Integer.BYTES));
        tableMask = INITIAL_BUCKETS - 1;
        region.asSlice(address(tableBlock) + TABLE_DATA, (long) INITIAL_BUCKETS * Integer.BYTES).fill((byte) 0);
        if (tinyLfu) {
            sketchBlock = allocator.allocate(1 + units(FrequencySketch.bytesFor(INITIAL_SKETCH_LONGS)));
            sketch.attach(address(sketchBlock) + TABLE_DATA, INITIAL_SKETCH_LONGS);
        }
        if (tableBlock == 0 || (tinyLfu && sketchBlock == 0)) {
            throw new IllegalStateException("region of " + region.byteSize() + " bytes too small for the tables");
        }
    }

    // ------------------------------------------------------------------ locking

    long lockWrite() {
        if (writer == Thread.currentThread()) {
            throw new IllegalStateException(
                    "the cache was used from inside compute's function or a serializer running under its lock");
        }
        long stamp = lock.tryWriteLock();
        if (stamp == 0) {
            stamp = writeLockAfterSpinning();
        }
        policyLock.lock();
        writer = Thread.currentThread();
        return stamp;
    }

    /**
     * A StampedLock queues and parks a thread that finds it held, and waking it takes tens of microseconds
     * on a loaded machine: far longer than the lock is held by a put (about a microsecond for small
     * values). So a writer first spins a little, trying again, and queues only then. Readers spin too,
     * as long ({@link #lockRead}). A thread that queues while it holds another segment's lock across user
     * code (inside a reader or compute) waits through {@link LockHolds}, which breaks a deadlock of such
     * threads instead of waiting forever.
     */
    private long writeLockAfterSpinning() {
        for (int spin = 0; spin < LOCK_SPINS; spin++) {
            Thread.onSpinWait();
            long stamp = lock.tryWriteLock();
            if (stamp != 0) {
                return stamp;
            }
        }
        return LockHolds.lock(this, true);
    }

    void unlockWrite(long stamp) {
        writer = null;
        policyLock.unlock();
        lock.unlockWrite(stamp);
    }

    boolean holdsWriteLock() {
        return writer == Thread.currentThread();
    }

    /**
     * Takes the read lock, trying for about 3 microseconds (128 pauses of about 25 ns here) before
     * queueing. The write lock is mostly held for a put (with the drain of recorded reads), a microsecond or
     * two, while a parked reader took tens of microseconds to wake: with two threads on two cores
     * (the 90/10 mix at 1,000,000 x 100 B) readers that queued at once reached 1.05-1.28M operations/s
     * and readers that spin 1.46-1.49M (alternating two-fork runs). With more threads than cores a
     * spinning reader takes CPU a writer may need: an earlier version whose readers spun cost offheap
     * compare's 10 threads on 2 cores throughput (90k requests/s against 108-119k). With this bounded
     * spin, two alternating runs each gave 137k and 125k against 124k and 118k requests/s there
     * (off-heap), 39.6k and 39.5k against 37.9k and 37.1k (off-heap-copy), p99 alike (docs/cache.md).
     */
    long lockRead() {
        if (writer == Thread.currentThread()) {
            throw new IllegalStateException(
                    "the cache was used from inside compute's function or a serializer running under its lock");
        }
        for (int spin = 0; spin < LOCK_SPINS; spin++) {
            long stamp = lock.tryReadLock();
            if (stamp != 0) {
                return stamp;
            }
            Thread.onSpinWait();
        }
        return LockHolds.lock(this, false);
    }

    // ------------------------------------------------------------------ lookups

    private long bucketAddress(long hash) {
        return address(tableBlock) + TABLE_DATA + ((hash & tableMask) << 2);
    }

    /**
     * Loads a hash's bucket without a lock, to bring it into the processor's cache before the lookup
     * (see {@code OffHeapCacheImpl.lookupBatch}). Racing a writer that grows the table, it may read
     * another bucket or nothing: the value only says where to prefetch next.
     *
     * @return the unit the bucket holds, 0 if none or if the read fell outside the region
     */
    int prefetchBucket(long hash) {
        long at = bucketAddress(hash);
        return at >= 0 && at <= region.byteSize() - Integer.BYTES ? getInt(region, at) : 0;
    }

    /**
     * Loads, without a lock, what a write of this hash will touch first and what it would otherwise wait
     * for one after the other: the key's bucket and its frequency-sketch counters. Both depend on the hash
     * alone, so their cache misses overlap here, before the lock; under it the lookup and the sketch
     * increment then find them in cache.
     *
     * @return the loaded values mixed, for the caller to keep so the loads stay
     */
    long prefetchForWrite(long hash) {
        long loaded = prefetchBucket(hash);
        return tinyLfu ? loaded ^ sketch.touch((int) hash) : loaded;
    }

    /**
     * Loads an entry's first three cache lines without a lock (its header and key, and where a small
     * value continues), for the same purpose as {@link #prefetchBucket}.
     *
     * @param entry a unit from {@link #prefetchBucket}, possibly stale
     * @return the loaded ints mixed, for the caller to keep so the loads stay
     */
    int prefetchEntry(int entry) {
        long at = address(entry);
        long last = region.byteSize() - Integer.BYTES;
        if (entry <= 0 || at > last) {
            return 0;
        }
        return getInt(region, Math.min(at + META, last)) ^ getInt(region, Math.min(at + 64, last))
                ^ getInt(region, Math.min(at + 128, last));
    }

    /**
     * @param optimistic whether this runs without a lock (the walk is bounded then)
     * @return the entry's unit, 0 if absent, -1 if an optimistic walk saw an inconsistent chain
     */
    int find(long hash, byte[] key) {
        return find(hash, key, false);
    }

    private int find(long hash, byte[] key, boolean optimistic) {
        int tag = RegionLayout.tagOf(hash);
        int entry = getInt(region, bucketAddress(hash));
        int steps = 0;
        while (entry != 0) {
            long at = address(entry);
            int meta = getInt(region, at + META);
            if (keyLength(meta) == key.length && RegionLayout.tag(meta) == tag && keyEquals(at + headerBytes(meta), key)) {
                return entry;
            }
            entry = getInt(region, at + CHAIN_NEXT);
            if (optimistic && ++steps > OPTIMISTIC_CHAIN_LIMIT) {
                return -1;
            }
        }
        return 0;
    }

    /**
     * Short keys compare a long at a time: cheaper than a bulk mismatch between a heap and a native
     * segment. Keys come as arrays, not segments: a heap segment of the key handed down to a call that
     * C2 does not inline escaped, and every lookup allocated it and its session (64 bytes).
     */
    private boolean keyEquals(long at, byte[] key) {
        int keyLength = key.length;
        if (keyLength > 32) {
            return MemorySegment.mismatch(region, at, at + keyLength, MemorySegment.ofArray(key), 0, keyLength) < 0;
        }
        int i = 0;
        for (; i + Long.BYTES <= keyLength; i += Long.BYTES) {
            if (region.get(ValueLayout.JAVA_LONG_UNALIGNED, at + i) != (long) KEY_LONGS.get(key, i)) {
                return false;
            }
        }
        for (; i < keyLength; i++) {
            if (region.get(ValueLayout.JAVA_BYTE, at + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    /** @return the bytes of an entry's header: the base, and its deadline fields if it has them */
    private int headerBytes(int meta) {
        return RegionLayout.headerBytes(RegionLayout.deadlined(meta), twoDeadlines);
    }

    /** @return the header bytes of a new entry with this (encoded) deadline; 0 means it never expires */
    int headerBytesFor(int deadline) {
        return RegionLayout.headerBytes(deadline != Deadlines.NEVER, twoDeadlines);
    }

    private long valueOffset(int entry, int meta) {
        return address(entry) + headerBytes(meta) + keyLength(meta);
    }

    private long valueLength(int entry, int meta) {
        int size = getInt(region, address(entry)) & SIZE_MASK;
        return ((long) size << RegionLayout.UNIT_SHIFT) - headerBytes(meta) - keyLength(meta) - RegionLayout.pad(meta);
    }

    boolean expired(int entry, long nowMillis) {
        long at = address(entry);
        if (!RegionLayout.deadlined(getInt(region, at + META))) {
            return false;
        }
        if (Deadlines.passed(getInt(region, at + DEADLINE), nowMillis)) {
            return true;
        }
        return twoDeadlines && Deadlines.passed(getInt(region, at + WRITE_DEADLINE), nowMillis);
    }

    /**
     * Copies a value out without taking a lock if it can; falls back to the read lock.
     *
     * @param nowMillis the time for expiry checks; {@link Long#MIN_VALUE} when nothing expires
     * @param refreshDeadlineMillis if not 0, the access deadline to give a live entry (needs the read lock)
     * @param record whether the eviction policy hears of the read
     * @return a copy of the value, or null if absent or expired
     */
    byte[] getCopy(long hash, byte[] key, long nowMillis, long refreshDeadlineMillis, boolean record) {
        if (refreshDeadlineMillis == 0) {
            long stamp = lock.tryOptimisticRead();
            if (stamp != 0) {
                byte[] value;
                int entry;
                // read before validating: if the stamp holds, no removal came between it and the lookup
                int epoch = removalEpoch;
                try {
                    entry = find(hash, key, true);
                    value = entry <= 0 ? (entry == 0 ? null : RETRY) : copyChecked(entry, nowMillis, stamp);
                } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                    entry = -1;
                    value = RETRY;
                }
                if (value != RETRY && lock.validate(stamp)) {
                    if (value != null && record) {
                        readBuffer.record(entry, epoch, this);
                    }
                    return value;
                }
            }
        }
        return getCopyUnderReadLock(hash, key, nowMillis, refreshDeadlineMillis, record);
    }

    /** The slow path of {@link #getCopy}, apart so the fast path stays small enough to inline. */
    private byte[] getCopyUnderReadLock(long hash, byte[] key, long nowMillis,
                                        long refreshDeadlineMillis, boolean record) {
        long stamp = lockRead();
        try {
            int entry = liveEntryLocked(hash, key, nowMillis, refreshDeadlineMillis, record);
            if (entry == 0) {
                return null;
            }
            int meta = getInt(region, address(entry) + META);
            return copy(valueOffset(entry, meta), valueLength(entry, meta));
        } finally {
            lock.unlockRead(stamp);
            replayReadsIfFull();
        }
    }

    /** Under the read or write lock: a reader racing this writes the same value or a later one. */
    void refreshAccessDeadline(int entry, long deadlineMillis) {
        long at = address(entry);
        int meta = getInt(region, at + META);
        // an entry without deadline fields never expires: none was configured when it was written
        if (RegionLayout.deadlined(meta) && !RegionLayout.fixedTtl(meta)) {
            // never earlier: a reader whose clock reading predates a write's would move the deadline before
            // the segment's lower bound, and a clean-up trusting that bound would then miss the entry
            RegionLayout.raiseInt(region, at + DEADLINE, Deadlines.encode(deadlineMillis));
        }
    }

    /**
     * The optimistic copy of an entry's value, {@link #RETRY} if what it read cannot be a value. A length
     * read while a writer changes the entry may be anything up to the entry limit, which a large cache
     * puts past what an array holds (a segment holds up to 8 GiB): so a length over
     * {@link #TORN_LENGTH_CHECK} is trusted only once the stamp still holds, and never one over an
     * array's limit, rather than sizing an array of gigabytes (or a negative one) from a torn read.
     */
    private byte[] copyChecked(int entry, long nowMillis, long stamp) {
        int meta = getInt(region, address(entry) + META);
        long length = valueLength(entry, meta);
        if (length < 0 || length > maxEntryBytes || length > MAX_ARRAY_BYTES
                || (length > TORN_LENGTH_CHECK && !lock.validate(stamp))) {
            return RETRY;
        }
        if (expired(entry, nowMillis)) {
            return null;
        }
        return copy(valueOffset(entry, meta), length);
    }

    private byte[] copy(long offset, long length) {
        byte[] bytes = new byte[(int) length];
        MemorySegment.copy(region, ValueLayout.JAVA_BYTE, offset, bytes, 0, (int) length);
        return bytes;
    }

    /**
     * Checks for a live entry without a lock if it can.
     *
     * @return whether an unexpired entry of the key is present
     */
    boolean contains(long hash, byte[] key, long nowMillis) {
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            try {
                int entry = find(hash, key, true);
                boolean live = entry > 0 && !expired(entry, nowMillis);
                if (entry >= 0 && lock.validate(stamp)) {
                    return live;
                }
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                // torn read: retry under the lock
            }
        }
        stamp = lockRead();
        try {
            return liveEntryLocked(hash, key, nowMillis, 0, false) != 0;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Under the read lock: the live entry of the key, its value as a read-only slice of the region. A
     * recorded read is only buffered: the caller calls {@link #replayReadsIfFull} after releasing the lock.
     *
     * @param recordRead whether the eviction policy hears of the read (false for a quiet read)
     * @return the slice, or null if absent or expired
     */
    MemorySegment valueSliceLocked(long hash, byte[] key, long nowMillis,
                                   long refreshDeadlineMillis, boolean recordRead) {
        int entry = liveEntryLocked(hash, key, nowMillis, refreshDeadlineMillis, recordRead);
        if (entry == 0) {
            return null;
        }
        int meta = getInt(region, address(entry) + META);
        return region.asSlice(valueOffset(entry, meta), valueLength(entry, meta));
    }

    /**
     * Under the read (or write) lock: the look-up of every read that finds a key's entry, a copying get, a
     * read in place, a containsKey, quiet or not. A recorded read is only buffered: the caller calls
     * {@link #replayReadsIfFull} once it has released the lock.
     *
     * @param refreshDeadlineMillis if not 0, the access deadline to give a live entry
     * @param record                whether the eviction policy hears of the read (false for a quiet read)
     * @return the key's live entry, 0 if it is absent or expired
     */
    private int liveEntryLocked(long hash, byte[] key, long nowMillis, long refreshDeadlineMillis, boolean record) {
        int entry = find(hash, key, false);
        if (entry == 0 || expired(entry, nowMillis)) {
            return 0;
        }
        if (refreshDeadlineMillis != 0) {
            refreshAccessDeadline(entry, refreshDeadlineMillis);
        }
        if (record) {
            readBuffer.offer(entry, removalEpoch);
        }
        return entry;
    }

    /** @return the live entry of the key, 0 if none; an expired one is removed on the way */
    int findLiveLocked(long hash, byte[] key, long nowMillis, Removals removals) {
        int entry = find(hash, key, false);
        if (entry != 0 && expired(entry, nowMillis)) {
            removeLocked(entry, RemovalCause.EXPIRED, removals);
            return 0;
        }
        return entry;
    }

    byte[] valueCopyLocked(int entry) {
        int meta = getInt(region, address(entry) + META);
        return copy(valueOffset(entry, meta), valueLength(entry, meta));
    }

    byte[] keyCopyLocked(int entry) {
        int meta = getInt(region, address(entry) + META);
        return copy(address(entry) + headerBytes(meta), keyLength(meta));
    }

    boolean valueEqualsLocked(int entry, byte[] expected) {
        int meta = getInt(region, address(entry) + META);
        long length = valueLength(entry, meta);
        if (length != expected.length) {
            return false;
        }
        long offset = valueOffset(entry, meta);
        return MemorySegment.mismatch(region, offset, offset + length, MemorySegment.ofArray(expected), 0, length) < 0;
    }

    // ------------------------------------------------------------------ writes

    /**
     * Stores a new entry; the key must be absent (the caller removed any old entry).
     *
     * @param deadline       encoded deadline (0: never)
     * @param writeDeadline  encoded write deadline when the cache has two
     * @return whether it was stored: false only if the entry cannot fit even in an empty shard
     */
    boolean insertLocked(long hash, byte[] key, MemorySegment value, int deadline, int writeDeadline,
                         boolean fixedTtl, Removals removals) {
        int header = headerBytesFor(deadline);
        long raw = (long) header + key.length + value.byteSize();
        int units = units(raw);
        int entry = makeRoomLocked(units, 0, removals);
        if (entry == 0) {
            return false;
        }
        placeLocked(entry, units, raw, hash, key, value, deadline, writeDeadline, fixedTtl);
        return true;
    }

    /**
     * Writes a new entry of the key into an allocated block and links it: into its chain, at the window's
     * tail, into the counts and the sketch. Nothing here allocates on the heap or can fail.
     *
     * @param raw the entry's bytes before padding: header, key and value
     */
    private void placeLocked(int entry, int units, long raw, long hash, byte[] key, MemorySegment value,
                             int deadline, int writeDeadline, boolean fixedTtl) {
        int header = headerBytesFor(deadline);
        int pad = (int) (((long) units << RegionLayout.UNIT_SHIFT) - raw);
        long at = address(entry);
        long bucket = bucketAddress(hash);
        boolean deadlined = deadline != Deadlines.NEVER;
        setInt(region, at + CHAIN_NEXT, getInt(region, bucket));
        setInt(region, at + META, RegionLayout.meta(key.length, RegionLayout.tagOf(hash), pad, WINDOW, fixedTtl, deadlined));
        writeDeadlines(at, deadlined, deadline, writeDeadline);
        MemorySegment.copy(key, 0, region, ValueLayout.JAVA_BYTE, at + header, key.length);
        MemorySegment.copy(value, 0, region, at + header + key.length, value.byteSize());
        setInt(region, bucket, entry);
        linkLast(WINDOW, entry);
        count++;
        entryBytes += (long) units << RegionLayout.UNIT_SHIFT;
        if (tinyLfu) {
            sketch.increment((int) hash);
            evictFromWindowLocked();
        }
        maybeGrowLocked();
    }

    /**
     * Gives a live entry a new value in a block of its own, for a value that {@link #overwriteLocked} cannot
     * write in place; failure-atomically. The old entry leaves the eviction policy's queues while room is
     * made, so the evictions never pick it; the new entry's block is allocated while the old one is still
     * there, and the old entry is unlinked and freed only then, and the new one placed, neither of which can
     * fail. A failure on the way (an {@link OutOfMemoryError} copying an evicted entry to the heap for the
     * removal listener) leaves the key with its old value, back at the tail of its queue, and takes back the
     * REPLACED removal collected for it; what was evicted before the failure stays evicted, and told. Where
     * the two do not fit the segment together, the old entry leaves first, once no other entry is left to
     * evict; the new one then goes into the empty segment, where nothing is evicted. The new entry enters
     * the window, as a new entry does.
     *
     * @param entry the live entry of the key, found under this write lock
     * @param told whether the value replaced is told as REPLACED (not for a compute that kept the value)
     * @return whether it was stored: false only if the new entry cannot fit even in an empty shard (the old
     *         entry is gone then, told REPLACED)
     */
    boolean moveLocked(int entry, long hash, byte[] key, MemorySegment value, int deadline, int writeDeadline,
                       boolean fixedTtl, boolean told, Removals removals) {
        int replaced = -1;
        if (removals.wanted && told) {
            // copied before anything changes: a failure here leaves everything as it was
            replaced = removals.add(keyCopyLocked(entry), valueCopyLocked(entry), RemovalCause.REPLACED);
        }
        long raw = (long) headerBytesFor(deadline) + key.length + value.byteSize();
        int units = units(raw);
        int queue = RegionLayout.queue(getInt(region, address(entry) + META));
        unlink(entry);
        int block;
        try {
            block = makeRoomLocked(units, entry, removals);
        } catch (RuntimeException | Error e) {
            linkLast(queue, entry);
            removals.retract(replaced);
            throw e;
        }
        dropLocked(entry, false);
        if (block == 0) {
            block = makeRoomLocked(units, 0, removals);
            if (block == 0) {
                return false;
            }
        }
        placeLocked(block, units, raw, hash, key, value, deadline, writeDeadline, fixedTtl);
        return true;
    }

    /**
     * Writes a new value over a live entry's, in place, if the entry keeps its block size: no allocation,
     * no chain or queue change, no new cache misses beyond the entry itself. Optimistic readers racing
     * this fail their validation (this runs under the write lock) and retry; zero-copy readers hold the
     * read lock, so this waits for them. The write counts as an access for the policy, as in Caffeine.
     *
     * @param entry the live entry of the key, found under this write lock
     * @param keyLength the key's length in bytes (the key's bytes stay as they are)
     * @param told whether the value overwritten is told as REPLACED (not for a compute that kept the value)
     * @return whether it was overwritten; false if the new value needs another block size
     */
    boolean overwriteLocked(int entry, long hash, int keyLength, MemorySegment value, int deadline,
                            int writeDeadline, boolean fixedTtl, boolean told, Removals removals) {
        long at = address(entry);
        boolean deadlined = deadline != Deadlines.NEVER;
        if (RegionLayout.deadlined(getInt(region, at + META)) != deadlined) {
            return false; // the header changes size, and the key would have to move
        }
        int header = headerBytesFor(deadline);
        long raw = (long) header + keyLength + value.byteSize();
        int units = units(raw);
        if (units != allocator.sizeOf(entry)) {
            return false;
        }
        if (removals.wanted && told) {
            removals.add(keyCopyLocked(entry), valueCopyLocked(entry), RemovalCause.REPLACED);
        }
        int pad = (int) (((long) units << RegionLayout.UNIT_SHIFT) - raw);
        int queue = RegionLayout.queue(getInt(region, at + META));
        setInt(region, at + META, RegionLayout.meta(keyLength, RegionLayout.tagOf(hash), pad, queue, fixedTtl, deadlined));
        writeDeadlines(at, deadlined, deadline, writeDeadline);
        MemorySegment.copy(value, 0, region, at + header + keyLength, value.byteSize());
        onReadLocked(entry, (int) hash);
        return true;
    }

    private void writeDeadlines(long at, boolean deadlined, int deadline, int writeDeadline) {
        if (deadlined) {
            setInt(region, at + DEADLINE, deadline);
            int earliest = deadline;
            if (twoDeadlines) {
                setInt(region, at + WRITE_DEADLINE, writeDeadline);
                earliest = earliestOf(deadline, writeDeadline);
            }
            earliestDeadline = Math.min(earliestDeadline, earliest);
            earliestWrittenDuringPass = Math.min(earliestWrittenDuringPass, earliest);
        }
    }

    /** @return the earlier of two encoded deadlines, {@link Deadlines#NEVER} counting as none */
    private static int earliestOf(int a, int b) {
        return a == Deadlines.NEVER ? (b == Deadlines.NEVER ? Integer.MAX_VALUE : b)
                : b == Deadlines.NEVER ? a : Math.min(a, b);
    }

    /** @return the earliest encoded deadline of an entry, {@link Integer#MAX_VALUE} if it never expires */
    private int earliestDeadlineOf(int entry) {
        long at = address(entry);
        if (!RegionLayout.deadlined(getInt(region, at + META))) {
            return Integer.MAX_VALUE;
        }
        // a deadlined entry's first deadline is never NEVER (Deadlines.encode); its write deadline may be
        int deadline = getInt(region, at + DEADLINE);
        return twoDeadlines ? earliestOf(deadline, getInt(region, at + WRITE_DEADLINE)) : deadline;
    }

    private long maxEntryWeight() {
        long units = allocator.totalUnits() - 2L - allocator.sizeOf(tableBlock)
                - (tinyLfu ? allocator.sizeOf(sketchBlock) : 0);
        return units << RegionLayout.UNIT_SHIFT;
    }

    /**
     * @param keep an entry to keep, taken out of the queues by the caller so that no eviction picks it (its
     *             bytes count as leaving), or 0
     * @return an allocated block of {@code units}, after evicting what the policy and the allocator need; 0
     *         if it cannot fit even in an empty shard, or, with {@code keep}, beside that entry alone
     */
    private int makeRoomLocked(int units, int keep, Removals removals) {
        long need = (long) units << RegionLayout.UNIT_SHIFT;
        long leaving = 0;
        int kept = 0;
        if (keep != 0) {
            leaving = (long) allocator.sizeOf(keep) << RegionLayout.UNIT_SHIFT;
            kept = 1;
        }
        while (count > kept && entryBytes - leaving + need > maxEntryWeight()) {
            evictOneLocked(removals);
        }
        int block;
        boolean restarted = false;
        while ((block = allocator.allocate(units)) == 0) {
            if (count > kept) {
                evictOneLocked(removals);
            } else if (keep != 0) {
                return 0; // the tables may not shrink under an entry still chained
            } else if (!shrinkTablesLocked()) {
                if (restarted) {
                    return 0;
                }
                // Empty, tables at their smallest, and still no room: the tables may sit inside the free
                // space (shrinking put them where it found room), leaving no single run as long as the
                // largest entry the segment promises to hold. Start the region over, tables first.
                restartEmptyLocked();
                restarted = true;
            }
        }
        return block;
    }

    /** For a segment without entries: frees everything and allocates the tables at the region's start. */
    private void restartEmptyLocked() {
        readBuffer.clear();
        removalEpoch++;
        allocator.reset();
        candidate = 0;
        initTables();
    }

    private void evictOneLocked(Removals removals) {
        int victim = tinyLfu ? tinyLfuVictim() : coldHead(WINDOW);
        if (victim == 0) {
            throw new IllegalStateException("no entry to evict in a shard of " + count + " entries");
        }
        long nowMillis = removals.nowMillis;
        removeLocked(victim, nowMillis != Long.MIN_VALUE && expired(victim, nowMillis)
                ? RemovalCause.EXPIRED : RemovalCause.SIZE, removals);
    }

    private int tinyLfuVictim() {
        int victim = queueHead[PROBATION];
        if (victim == 0) {
            victim = queueHead[PROTECTED] != 0 ? queueHead[PROTECTED] : queueHead[WINDOW];
            return victim;
        }
        int challenger = candidate;
        if (challenger == 0 || challenger == victim) {
            return victim;
        }
        int challengerFrequency = sketch.frequency((int) entryHash(challenger));
        int victimFrequency = sketch.frequency((int) entryHash(victim));
        if (challengerFrequency > victimFrequency
                || (challengerFrequency >= 6 && (ThreadLocalRandom.current().nextInt() & 127) == 0)) {
            candidate = getInt(region, address(challenger) + QUEUE_NEXT);
            return victim;
        }
        return challenger;
    }

    private void evictFromWindowLocked() {
        long windowMax = maxEntryWeight() / 100;
        while (queueBytes[WINDOW] > windowMax) {
            int entry = coldHead(WINDOW);
            unlink(entry);
            linkLast(PROBATION, entry);
            if (candidate == 0) {
                candidate = entry;
            }
        }
    }

    private long entryHash(int entry) {
        int meta = getInt(region, address(entry) + META);
        return Hashing.hash(region, address(entry) + headerBytes(meta), keyLength(meta));
    }

    /**
     * Removes an entry from its chain and queue and frees it, telling stats and the listener.
     *
     * @param cause why it leaves; null for an entry that a compute stores again with the value it was given,
     *              which is no removal: neither stats nor the listener hear of it
     */
    void removeLocked(int entry, RemovalCause cause, Removals removals) {
        if (removals.wanted && cause != null) {
            removals.add(keyCopyLocked(entry), valueCopyLocked(entry), cause);
        }
        long bytes = dropLocked(entry, true);
        if (cause == RemovalCause.SIZE) {
            stats.evicted(bytes);
        } else if (cause == RemovalCause.EXPIRED) {
            stats.expired();
        }
    }

    /**
     * Unlinks an entry from its chain (and its queue, if it is in one), takes it out of the counts and frees
     * it; tells nobody. Allocates nothing on the heap.
     *
     * @param queued whether the entry is in its queue still
     * @return the entry's bytes
     */
    private long dropLocked(int entry, boolean queued) {
        long at = address(entry);
        int size = allocator.sizeOf(entry);
        long bucket = bucketAddress(entryHash(entry));
        int next = getInt(region, at + CHAIN_NEXT);
        int current = getInt(region, bucket);
        if (current == entry) {
            setInt(region, bucket, next);
        } else {
            while (current != 0) {
                int following = getInt(region, address(current) + CHAIN_NEXT);
                if (following == entry) {
                    setInt(region, address(current) + CHAIN_NEXT, next);
                    break;
                }
                current = following;
            }
            if (current == 0) {
                throw new IllegalStateException("entry at unit " + entry + " is not in its chain");
            }
        }
        removalEpoch++;
        if (queued) {
            unlink(entry);
        }
        count--;
        long bytes = (long) size << RegionLayout.UNIT_SHIFT;
        entryBytes -= bytes;
        allocator.free(entry);
        return bytes;
    }

    /**
     * Removes every entry: an entry whose time ran out (at the collector's clock reading) as EXPIRED, the
     * others as EXPLICIT. With nobody to tell and nothing to count, at once, without visiting the entries.
     */
    void clearLocked(Removals removals) {
        readBuffer.clear();
        removalEpoch++;
        long nowMillis = removals.nowMillis;
        boolean countsExpirations = nowMillis != Long.MIN_VALUE && stats.enabled();
        if (!removals.wanted && !countsExpirations) {
            java.util.Arrays.fill(queueHead, 0);
            java.util.Arrays.fill(queueTail, 0);
            java.util.Arrays.fill(queueBytes, 0);
            count = 0;
            entryBytes = 0;
            restartEmptyLocked();
            return;
        }
        for (int queue = 0; queue < 3; queue++) {
            while (queueHead[queue] != 0) {
                int head = queueHead[queue];
                boolean expired = nowMillis != Long.MIN_VALUE && expired(head, nowMillis);
                removeLocked(head, expired ? RemovalCause.EXPIRED : RemovalCause.EXPLICIT, removals);
            }
        }
    }

    /** Removes expired entries found at the heads of the queues. */
    void expireLocked(long nowMillis, Removals removals) {
        for (int queue = 0; queue < 3; queue++) {
            for (int i = 0; i < 16; i++) {
                // a read entry (marked, not moved) at the head would hide older ones behind it
                int head = queue == PROBATION ? queueHead[queue] : coldHead(queue);
                if (head == 0 || !expired(head, nowMillis)) {
                    break;
                }
                removeLocked(head, RemovalCause.EXPIRED, removals);
            }
        }
    }

    /**
     * Removes the expired entries of the buckets from {@code from} on, {@code count} of them at most.
     * A cursor over buckets survives the table's growth between calls: doubling sends every entry of a
     * bucket at or past the cursor to a bucket at or past it, so a pass from 0 to the end misses no
     * entry that was there when it began (entries of buckets already passed may be seen twice). The
     * table only shrinks when the segment is empty, so every entry there after a shrink was written
     * since (and lowered the bound of the pass); a cursor then past the table's end ends the pass as
     * the table's end does.
     *
     * <p>The first of concurrent passes to begin owns the segment's deadline bound and raises it when it
     * reaches the end; the others only remove. A pass that stops before the end gives the bound up with
     * {@link #abandonPassLocked}.
     *
     * @param pass the pass, the same object for all its calls
     * @return the next bucket, or -1 past the table's end
     */
    int expireBucketsLocked(int from, int count, long nowMillis, Removals removals, Object pass) {
        if (from == 0) {
            if (!Deadlines.passed(earliestDeadline, nowMillis)) {
                return -1; // no entry's deadline has come: nothing to look at
            }
            if (boundingPass == null) {
                boundingPass = pass;
                earliestKeptByPass = Integer.MAX_VALUE;
                earliestWrittenDuringPass = Integer.MAX_VALUE;
            }
        }
        boolean bounding = boundingPass == pass;
        // a cursor past the end (the table shrank under it: the segment was empty meanwhile) is at the end:
        // the loop below looks at nothing and the pass ends as any pass does, handing the bound on
        int to = (int) Math.min((long) tableMask + 1, (long) from + count);
        long data = address(tableBlock) + TABLE_DATA;
        for (int b = from; b < to; b++) {
            int entry = getInt(region, data + ((long) b << 2));
            while (entry != 0) {
                int next = getInt(region, address(entry) + CHAIN_NEXT);
                if (expired(entry, nowMillis)) {
                    removeLocked(entry, RemovalCause.EXPIRED, removals);
                } else if (bounding) {
                    earliestKeptByPass = Math.min(earliestKeptByPass, earliestDeadlineOf(entry));
                }
                entry = next;
            }
        }
        if (to > tableMask) {
            if (bounding) {
                // every entry is behind the cursor now: kept ones were seen, newer ones lowered the other bound
                earliestDeadline = Math.min(earliestKeptByPass, earliestWrittenDuringPass);
                boundingPass = null;
            }
            return -1;
        }
        return to;
    }

    /**
     * Offers each live entry (not expired at {@code nowMillis}) of the buckets from {@code from} on,
     * {@code count} of them at most, to {@code sweeper}, and removes those it accepts, as a compute that
     * returns null removes an entry (EXPLICIT). The cursor over buckets survives the table's growth between
     * calls as {@link #expireBucketsLocked}'s does: an entry there for the whole pass is offered at least once.
     *
     * @param nowMillis the time for expiry checks; {@link Long#MIN_VALUE} when nothing expires
     * @return the next bucket, or -1 past the table's end
     */
    int sweepBucketsLocked(int from, int count, long nowMillis, OffHeapCacheImpl.Sweeper sweeper,
                           Removals removals) {
        int to = (int) Math.min((long) tableMask + 1, (long) from + count);
        long data = address(tableBlock) + TABLE_DATA;
        for (int b = from; b < to; b++) {
            int entry = getInt(region, data + ((long) b << 2));
            while (entry != 0) {
                int next = getInt(region, address(entry) + CHAIN_NEXT);
                if (nowMillis == Long.MIN_VALUE || !expired(entry, nowMillis)) {
                    long at = address(entry);
                    int meta = getInt(region, at + META);
                    long keyAt = at + headerBytes(meta);
                    int keyLength = keyLength(meta);
                    MemorySegment key = region.asSlice(keyAt, keyLength);
                    MemorySegment value = region.asSlice(keyAt + keyLength, valueLength(entry, meta));
                    if (sweeper.removes(key, value)) {
                        removeLocked(entry, RemovalCause.EXPLICIT, removals);
                    }
                }
                entry = next;
            }
        }
        return to > tableMask ? -1 : to;
    }

    /**
     * Gives up the deadline bound if {@code pass} owns it, for a pass that stops before the table's end
     * (the cache was closed under it), so that later passes can raise the bound again.
     */
    void abandonPassLocked(Object pass) {
        if (boundingPass == pass) {
            boundingPass = null;
        }
    }

    private boolean shrinkTablesLocked() {
        boolean shrunk = false;
        if (tableMask + 1 > INITIAL_BUCKETS) {
            allocator.free(tableBlock);
            tableBlock = allocator.allocate(1 + units((long) INITIAL_BUCKETS * Integer.BYTES));
            tableMask = INITIAL_BUCKETS - 1;
            region.asSlice(address(tableBlock) + TABLE_DATA, (long) INITIAL_BUCKETS * Integer.BYTES).fill((byte) 0);
            shrunk = true;
        }
        if (tinyLfu && sketch.counterLongs() > INITIAL_SKETCH_LONGS) {
            allocator.free(sketchBlock);
            sketchBlock = allocator.allocate(1 + units(FrequencySketch.bytesFor(INITIAL_SKETCH_LONGS)));
            sketch.attach(address(sketchBlock) + TABLE_DATA, INITIAL_SKETCH_LONGS);
            shrunk = true;
        }
        return shrunk;
    }

    /** Grows the table and the sketch with the entry count, when free memory allows without evicting. */
    private void maybeGrowLocked() {
        int buckets = tableMask + 1;
        if (count > LOAD_FACTOR * buckets && buckets < MAX_BUCKETS) {
            int newBuckets = buckets * 2;
            int block = allocator.allocate(1 + units((long) newBuckets * Integer.BYTES));
            if (block != 0) {
                long data = address(block) + TABLE_DATA;
                region.asSlice(data, (long) newBuckets * Integer.BYTES).fill((byte) 0);
                int newMask = newBuckets - 1;
                long oldData = address(tableBlock) + TABLE_DATA;
                for (int b = 0; b < buckets; b++) {
                    int entry = getInt(region, oldData + ((long) b << 2));
                    while (entry != 0) {
                        int next = getInt(region, address(entry) + CHAIN_NEXT);
                        long slot = data + ((entryHash(entry) & newMask) << 2);
                        setInt(region, address(entry) + CHAIN_NEXT, getInt(region, slot));
                        setInt(region, slot, entry);
                        entry = next;
                    }
                }
                allocator.free(tableBlock);
                tableBlock = block;
                tableMask = newMask;
            }
        }
        int perLong = FrequencySketch.ENTRIES_PER_LONG;
        if (tinyLfu && count > (long) sketch.counterLongs() * perLong && sketch.counterLongs() < MAX_SKETCH_LONGS) {
            int longs = Integer.highestOneBit((int) Math.min((count + perLong - 1) / perLong, MAX_SKETCH_LONGS) - 1) << 1;
            int block = allocator.allocate(1 + units(FrequencySketch.bytesFor(longs)));
            if (block != 0) {
                allocator.free(sketchBlock);
                sketchBlock = block;
                sketch.attach(address(block) + TABLE_DATA, longs);
            }
        }
    }

    // ------------------------------------------------------------------ queues

    private void linkLast(int queue, int entry) {
        long at = address(entry);
        setInt(region, at + META, RegionLayout.withQueue(getInt(region, at + META), queue));
        int tail = queueTail[queue];
        setInt(region, at + QUEUE_PREV, tail);
        setInt(region, at + QUEUE_NEXT, 0);
        if (tail == 0) {
            queueHead[queue] = entry;
        } else {
            setInt(region, address(tail) + QUEUE_NEXT, entry);
        }
        queueTail[queue] = entry;
        queueBytes[queue] += (long) allocator.sizeOf(entry) << RegionLayout.UNIT_SHIFT;
    }

    private void unlink(int entry) {
        long at = address(entry);
        int queue = RegionLayout.queue(getInt(region, at + META));
        int previous = getInt(region, at + QUEUE_PREV);
        int next = getInt(region, at + QUEUE_NEXT);
        if (entry == candidate) {
            candidate = next;
        }
        if (previous == 0) {
            queueHead[queue] = next;
        } else {
            setInt(region, address(previous) + QUEUE_NEXT, next);
        }
        if (next == 0) {
            queueTail[queue] = previous;
        } else {
            setInt(region, address(next) + QUEUE_PREV, previous);
        }
        queueBytes[queue] -= (long) allocator.sizeOf(entry) << RegionLayout.UNIT_SHIFT;
    }

    /**
     * Replays recorded reads, each {@code removalEpoch << 32 | entry}. A read is replayed if no entry was
     * removed since it was recorded (then the recorded entry is certainly still there); one recorded before
     * a removal is dropped, like reads that find the buffer full, which costs only a little precision. A
     * first pass loads the sketch memory of every read, so that their cache misses overlap; the second
     * applies them.
     *
     * @param records the records; overwritten with {@code hash << 32 | entry}, or 0 for a dropped one
     * @param n how many of them
     */
    void replayReadsLocked(long[] records, int n) {
        long touched = 0;
        for (int i = 0; i < n; i++) {
            int entry = (int) records[i];
            if ((int) (records[i] >>> 32) != removalEpoch || entry <= 0 || entry >= allocator.totalUnits() - 1) {
                records[i] = 0;
                continue;
            }
            int hash = (int) entryHash(entry);
            records[i] = ((long) hash << 32) | entry;
            if (tinyLfu) {
                touched ^= sketch.touch(hash);
            }
        }
        prefetched = touched;
        for (int i = 0; i < n; i++) {
            if (records[i] != 0) {
                onReadLocked((int) records[i], (int) (records[i] >>> 32));
            }
        }
    }

    /**
     * A read of a live entry found under the write lock (a putIfAbsent that finds its key): applied at once,
     * as a replayed read is, since the lock is held anyway.
     */
    void readLocked(int entry, long hash) {
        onReadLocked(entry, (int) hash);
    }

    /** Applies one read of a live entry: counts it in the sketch, promotes or marks it. */
    private void onReadLocked(int entry, int hash) {
        long metaAt = address(entry) + META;
        int meta = getInt(region, metaAt);
        if (tinyLfu) {
            sketch.increment(hash);
        }
        if (!tinyLfu || RegionLayout.queue(meta) != PROBATION) {
            // moving it to the tail now would touch both queue neighbours (two cache misses per read);
            // the mark costs nothing, and the queue's head gives the entry its second chance later
            setInt(region, metaAt, meta | RegionLayout.REFERENCED);
            return;
        }
        unlink(entry);
        linkLast(PROTECTED, entry);
        long protectedMax = (maxEntryWeight() - maxEntryWeight() / 100) * 4 / 5;
        while (queueBytes[PROTECTED] > protectedMax) {
            int demoted = coldHead(PROTECTED);
            unlink(demoted);
            linkLast(PROBATION, demoted);
        }
    }

    /**
     * The head of a queue after the referenced entries found there had their second chance: each moves to
     * the tail, unmarked (CLOCK's approximation of LRU, which spares reads the move). At most
     * {@link #MAX_SECOND_CHANCES} move per call, so one call stays short when most entries were read.
     *
     * @return the first unreferenced head, or the head after that many moves; 0 if the queue is empty
     */
    private int coldHead(int queue) {
        int head = queueHead[queue];
        for (int chances = 0; head != 0 && chances < MAX_SECOND_CHANCES; chances++) {
            if (!RegionLayout.referenced(getInt(region, address(head) + META)) || head == queueTail[queue]) {
                break;
            }
            unlink(head);
            linkLast(queue, head);
            head = queueHead[queue];
        }
        return head;
    }

    void drainReadsLocked() {
        readBuffer.drain(this);
    }

    /**
     * Has the calling thread's stripe of recorded reads replayed if it is full: for readers that recorded
     * under the read lock, after releasing it, so that writers waiting for the lock do not wait for a
     * replay too. Without this a workload of reads in place alone would drop every read after the first
     * few per stripe until some write came.
     */
    void replayReadsIfFull() {
        if (readBuffer.full()) {
            tryReplay();
        }
    }

    /**
     * Called by a reader, holding no lock or only the read lock, whose stripe is full: replays the recorded
     * reads if the policy lock is free at once (a writer holding it replays them itself); nothing once the
     * cache's memory is released. It never takes the write lock, so other readers of the segment go on
     * meanwhile: in JMH (1,000,000 x 100 B, three alternating rounds against replays under the write lock)
     * two threads' zero-copy reads went from 1.30-1.55M to 1.86-2.02M a second and their copying gets from
     * 1.38-1.70M to 1.76-2.07M; one thread's moved within the noise, and puts did not slow down.
     */
    void tryReplay() {
        if (policyLock.tryLock()) {
            try {
                if (!released) {
                    readBuffer.drain(this);
                }
            } finally {
                policyLock.unlock();
            }
        }
    }

    /**
     * Marks the shard's memory as about to be released, so that no replay touches it afterwards: takes
     * both locks, waiting for writers, readers and a replay in progress, unless the calling thread holds
     * them already (a close from inside {@code compute}, whose operation then fails on its next access).
     */
    void markReleased() {
        if (holdsWriteLock()) {
            released = true;
            return;
        }
        long stamp = LockHolds.lock(this, true);
        policyLock.lock();
        try {
            released = true;
        } finally {
            policyLock.unlock();
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Removes expired queue heads if the write lock is free at once; lets writes to one segment clean
     * segments that see no writes of their own.
     */
    void tryExpire(long nowMillis, Removals removals) {
        if (writer == Thread.currentThread()) {
            return;
        }
        long stamp = lock.tryWriteLock();
        if (stamp == 0) {
            return;
        }
        policyLock.lock();
        writer = Thread.currentThread();
        try {
            readBuffer.drain(this);
            expireLocked(nowMillis, removals);
        } finally {
            unlockWrite(stamp);
        }
    }

    // ------------------------------------------------------------------ inspection

    /**
     * @return {@link #sizes()} summed over the shards: entries, entry bytes, used region bytes
     * @throws IllegalStateException if the regions' arena is closed
     */
    static long[] sumOfSizes(Shard[] shards) {
        long[] sum = new long[3];
        for (Shard shard : shards) {
            long[] sizes = shard.sizes();
            for (int i = 0; i < 3; i++) {
                sum[i] += sizes[i];
            }
        }
        return sum;
    }

    /** @return {count, entry bytes, used bytes of the region}, read consistently */
    long[] sizes() {
        long stamp = lock.tryOptimisticRead();
        long c = count;
        long b = entryBytes;
        long u = allocator.usedUnits() << RegionLayout.UNIT_SHIFT;
        if (stamp != 0 && lock.validate(stamp)) {
            return new long[]{c, b, u};
        }
        stamp = lockRead();
        try {
            return new long[]{count, entryBytes, allocator.usedUnits() << RegionLayout.UNIT_SHIFT};
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** @return copies of the keys of the live entries, under the read lock */
    List<byte[]> keySnapshot(long nowMillis) {
        long stamp = lockRead();
        try {
            List<byte[]> keys = new ArrayList<>((int) Math.min(count, 1 << 20));
            long data = address(tableBlock) + TABLE_DATA;
            for (int b = 0; b <= tableMask; b++) {
                for (int entry = getInt(region, data + ((long) b << 2)); entry != 0;
                     entry = getInt(region, address(entry) + CHAIN_NEXT)) {
                    if (!expired(entry, nowMillis)) {
                        keys.add(keyCopyLocked(entry));
                    }
                }
            }
            return keys;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    long regionBytes() {
        return region.byteSize();
    }

    /** Checks every structure of the shard against the others; for tests. Takes the write lock. */
    void verify() {
        long stamp = lockWrite();
        try {
            allocator.verify();
            long chained = 0;
            long bytes = 0;
            long data = address(tableBlock) + TABLE_DATA;
            for (int b = 0; b <= tableMask; b++) {
                for (int entry = getInt(region, data + ((long) b << 2)); entry != 0;
                     entry = getInt(region, address(entry) + CHAIN_NEXT)) {
                    if ((entryHash(entry) & tableMask) != b) {
                        throw new IllegalStateException("entry at unit " + entry + " in the wrong bucket " + b);
                    }
                    chained++;
                    bytes += (long) allocator.sizeOf(entry) << RegionLayout.UNIT_SHIFT;
                }
            }
            long queued = 0;
            for (int queue = 0; queue < 3; queue++) {
                long queueSum = 0;
                int previous = 0;
                for (int entry = queueHead[queue]; entry != 0; entry = getInt(region, address(entry) + QUEUE_NEXT)) {
                    if (getInt(region, address(entry) + QUEUE_PREV) != previous
                            || RegionLayout.queue(getInt(region, address(entry) + META)) != queue) {
                        throw new IllegalStateException("queue " + queue + " broken at unit " + entry);
                    }
                    queued++;
                    queueSum += (long) allocator.sizeOf(entry) << RegionLayout.UNIT_SHIFT;
                    previous = entry;
                }
                if (previous != queueTail[queue] || queueSum != queueBytes[queue]) {
                    throw new IllegalStateException("queue " + queue + " tail or byte count wrong");
                }
            }
            if (chained != count || queued != count || bytes != entryBytes) {
                throw new IllegalStateException("shard counts " + count + " entries of " + entryBytes
                        + " bytes; chains hold " + chained + " of " + bytes + ", queues " + queued);
            }
            long tables = (long) (allocator.sizeOf(tableBlock) + (tinyLfu ? allocator.sizeOf(sketchBlock) : 0))
                    << RegionLayout.UNIT_SHIFT;
            long used = allocator.usedUnits() << RegionLayout.UNIT_SHIFT;
            if (used != entryBytes + tables + 2L * RegionLayout.UNIT) {
                throw new IllegalStateException("allocator uses " + used + " bytes; entries " + entryBytes
                        + " + tables " + tables + " + sentinels 16");
            }
        } finally {
            unlockWrite(stamp);
        }
    }

    /**
     * Reads recorded by readers, replayed under the policy lock by the next writer or by a reader that finds
     * its stripe full: per stripe a ring of 16 slots, each {@code removalEpoch << 32 | entry}. Lossy on
     * purpose: records are dropped when a stripe is full and the policy lock is busy, and racing recorders
     * may overwrite each other; the replay validates each record, so a lost or garbled one costs only a
     * little precision of the eviction order.
     */
    static final class ReadBuffer {
        private static final int STRIPES = 4;
        private static final int SLOTS = 16;
        /** Longs per stripe: tail, head, padding, then the slots, so stripes do not share cache lines. */
        private static final int STRIDE = 32;
        /**
         * Unused longs before the first stripe: a cache line that keeps stripe 0's tail and head off the
         * line of the array's header, which every recorder reads (the length, for the bounds check).
         * (The last stripe ends in its own unused slots.)
         */
        private static final int LEAD = 8;
        static final int BYTES = (LEAD + STRIPES * STRIDE) * Long.BYTES + 16 + STRIPES * SLOTS * Long.BYTES + 16;
        private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
        private final long[] ring = new long[LEAD + STRIPES * STRIDE];
        /** The records of one drain, used only under the policy lock. */
        private final long[] batch = new long[STRIPES * SLOTS];

        /** Records a read made without a lock; a full stripe is replayed at once if the policy lock is free. */
        void record(int entry, int epoch, Shard shard) {
            if (!offer(entry, epoch)) {
                shard.tryReplay();
            }
        }

        /**
         * Records a read in the calling thread's stripe unless the stripe is full. A reader under the read
         * lock does only this, and calls {@link Shard#replayReadsIfFull} after releasing the lock, so that
         * the lock, which writers wait for, is not held through a replay.
         *
         * @return false if the stripe was full and the read was dropped
         */
        boolean offer(int entry, int epoch) {
            int base = stripeBase();
            long tail = (long) LONGS.getOpaque(ring, base);
            long head = (long) LONGS.getOpaque(ring, base + 1);
            if (tail - head >= SLOTS) {
                return false;
            }
            LONGS.setOpaque(ring, base + 8 + (int) (tail & (SLOTS - 1)), ((long) epoch << 32) | (entry & 0xFFFFFFFFL));
            LONGS.setRelease(ring, base, tail + 1);
            return true;
        }

        /** @return whether the calling thread's stripe has no free slot */
        boolean full() {
            int base = stripeBase();
            return (long) LONGS.getOpaque(ring, base) - (long) LONGS.getOpaque(ring, base + 1) >= SLOTS;
        }

        private static int stripeBase() {
            return LEAD + (int) ((Thread.currentThread().threadId() * 0x9E3779B97F4A7C15L) >>> 62) * STRIDE;
        }

        void drain(Shard shard) {
            int n = 0;
            for (int stripe = 0; stripe < STRIPES; stripe++) {
                int base = LEAD + stripe * STRIDE;
                long tail = (long) LONGS.getAcquire(ring, base);
                long head = (long) LONGS.getOpaque(ring, base + 1);
                if (tail - head > SLOTS) {
                    head = tail - SLOTS;
                }
                for (; head < tail; head++) {
                    batch[n++] = (long) LONGS.getOpaque(ring, base + 8 + (int) (head & (SLOTS - 1)));
                }
                LONGS.setOpaque(ring, base + 1, tail);
            }
            shard.replayReadsLocked(batch, n);
        }

        void clear() {
            for (int stripe = 0; stripe < STRIPES; stripe++) {
                int base = LEAD + stripe * STRIDE;
                LONGS.setOpaque(ring, base + 1, (long) LONGS.getAcquire(ring, base));
            }
        }
    }
}
