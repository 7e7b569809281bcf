package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.internal.WeakSchedule;
import dev.offheap.memory.internal.PlatformMBeans;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.management.ObjectName;

/**
 * A general-purpose pooled {@link Allocator}: any size, freed in any order from any thread, with a
 * fast path that touches only the calling thread's own cache.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>One address range.</b> The allocator reserves {@linkplain Builder#capacity(long) capacity}
 *       bytes of address space at build time (inaccessible, costing no memory) and makes it usable 64
 *       KiB unit by unit. Every segment it hands out is a slice of one segment over that range, in the
 *       allocator's shared scope: creating one costs an object, not a scope, and {@link #close()}
 *       closes the scope once, which makes every segment inaccessible. Freeing finds a block's span
 *       from its address with a subtraction, a shift and two array loads; an address outside the range
 *       is foreign, found with one comparison.</li>
 *   <li><b>Size classes</b> (16 bytes to 64 KiB, at most 25% rounding) are carved from spans of units;
 *       larger requests get a run of whole units. Alignments up to 64 KiB come from a class that is a
 *       multiple of the alignment; larger ones from an over-sized run.</li>
 *   <li><b>Per-thread caches.</b> Each thread keeps a stack of free blocks per class. Allocation pops,
 *       free pushes onto the <em>freeing</em> thread's cache (as tcmalloc does), and only when a cache is
 *       empty or full does a batch move to or from the class's central pool under its lock: no atomic
 *       instruction on the fast path. Caches are found by thread id in a small table. The caches of
 *       threads that ended (platform or virtual) are swept back into the central pools every 64 new
 *       caches, on {@link #trim()}, when idle, and before a budget or the address range refuses, so many
 *       short-lived threads do not leak memory.</li>
 *   <li><b>Giving memory back.</b> A span whose blocks are all free returns to the range; free units
 *       are given back to the system ({@code madvise(MADV_DONTNEED)}) by {@link #trim()}, when the
 *       allocator has been idle for {@linkplain Builder#idleRelease(Duration) a while}, and when a budget
 *       would otherwise refuse; so are the 4 KiB pages of partly used spans that only free blocks
 *       overlap. The pool shrinks. Units are never unmapped before close, so a stale
 *       segment can read old or zero bytes but never fault the JVM.</li>
 *   <li><b>Zeroing.</b> {@link #allocate} zeroes (skipped for large runs the system just handed out
 *       zeroed); {@link #allocateUninitialized} and the {@code allocateFrom} family do not.</li>
 *   <li><b>Budget.</b> A budget is charged per 64 KiB unit of {@link #footprintBytes()}, not per
 *       allocation: the first allocation of a fresh span charges 64 KiB or more, later ones in it
 *       nothing, and the charge goes back when units are given back to the system. The budget
 *       therefore limits the memory really held, which may exceed {@link #allocatedBytes()} by the
 *       free blocks in caches and spans.</li>
 *   <li><b>MemoryManager.</b> With {@linkplain Builder#memoryManager(MemoryManager) a manager} of native
 *       or mapped pages, requests above 64 KiB that fit in one of its pages are served by a page
 *       (accounted by the manager, with the page's scope and access mode); larger ones still come from
 *       the range.</li>
 * </ul>
 *
 * <h2>Safety</h2>
 * Foreign segments, slices that do not start a block, and segments larger than their block are
 * refused with {@link IllegalArgumentException}. In every mode a double free is refused with
 * {@link IllegalStateException} naming the segment: every block has a state byte, set when the
 * block is handed out and cleared by {@code free} with a compare-and-set, so a block freed
 * twice (one after the other, or by two threads at once) is never cached twice nor handed to two
 * users. What cannot be told apart outside {@link DebugMode#FULL} (where the segment's own scope, closed
 * by its first free, tells it) is a stale segment freed after its block was handed out again: that frees
 * the new allocation; nor, for an untracked block of 64 KiB or less, a shorter slice (of at least one
 * byte) that starts at the block and lies in the same size class: it frees the block, and
 * {@link #allocatedBytes()} keeps the difference. Tracked allocations and larger ones know their size
 * and refuse such a slice with {@link IllegalArgumentException}, the allocation staying live. A request
 * for 0 bytes takes no block: it gets the allocator's empty segment (see {@link Allocator}), and every
 * other zero-length segment is refused, so a zero-length slice at a block's end, which is where the next
 * block starts, never frees that block.
 * {@link DebugMode#SAMPLED} tracks 1 allocation in N from separate spans, with exact double-free
 * detection and stack traces for those; {@link DebugMode#FULL} tracks every allocation, and each
 * segment has a scope of its own that {@link #free} closes, so a use after free throws.
 *
 * <h2>Threading</h2>
 * All methods are thread-safe. Segments are accessible from every thread, but for a block in a page of a
 * {@link dev.offheap.memory.PageAccess#CONFINED} {@linkplain Builder#memoryManager memory manager}: it has the
 * page's scope, so only the allocating thread may access it (others get {@link WrongThreadException}), while
 * any thread may still free it. {@link #trim()} returns the
 * calling thread's cache and those of ended threads; the caches of other live threads (at most 128
 * KiB per size class each, but at least 8 blocks: up to 512 KiB in the 64 KiB class) stay with them
 * until they overflow, or until those threads end.
 */
public final class PooledAllocator implements Allocator {
    /** Address space reserved when no capacity is configured: 16 GiB. */
    public static final long DEFAULT_CAPACITY = 16L << 30;
    /**
     * In {@link DebugMode#OFF}, how many small allocations a thread makes from its cache between two
     * passes through the slow path, which then only resets the count (see {@link #countdownStart()}).
     * Allocate + touch + free (JMH, one thread, two alternating rounds of 2 forks) went from 20.9-22.3,
     * 23.8-26.0, 26.2-27.3 and 24.9-26.0 ns at 16 B, 256 B, 4 KiB and 64 KiB with a countdown that never
     * ran out to 19.7-21.8, 19.8-20.9, 19.4-20.8 and 18.2-21.4 ns; zeroed allocation and two threads
     * gained alike. A slow pass (a call, the reset, a bump of the idle releaser's activity counter) comes
     * once per 4,096 allocations; the bump also means a thread that allocates only from its cache no longer
     * looks idle to the releaser, as it did when only the slow paths of refills and large blocks counted.
     */
    private static final int OFF_SLOW_PATH_INTERVAL = 4096;
    /** Idle time after which cached memory is given back when none is configured: 10 seconds. */
    public static final Duration DEFAULT_IDLE_RELEASE = Duration.ofSeconds(10);

    private static final System.Logger LOG = System.getLogger(PooledAllocator.class.getName());
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final int CACHE_TABLE_SIZE = 256;
    private static final int SWEEP_EVERY_NEW_CACHES = 64;
    /** Alignments 1, 2, 4, 8 and 16 as bits of a mask, to test the fast path's alignment with a shift. */
    private static final long FAST_ALIGNMENTS = (1L << 1) | (1L << 2) | (1L << 4) | (1L << 8) | (1L << 16);

    private final String name;
    private final Budget budget;
    private final DebugMode debug;
    private final int sampleRate;
    private final AllocationTracker tracker;
    private final MemoryManager memoryManager;
    private final ManagerOwner managerOwner;
    /** Makes the scope of its own that every FULL-mode allocation gets; {@link Arena#ofShared()} but in tests. */
    private final Supplier<Arena> ownScopes;
    private final UnitRange range;
    /** The range's {@linkplain UnitRange#statesTable() unit table of states}, held here to save the fast paths a load. */
    private final byte[][] unitStates;
    private final long base;
    private final long capacity;
    private final Arena arena = Arena.ofShared();
    /** The whole range as one segment; every block is a slice of it. */
    private final MemorySegment region;
    /** What 0-byte requests get: no block (see {@link Checks#emptySegment}). */
    private final MemorySegment empty;
    private final SizeClassPool[] pools = new SizeClassPool[SizeClasses.COUNT];

    private final ThreadCache[] cacheTable = new ThreadCache[CACHE_TABLE_SIZE];
    private final ThreadLocal<ThreadCache> localCache = new ThreadLocal<>();
    private final Object registryLock = new Object();
    private final List<ThreadCache> caches = new ArrayList<>();
    private long cachesCreated;
    /** Counters of swept caches. Guarded by registryLock. */
    private long sweptAllocatedBytes;
    private long sweptLiveAllocations;

    /** Allocations outside the thread caches: large, tracked, manager pages. */
    private final AtomicLong slowAllocatedBytes = new AtomicLong();
    private final AtomicLong slowLiveAllocations = new AtomicLong();
    private final ConcurrentHashMap<Long, ManagerBlock> managerBlocks = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<MemorySegment> deferredPages = new ConcurrentLinkedQueue<>();
    private final AtomicLong managerBytes = new AtomicLong();

    private final Object closeLock = new Object();
    private volatile boolean closed;
    private volatile AllocationReport closingReport;
    /** What {@link #close()} found before it began, kept for a close that a held scope interrupted. Guarded by closeLock. */
    private AllocationReport reportBeforeClose;
    /** Changes on every slow-path operation; the idle releaser compares it between ticks. */
    private volatile long activity;
    private long activityAtLastTick = -1;
    private final ScheduledFuture<?> idleTask;
    /** Where the management view is registered; null if it is not. */
    private final ObjectName mbeanName;

    private record ManagerBlock(MemorySegment page, long size) {
    }

    /** The owner of this allocator's pages in a MemoryManager; identity, with a readable name. */
    private static final class ManagerOwner {
        private final String name;

        ManagerOwner(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return "pooled allocator '" + name + "'";
        }
    }

    private PooledAllocator(Builder b) {
        this.name = b.name != null ? b.name : "pooled-" + NAMES.incrementAndGet();
        this.budget = b.budget;
        this.debug = b.debug;
        this.sampleRate = debug == DebugMode.FULL ? 1 : b.sampleRate;
        this.tracker = new AllocationTracker(name, debug, arena.scope());
        this.memoryManager = b.memoryManager;
        this.managerOwner = new ManagerOwner(name);
        this.ownScopes = b.ownScopes;
        this.range = new UnitRange(b.capacity, budget, name);
        this.unitStates = range.statesTable();
        this.base = range.base;
        this.capacity = b.capacity;
        this.region = reinterpretRange(range.base, b.capacity, arena);
        this.empty = Checks.emptySegment(arena);
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            pools[c] = new SizeClassPool(c, range);
        }
        this.idleTask = b.idleRelease.isZero() ? null : IdleReleaser.schedule(this, b.idleRelease);
        this.mbeanName = b.registerMBean ? AllocatorView.register(name, "pooled", debug, budget, capacity,
                new AllocatorView.Readings(this::allocatedBytes, this::liveAllocations, this::footprintBytes,
                        this::threadCacheCount, tracker::problemsSeen, () -> report().toString())) : null;
    }

    // reinterpret is restricted: the range was just reserved with exactly this size, and units are
    // made accessible before any block in them is handed out.
    @SuppressWarnings("restricted")
    private static MemorySegment reinterpretRange(long address, long size, Arena arena) {
        return MemorySegment.ofAddress(address).reinterpret(size, arena, null);
    }

    /**
     * @return a pooled allocator with the defaults: no budget, no memory manager, the default debug
     * mode, {@link #DEFAULT_CAPACITY} and {@link #DEFAULT_IDLE_RELEASE}
     * @throws IllegalArgumentException if the debug system properties are malformed
     * @throws OutOfMemoryError         if the address range cannot be reserved
     */
    public static PooledAllocator create() {
        return builder().build();
    }

    /**
     * @return a builder with the defaults of {@link #create()}
     * @throws IllegalArgumentException if the debug system properties are malformed
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the name used in messages and reports */
    public String name() {
        return name;
    }

    /** @return the debug mode */
    public DebugMode debugMode() {
        return debug;
    }

    /** @return the bytes of address space reserved, the most {@link #footprintBytes()} can reach (pages of a memory manager aside) */
    public long capacity() {
        return capacity;
    }

    // =================================================================== allocation

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        if (Long.compareUnsigned(byteSize - 1, SizeClasses.MAX_SMALL) < 0 && Long.compareUnsigned(byteAlignment, 16) <= 0
                && ((FAST_ALIGNMENTS >>> byteAlignment) & 1) != 0 && debug != DebugMode.FULL) {
            return Zeroing.zero(region.asSlice(smallBlock(byteSize) - base, byteSize));
        }
        return allocateSlow(byteSize, byteAlignment, true);
    }

    @Override
    public MemorySegment allocateUninitialized(long byteSize, long byteAlignment) {
        if (Long.compareUnsigned(byteSize - 1, SizeClasses.MAX_SMALL) < 0 && Long.compareUnsigned(byteAlignment, 16) <= 0
                && ((FAST_ALIGNMENTS >>> byteAlignment) & 1) != 0 && debug != DebugMode.FULL) {
            return region.asSlice(smallBlock(byteSize) - base, byteSize);
        }
        return allocateSlow(byteSize, byteAlignment, false);
    }

    /**
     * The address of a block for a small allocation at an alignment its size class gives, in
     * {@link DebugMode#OFF} and {@link DebugMode#SAMPLED}: from the calling thread's cache, or by the slow
     * path (refill, sample, budget). Both give an address, never a segment, so that the caller makes the
     * segment at one place: when the slow path returned a segment of its own, the two segments merged
     * where the caller returned, and C2 could no longer scalar-replace the fast path's. In SAMPLED mode,
     * whose slow path runs once per sample, that cost an object per allocation (40 bytes; 30 against 19
     * ns for plain pooled in the committed shootout before this).
     */
    private long smallBlock(long byteSize) {
        ThreadCache tc = cache();
        int c = SizeClasses.of(byteSize);
        int n = tc.counts[ThreadCache.COUNT_OFFSET + c] - 1;
        // the countdown first: an allocation that finds its bin empty counts too (SAMPLED's 1 in N)
        if (--tc.sampleCountdown > 0 && n >= 0 && !closed) {
            long address = tc.blocks[c][n];
            tc.counts[ThreadCache.COUNT_OFFSET + c] = n;
            tc.allocatedBytes += byteSize;
            tc.liveAllocations++;
            markLive(address, c);
            return address;
        }
        return smallBlockSlow(tc, c, byteSize);
    }

    private long smallBlockSlow(ThreadCache tc, int c, long byteSize) {
        if (closed) {
            throw Checks.closed(name);
        }
        try {
            return smallBlockOnce(tc, c, byteSize, true);
        } catch (BudgetExceededException e) {
            trimBeforeRetry(e);
            return smallBlockOnce(tc, c, byteSize, true);
        } catch (OutOfMemoryError e) {
            // the range (or the system) refused a span: the blocks that ended threads cached fill the range
            // until a sweep takes them back, and sweeps come only every 64 new caches, so a thread per request
            // that took a batch and ended left its batch behind, and a small range was refused while all of it
            // was free; trim takes them back, and the request tries once more
            trim();
            return smallBlockOnce(tc, c, byteSize, true);
        }
    }

    /**
     * After a budget refused an allocation: gives back what this allocator holds free (cached by
     * threads, empty spans), which counts against the same budget, so that the caller can try once more.
     *
     * @throws BudgetExceededException {@code refusal}, when the allocator has no budget of its own to give back to
     */
    private void trimBeforeRetry(BudgetExceededException refusal) {
        if (budget == null) {
            throw refusal;
        }
        trim();
    }

    private MemorySegment allocateSlow(long byteSize, long byteAlignment, boolean zero) {
        Checks.sizeAndAlignment(byteSize, byteAlignment);
        if (closed) {
            throw Checks.closed(name);
        }
        if (byteSize == 0) {
            return empty;
        }
        try {
            return allocateSlowOnce(byteSize, byteAlignment, zero);
        } catch (BudgetExceededException e) {
            trimBeforeRetry(e);
            return allocateSlowOnce(byteSize, byteAlignment, zero);
        } catch (OutOfMemoryError e) {
            trim(); // the range refused: as in smallBlockSlow
            return allocateSlowOnce(byteSize, byteAlignment, zero);
        }
    }

    private MemorySegment allocateSlowOnce(long byteSize, long byteAlignment, boolean zero) {
        if (byteSize > SizeClasses.MAX_SMALL || byteAlignment > SizeClasses.MAX_SMALL) {
            activity++;
            return allocateLarge(byteSize, byteAlignment, zero);
        }
        int c = SizeClasses.of(byteSize, byteAlignment);
        if (debug == DebugMode.FULL) {
            activity++;
            return allocateTracked(c, byteSize, zero);
        }
        MemorySegment segment = region.asSlice(smallBlockOnce(cache(), c, byteSize, false) - base, byteSize);
        return zero ? Zeroing.zero(segment) : segment;
    }

    /**
     * A small block's address past the fast path (OFF and SAMPLED): a tracked block when the thread's
     * sample countdown has run out in SAMPLED mode, else one from the thread's cache, refilled from the
     * central pool when empty. A sample that the budget or the range refuses goes untracked.
     *
     * @param counted whether the fast path has counted this allocation down already
     */
    private long smallBlockOnce(ThreadCache tc, int c, long byteSize, boolean counted) {
        activity++;
        if (!counted) {
            tc.sampleCountdown--;
        }
        if (tc.sampleCountdown <= 0) {
            tc.sampleCountdown = countdownStart();
            if (debug == DebugMode.SAMPLED) {
                try {
                    return trackedBlock(c, byteSize, null);
                } catch (BudgetExceededException | OutOfMemoryError refused) {
                    // a sample comes from spans of its own, and a new one takes up to 8 units: refused, the
                    // allocation is served as OFF serves it, from the blocks there are (failing it, the debug
                    // mode meant for production refused, now and then, what the allocator had room for)
                }
            }
        }
        long[] bin = tc.bin(c);
        if (tc.counts[ThreadCache.COUNT_OFFSET + c] == 0) {
            tc.counts[ThreadCache.COUNT_OFFSET + c] = pools[c].fetch(bin, bin.length / 2);
        }
        int n = --tc.counts[ThreadCache.COUNT_OFFSET + c];
        long address = bin[n];
        tc.allocatedBytes += byteSize;
        tc.liveAllocations++;
        markLive(address, c);
        return address;
    }

    /** Marks a block of class {@code c} of an untracked small span, just taken from the calling thread's cache, live. */
    private void markLive(long address, int c) {
        long offset = address - base;
        UnitStates.markLive(statesAt(offset), c, offset & (UnitRange.UNIT_BYTES - 1));
    }

    /** @return the {@link UnitStates} of the unit {@code offset} bytes into the range (0 to capacity), or null */
    private byte[] statesAt(long offset) {
        return unitStates[(int) (offset >>> UnitRange.UNIT_SHIFT)];
    }

    /**
     * Allocations until the next tracked one. SAMPLED draws it uniformly from [N/2, 3N/2] (mean N):
     * a fixed interval would resonate with a program that allocates in a fixed pattern and sample
     * the same call site every time, or never. Only the slow path draws; the fast path decrements.
     *
     * <p>OFF tracks nothing, yet counts down too, from {@link #OFF_SLOW_PATH_INTERVAL}: with a countdown
     * that never ran out, the fast path's branch to {@link #smallBlockSlow} was never taken, C2 compiled it
     * as an uncommon trap, and the fast path came out slower than SAMPLED's, which calls the slow path
     * now and then (see docs/alloc.md).
     */
    private int countdownStart() {
        if (debug != DebugMode.SAMPLED) {
            return debug == DebugMode.OFF ? OFF_SLOW_PATH_INTERVAL : sampleRate;
        }
        long half = sampleRate / 2;
        // capped: above about 1.4e9, 3N/2 overflowed an int into a negative countdown, which sampled the next allocation
        return Math.clamp(sampleRate - half + ThreadLocalRandom.current().nextLong(2 * half + 1), 1, Integer.MAX_VALUE);
    }

    // reinterpret is restricted: the block has at least byteSize bytes and lives until freed, when its own scope closes.
    @SuppressWarnings("restricted")
    private MemorySegment allocateTracked(int sizeClass, long byteSize, boolean zero) {
        Arena own = ownScopes.get();
        long address;
        try {
            address = trackedBlock(sizeClass, byteSize, own);
        } catch (RuntimeException | Error refused) {
            // a budget, the range or a close refused the block: no segment of the scope exists, so nothing holds it
            own.close();
            throw refused;
        }
        MemorySegment segment = MemorySegment.ofAddress(address).reinterpret(byteSize, own, null);
        return zero ? Zeroing.zero(segment) : segment;
    }

    /** Takes a block from its class's tracked spans and records it (with {@code own}, FULL mode's scope of it). */
    private long trackedBlock(int sizeClass, long byteSize, Arena own) {
        long address = pools[sizeClass].fetchTracked();
        track(address, byteSize, own);
        slowAllocatedBytes.addAndGet(byteSize);
        slowLiveAllocations.incrementAndGet();
        return address;
    }

    /**
     * Records a tracked allocation, or refuses it if the allocator is closed. Under the close lock, so
     * that {@link #close()} either finds the record and closes the allocation's own scope before the
     * memory goes back to the system, or closes first and this refuses: a FULL-mode allocation that
     * raced close must never hand out a live segment over unmapped memory.
     *
     * @throws IllegalStateException if the allocator is closed
     */
    private void track(long address, long byteSize, Arena own) {
        track(address, byteSize, own, own == null ? null : own.scope());
    }

    /** {@link #track(long, long, Arena)} of a segment of {@code scope} (see {@link AllocationTracker#track(long, long, Arena, MemorySegment.Scope)}). */
    private void track(long address, long byteSize, Arena own, MemorySegment.Scope scope) {
        synchronized (closeLock) {
            if (closed) {
                throw Checks.closed(name);
            }
            tracker.track(address, byteSize, own, scope);
        }
    }

    /**
     * Forgets a tracked allocation being freed and closes its own scope (FULL mode), under the close
     * lock: {@link #close()} closes the scopes of the records it finds, so the record and the scope must
     * go together, or one of the two would close a scope the other already closed.
     *
     * @return the record, or null if the allocator is closed or {@code address} is no live tracked allocation
     * @throws IllegalStateException if the allocation's own scope is in use (by a downcall): it cannot close,
     *                               and the allocation stays live and recorded
     */
    private AllocationTracker.Tracked untrack(long address) {
        synchronized (closeLock) {
            if (closed) {
                return null;
            }
            // the scope before the record: a scope that a downcall holds cannot close (Arena.close throws),
            // and a record already gone then left the allocation neither live nor ever freed
            AllocationTracker.Tracked live = tracker.liveAt(address);
            if (live != null && live.arena() != null && live.arena().scope().isAlive()) {
                try {
                    live.arena().close();
                } catch (IllegalStateException e) {
                    throw Checks.freeWhileInUse(name, "0x" + Long.toHexString(address) + " (" + live.size() + " bytes)", e);
                }
            }
            return tracker.untrack(address);
        }
    }

    /**
     * {@link #untrack} for a free through a segment of {@code size} bytes: a segment of another size (a
     * slice that starts where the allocation starts) is refused and the allocation stays live. The look
     * and the removal are one step, as every record comes and goes under the close lock.
     *
     * @param scope FULL mode: the freed segment's scope, else null
     * @throws IllegalArgumentException if the live tracked allocation at {@code address} has another size
     * @throws IllegalStateException    FULL mode: if {@code scope} is closed and is not the live allocation's
     *                                  own (a stale segment; the allocation stays live)
     */
    private AllocationTracker.Tracked untrackOfSize(long address, long size, MemorySegment.Scope scope) {
        synchronized (closeLock) {
            long liveSize = tracker.liveSize(address);
            if (liveSize >= 0 && liveSize != size && !closed) {
                throw sliceOf(address, size, liveSize);
            }
            if (scope != null && !closed) {
                refuseStale(tracker.liveAt(address), address, size, scope);
            }
            return untrack(address);
        }
    }

    /**
     * FULL mode: refuses to free {@code live} through a segment whose scope is closed and is not
     * {@code live}'s own. {@link #free} looks at the segment's scope first, but a second free of the
     * same segment may look while the first is still running; by the time it takes the record, the
     * first has closed the scope and another thread may have allocated the block again. The look at
     * the record must therefore be repeated where the record is taken.
     *
     * @throws IllegalStateException if the segment is a stale one of an earlier allocation at {@code address}
     */
    private void refuseStale(AllocationTracker.Tracked live, long address, long size, MemorySegment.Scope scope) {
        if (live != null && live.arena() != null && Checks.isStale(scope, live.arena().scope())) {
            throw tracker.staleFree(address, size, scope);
        }
    }

    // reinterpret is restricted: the run has at least byteSize bytes past the aligned address.
    @SuppressWarnings("restricted")
    private MemorySegment allocateLarge(long byteSize, long byteAlignment, boolean zero) {
        if (memoryManager != null && byteSize <= memoryManager.pageSize()) {
            MemorySegment fromPage = allocateFromManager(byteSize, byteAlignment, zero);
            if (fromPage != null) {
                return fromPage;
            }
        }
        long extra = Math.max(0, byteAlignment - UnitRange.UNIT_BYTES);
        long bytes = Math.max(1, byteSize) + extra;
        if (bytes < 0 || bytes > capacity) {
            throw new OutOfMemoryError("pooled allocator '" + name + "' cannot allocate " + byteSize + " bytes aligned to "
                    + byteAlignment + ": more than its capacity of " + capacity + " bytes");
        }
        int units = (int) ((bytes + UnitRange.UNIT_BYTES - 1) >>> UnitRange.UNIT_SHIFT);
        UnitRange.Allocation allocation = range.allocate(units, -1, false);
        Span span = allocation.span();
        long address = (span.base + byteAlignment - 1) & -byteAlignment;
        boolean track = debug.tracksNext(sampleRate);
        Arena own = track && debug == DebugMode.FULL ? ownScopes.get() : null;
        range.markLarge(span, address, byteSize, own);
        if (track) {
            try {
                track(address, byteSize, own);
            } catch (IllegalStateException closedMeanwhile) {
                // no segment of the scope exists; the units go back with the range when the close finishes
                if (own != null) {
                    own.close();
                }
                throw closedMeanwhile;
            }
        }
        slowAllocatedBytes.addAndGet(byteSize);
        slowLiveAllocations.incrementAndGet();
        MemorySegment segment = own != null ? MemorySegment.ofAddress(address).reinterpret(byteSize, own, null)
                : region.asSlice(address - base, byteSize);
        return zero && !allocation.zeroed() ? Zeroing.zero(segment) : segment;
    }

    private MemorySegment allocateFromManager(long byteSize, long byteAlignment, boolean zero) {
        releaseDeferredPages();
        MemorySegment page = memoryManager.allocatePage(managerOwner);
        if ((page.address() & (byteAlignment - 1)) != 0) {
            memoryManager.release(page);
            return null;
        }
        MemorySegment segment = page.asSlice(0, byteSize);
        boolean tracked = debug.tracksNext(sampleRate);
        // under the close lock: close() either finds the block and releases its page with the others, or
        // has closed first and the page goes back here (a page recorded after close's releaseAll stayed
        // held for good, and its segment live)
        synchronized (closeLock) {
            if (closed) {
                memoryManager.release(page);
                // and the owner's record, which this allocation made again after close's releaseAll
                memoryManager.releaseAll(managerOwner);
                throw Checks.closed(name);
            }
            if (tracked) {
                // no scope of its own: the page's, which the manager revokes when the block is freed, already
                // makes every use after the free throw; recorded, so that a stale segment's second free names both
                // stack traces once the page is leased again
                track(page.address(), byteSize, null, page.scope());
            }
            managerBlocks.put(page.address(), new ManagerBlock(page, byteSize));
        }
        managerBytes.addAndGet(page.byteSize());
        slowAllocatedBytes.addAndGet(byteSize);
        slowLiveAllocations.incrementAndGet();
        return zero ? Zeroing.zero(segment) : segment;
    }

    // =================================================================== free

    @Override
    public void free(MemorySegment segment) {
        long address = Objects.requireNonNull(segment, "segment").address();
        if (segment.byteSize() == 0) {
            // the empty segment, or a slice: one at a block's end starts the next block, and freed it
            freeZeroLength(segment);
            return;
        }
        if (debug == DebugMode.FULL && !segment.scope().isAlive()) {
            // FULL mode gives every allocation a scope of its own that free closes: a segment whose scope is
            // closed was freed before, even where a later allocation starts at its address now, which the
            // address alone would free instead
            freeStale(address, segment.byteSize(), segment.scope());
        }
        long offset = address - base;
        if (Long.compareUnsigned(offset, capacity) < 0 && segment.isNative()) {
            // A small block is freed from its unit's states alone (UnitStates): start and liveness
            // in one table load and a CAS, no span. Anything else takes the slow path.
            byte[] states = statesAt(offset);
            long size = segment.byteSize();
            if (states == UnitStates.TRACKED) {
                // primitives only: a call that took the segment would let it escape, and C2 would
                // then allocate it on every allocation of a program that frees a sampled block
                freeTracked(address, size, debug == DebugMode.FULL ? segment.scope() : null);
                return;
            }
            if (states != null && size <= SizeClasses.MAX_SMALL) {
                // the class the size implies; the state byte names the block's class, so a block of
                // another class (an aligned allocation, a shorter slice) fails the CAS and goes slow
                int c = SizeClasses.of(size);
                long inUnit = offset & (UnitRange.UNIT_BYTES - 1);
                if (UnitStates.startAligned(c, inUnit) && UnitStates.clearLive(states, c, inUnit)) {
                    ThreadCache tc = cache();
                    long[] bin = tc.blocks[c];
                    int n = tc.counts[ThreadCache.COUNT_OFFSET + c];
                    if (bin != null && n < bin.length) {
                        bin[n] = address;
                        tc.counts[ThreadCache.COUNT_OFFSET + c] = n + 1;
                        tc.allocatedBytes -= size;
                        tc.liveAllocations--;
                        return;
                    }
                    freeToCache(tc, c, address, size);
                    return;
                }
            }
        }
        freeSlow(segment);
    }

    /**
     * The free of a zero-length segment: nothing for the allocator's {@linkplain Checks#emptySegment empty
     * segment}, and after close; refused for any other.
     *
     * @throws IllegalArgumentException if {@code segment} is not the empty segment and the allocator is open
     */
    private void freeZeroLength(MemorySegment segment) {
        if (!closed) {
            Checks.freeZeroLength(name, segment, arena.scope(), tracker);
        }
    }

    /**
     * Refuses the free of a stale segment (FULL mode, its scope closed) whose address a live tracked
     * allocation starts at now; anything else at that address is left to the usual checks.
     *
     * @throws IllegalStateException if a live tracked allocation starts at {@code address}
     */
    private void freeStale(long address, long size, MemorySegment.Scope scope) {
        if (!closed && tracker.isTracked(address)) {
            throw tracker.staleFree(address, size, scope);
        }
    }

    private void freeSlow(MemorySegment segment) {
        if (closed) {
            return;
        }
        try {
            freeSlowWhileOpen(segment);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // close() may have run since the check above and taken the allocation's records with it:
            // a free that races close is ignored, as every free after close is
            if (!closed) {
                throw e;
            }
        }
    }

    private void freeSlowWhileOpen(MemorySegment segment) {
        activity++;
        long address = segment.address();
        long offset = address - base;
        if (!segment.isNative() || Long.compareUnsigned(offset, capacity) >= 0) {
            if (memoryManager != null && segment.isNative()) {
                ManagerBlock block = managerBlocks.get(address);
                if (block != null && block.size() != segment.byteSize()) {
                    throw sliceOf(address, segment.byteSize(), block.size());
                }
                if (block != null && debug == DebugMode.FULL && Checks.isStale(segment.scope(), block.page().scope())) {
                    // a segment of a page released by its first free, which closed the page's scope after free()
                    // looked at it; the manager has leased the page to a later allocation since (see refuseStale)
                    throw tracker.staleFree(address, segment.byteSize(), segment.scope());
                }
                // remove(key, value): of two threads freeing the block at once, one frees it
                if (block != null && managerBlocks.remove(address, block)) {
                    // the record goes before the page: the manager may hand it out again at once
                    if (debug != DebugMode.OFF && tracker.isTracked(address)) {
                        untrack(address);
                    }
                    freeManagerBlock(block);
                    return;
                }
            }
            if (debug != DebugMode.OFF) {
                // a block of a page freed before is a double free, reported with both stack traces
                throw tracker.badFree(address, segment.byteSize(), segment.scope(), "it lies outside this allocator's memory");
            }
            throw notAllocatedHere(segment, "it lies outside this allocator's memory");
        }
        Span span = range.spanAt(offset);
        if (span == null) {
            throw notLive(segment, "no allocation of this allocator is there now");
        }
        if (span.sizeClass < 0) {
            Span.LargeRelease released = range.endLarge(span, address, segment.byteSize(), segment.scope());
            if (released == null) {
                if (range.insideLarge(span, address)) {
                    if (!segment.scope().isAlive()) {
                        // not a slice: a slice of the live allocation has its scope, which is alive. A stale segment
                        // (FULL mode: its scope of its own, closed by its first free) whose units a later, larger
                        // allocation took since, starting below it
                        throw tracker.staleFree(address, segment.byteSize(), segment.scope(), span.blockAddress);
                    }
                    // before the debug records: one of an earlier allocation here would call this a second free
                    throw notAllocatedHere(segment, "it starts inside a live allocation (a slice of it?)");
                }
                throw notLive(segment, "it does not start a live allocation");
            }
            if (!released.released()) {
                throw sliceOf(address, segment.byteSize(), released.size());
            }
            // the debug record and the scope end before the units can be reused by another allocation
            if (released.ownScope() != null || tracker.isTracked(address)) {
                try {
                    untrack(address);
                } catch (IllegalStateException inUse) {
                    // its scope is held: the allocation stays live, as endLarge found it
                    range.markLarge(span, address, released.size(), released.ownScope());
                    throw inUse;
                }
            }
            range.free(span);
            slowAllocatedBytes.addAndGet(-released.size());
            slowLiveAllocations.decrementAndGet();
            return;
        }
        int index = span.blockIndex(address - span.base);
        if (index < 0) {
            throw notAllocatedHere(segment, "it does not start a block (a slice of an allocation?)");
        }
        if (segment.byteSize() > span.blockSize) {
            throw notAllocatedHere(segment, "it is larger than its block of " + span.blockSize + " bytes");
        }
        if (span.tracked) {
            freeTrackedWhileOpen(span, index, address, segment.byteSize(), debug == DebugMode.FULL ? segment.scope() : null);
            return;
        }
        byte[] states = statesAt(offset);
        if (states == null || states == UnitStates.TRACKED
                || !UnitStates.clearLive(states, span.sizeClass, offset & (UnitRange.UNIT_BYTES - 1))) {
            doubleFree(segment);
            return;
        }
        freeToCache(cache(), span.sizeClass, address, segment.byteSize());
    }

    /**
     * Frees a small block of a tracked span (a sampled or FULL-mode allocation); ignored after close, as
     * every free. An address that starts no block of the span, or a size larger than its blocks, is refused
     * as the slow path refuses it.
     *
     * @param scope FULL mode: the freed segment's scope (see {@link #refuseStale}), else null
     */
    private void freeTracked(long address, long size, MemorySegment.Scope scope) {
        if (closed) {
            return;
        }
        try {
            activity++;
            Span span = range.spanAt(address - base);
            int index = span == null || span.sizeClass < 0 ? -1 : span.blockIndex(address - span.base);
            if (index < 0) {
                throw tracker.badFree(address, size, "it does not start a block (a slice of an allocation?)");
            }
            if (size > span.blockSize) {
                throw tracker.badFree(address, size, "it is larger than its block of " + span.blockSize + " bytes");
            }
            freeTrackedWhileOpen(span, index, address, size, scope);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // as in freeSlow: close() may have taken the allocation's record since the check above
            if (!closed) {
                throw e;
            }
        }
    }

    private void freeTrackedWhileOpen(Span span, int index, long address, long size, MemorySegment.Scope scope) {
        AllocationTracker.Tracked t = untrackOfSize(address, size, scope);
        if (t == null) {
            throw tracker.badFree(address, size, "or it was already freed");
        }
        pools[span.sizeClass].giveBackTracked(span, index);
        slowAllocatedBytes.addAndGet(-t.size());
        slowLiveAllocations.decrementAndGet();
    }

    /** Puts a block just marked free on the calling thread's cache, sending half of a full bin to the central pool. */
    private void freeToCache(ThreadCache tc, int c, long address, long size) {
        long[] bin = tc.bin(c);
        int n = tc.counts[ThreadCache.COUNT_OFFSET + c];
        if (n == bin.length) {
            int half = bin.length / 2;
            pools[c].giveBack(bin, 0, half, tracker);
            System.arraycopy(bin, half, bin, 0, n - half);
            n -= half;
        }
        bin[n] = address;
        tc.counts[ThreadCache.COUNT_OFFSET + c] = n + 1;
        tc.allocatedBytes -= size;
        tc.liveAllocations--;
    }

    /**
     * Refuses the free of a block that is not live: freed before (by this or another thread), or
     * never handed out. After close every free is accepted and ignored, as {@link #free} documents.
     *
     * @throws IllegalStateException unless the allocator is closed
     */
    private void doubleFree(MemorySegment segment) {
        if (closed) {
            return;
        }
        String message = "double free in allocator '" + name + "' of " + segment + " (" + segment.byteSize()
                + " bytes at 0x" + Long.toHexString(segment.address()) + "): the block is already free"
                + (debug == DebugMode.FULL ? "" : " (DebugMode.FULL reports both stack traces)");
        tracker.problem(message);
        throw new IllegalStateException(message);
    }

    private void freeManagerBlock(ManagerBlock block) {
        slowAllocatedBytes.addAndGet(-block.size());
        slowLiveAllocations.decrementAndGet();
        try {
            memoryManager.release(block.page());
            managerBytes.addAndGet(-block.page().byteSize());
        } catch (WrongThreadException e) {
            // a CONFINED manager's page: only its allocating thread (or releaseAll at close) can release it
            deferredPages.add(block.page());
        }
    }

    private void releaseDeferredPages() {
        for (int i = deferredPages.size(); i > 0; i--) {
            MemorySegment page = deferredPages.poll();
            if (page == null) {
                return;
            }
            try {
                memoryManager.release(page);
                managerBytes.addAndGet(-page.byteSize());
            } catch (WrongThreadException e) {
                deferredPages.add(page);
            }
        }
    }

    private IllegalArgumentException notAllocatedHere(MemorySegment segment, String why) {
        String message = "free of a segment that allocator '" + name + "' did not allocate: " + segment + ": " + why;
        tracker.problem(message);
        return new IllegalArgumentException(message);
    }

    /**
     * The free of a segment that starts where a live allocation of {@code allocationBytes} starts but is
     * shorter or longer (primitives only, as {@link #freeTracked} needs).
     */
    private IllegalArgumentException sliceOf(long address, long size, long allocationBytes) {
        String message = "free of a segment that allocator '" + name + "' did not allocate: 0x" + Long.toHexString(address)
                + " (" + size + " bytes): it starts the live allocation of " + allocationBytes
                + " bytes there (a slice of it?); free the segment the allocator returned";
        tracker.problem(message);
        return new IllegalArgumentException(message);
    }

    private RuntimeException notLive(MemorySegment segment, String why) {
        if (debug == DebugMode.FULL && !segment.scope().isAlive() && tracker.isTracked(segment.address())) {
            // a stale segment (its scope closed by its first free) whose free looked at the scope before the
            // first free closed it, while a later allocation starts at its address now: a double free, as
            // free() calls it when it sees the closed scope
            return tracker.staleFree(segment.address(), segment.byteSize(), segment.scope());
        }
        if (debug != DebugMode.OFF) {
            return tracker.badFree(segment.address(), segment.byteSize(), segment.scope(), why);
        }
        String message = "free of a segment that is not a live allocation of allocator '" + name + "': " + segment + ": " + why
                + " (never allocated here, or already freed)";
        tracker.problem(message);
        return new IllegalArgumentException(message);
    }

    // =================================================================== thread caches

    private ThreadCache cache() {
        Thread t = Thread.currentThread();
        ThreadCache c = cacheTable[(int) t.threadId() & (CACHE_TABLE_SIZE - 1)];
        if (c != null && c.thread == t) {
            return c;
        }
        return cacheSlow(t);
    }

    private ThreadCache cacheSlow(Thread t) {
        ThreadCache c = localCache.get();
        if (c == null) {
            c = new ThreadCache(t, countdownStart());
            localCache.set(c);
            synchronized (registryLock) {
                caches.add(c);
                if (++cachesCreated % SWEEP_EVERY_NEW_CACHES == 0) {
                    sweepDeadCaches();
                }
            }
        }
        int slot = (int) t.threadId() & (CACHE_TABLE_SIZE - 1);
        ThreadCache there = cacheTable[slot];
        if (there == null || !there.thread.isAlive()) {
            synchronized (registryLock) {
                if (cacheTable[slot] == there) {
                    cacheTable[slot] = c;
                }
            }
        }
        return c;
    }

    /** Returns the blocks of caches whose thread has ended to the central pools. Holds registryLock. */
    private void sweepDeadCaches() {
        for (int i = caches.size() - 1; i >= 0; i--) {
            ThreadCache c = caches.get(i);
            // Thread termination happens-before isAlive() returning false: the cache's last writes are visible.
            if (!c.thread.isAlive()) {
                flush(c);
                sweptAllocatedBytes += c.allocatedBytes;
                sweptLiveAllocations += c.liveAllocations;
                caches.set(i, caches.getLast());
                caches.removeLast();
                int slot = (int) c.thread.threadId() & (CACHE_TABLE_SIZE - 1);
                if (cacheTable[slot] == c) {
                    cacheTable[slot] = null;
                }
            }
        }
    }

    /** Returns all cached blocks of {@code c}; only its own thread, or anyone once that thread ended. */
    private void flush(ThreadCache c) {
        for (int k = 0; k < SizeClasses.COUNT; k++) {
            if (c.counts[ThreadCache.COUNT_OFFSET + k] > 0) {
                pools[k].giveBack(c.blocks[k], 0, c.counts[ThreadCache.COUNT_OFFSET + k], tracker);
                c.counts[ThreadCache.COUNT_OFFSET + k] = 0;
            }
        }
    }

    /** @return the number of thread caches not yet swept (live threads, and ended ones not swept yet) */
    public int threadCacheCount() {
        synchronized (registryLock) {
            return caches.size();
        }
    }

    // =================================================================== giving memory back

    /**
     * Gives cached and free memory back to the system now: the calling thread's cache and those of
     * ended threads go back to the central pools, spans whose blocks are all free go back to the
     * range, and free units are given back to the system. Afterwards {@link #footprintBytes()} counts
     * live blocks, the spans they keep, and the caches of other live threads. Does nothing once closed.
     */
    public void trim() {
        if (closed) {
            return;
        }
        activity++;
        ThreadCache own = cache();
        flush(own);
        releaseUnused();
        if (memoryManager != null) {
            releaseDeferredPages();
        }
    }

    private void releaseUnused() {
        synchronized (registryLock) {
            sweepDeadCaches();
        }
        for (SizeClassPool pool : pools) {
            pool.releaseSpare();
            pool.purgeFreePages();
        }
        range.purgeFree();
    }

    /** Called by the idle releaser: gives memory back if nothing went through a slow path since the last tick. */
    void releaseIfIdle() {
        long now = activity;
        if (now == activityAtLastTick && !closed) {
            releaseUnused();
        }
        activityAtLastTick = now;
    }

    /** One daemon thread for all pooled allocators' idle release, each allocator held weakly. */
    private static final class IdleReleaser {
        private static final ScheduledThreadPoolExecutor EXECUTOR =
                WeakSchedule.daemonExecutor("offheap-pooled-allocator-idle-release");

        static ScheduledFuture<?> schedule(PooledAllocator allocator, Duration period) {
            // a close racing a run makes it throw IllegalStateException; the close cancels the schedule
            return WeakSchedule.atFixedDelayWhileOpen(EXECUTOR, allocator,
                    period.compareTo(MIN_IDLE_TICK) < 0 ? MIN_IDLE_TICK : period, PooledAllocator::releaseIfIdle,
                    PooledAllocator::isClosed, "idle release");
        }

        /** The shortest period between two looks at an allocator's activity. */
        private static final Duration MIN_IDLE_TICK = Duration.ofMillis(1);
    }

    // =================================================================== state

    @Override
    public long allocatedBytes() {
        if (closingReport != null) {
            // close() freed everything; the counters of the threads' caches are not reset. A close that a
            // downcall refused freed nothing: the allocations are still there, and still counted
            return 0;
        }
        long sum = slowAllocatedBytes.get();
        synchronized (registryLock) {
            sum += sweptAllocatedBytes;
            for (ThreadCache c : caches) {
                sum += c.allocatedBytes;
            }
        }
        return Math.max(0, sum);
    }

    private long liveAllocations() {
        if (closingReport != null) {
            return 0;
        }
        long sum = slowLiveAllocations.get();
        synchronized (registryLock) {
            sum += sweptLiveAllocations;
            for (ThreadCache c : caches) {
                sum += c.liveAllocations;
            }
        }
        return Math.max(0, sum);
    }

    /**
     * @return bytes of units this allocator holds (spans with live or cached blocks, and free units not
     * yet given back), plus the pages it holds from its memory manager
     */
    @Override
    public long footprintBytes() {
        if (closingReport != null) {
            return 0;
        }
        // closed, but before its close has freed everything (a refused one keeps the range): what it holds
        return range.footprintBytes() + managerBytes.get();
    }

    @Override
    public AllocationReport report() {
        AllocationReport atClose = closingReport;
        if (atClose != null) {
            return atClose;
        }
        return new AllocationReport(name, debug, allocatedBytes(), footprintBytes(), liveAllocations(),
                debug == DebugMode.OFF ? List.of() : tracker.leaks(), tracker.problems());
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    /**
     * Reports live allocations (a WARNING through {@link System.Logger}, and in {@link #report()}),
     * makes every segment inaccessible, and gives the whole range back to the system. Closing twice does
     * nothing. The warning is logged last: what a log handler throws comes out as it is, once everything
     * is freed.
     *
     * <p>One exception, which the JDK imposes: a block in a page of a {@link dev.offheap.memory.PageAccess#CONFINED}
     * {@linkplain Builder#memoryManager memory manager} can be made inaccessible only by the thread that
     * allocated it. Closed from another thread while that thread lives, the block stays usable by that thread
     * (every other thread gets {@link WrongThreadException}, as before) until it ends; the manager quarantines
     * the page meanwhile, so no other owner ever gets it (see {@link MemoryManager}). A
     * {@link dev.offheap.memory.PageAccess#SHARED} manager has no such exception.
     *
     * @throws IllegalStateException if a segment of this allocator is in use by a downcall now (its scope
     *                               cannot close, as {@link Arena#close()} says): the memory stays mapped
     *                               (and counted: {@link #footprintBytes()}, {@link #allocatedBytes()}, the
     *                               report and the {@link AllocatorMXBean} show it until then), the allocator
     *                               refuses allocations and ignores frees from then on, and a later
     *                               {@code close()} finishes the work
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closingReport != null) {
                return;
            }
            if (!closed) {
                AllocationReport before = report();
                closed = true;
                if (idleTask != null) {
                    idleTask.cancel(false);
                }
                reportBeforeClose = before;
            }
            AllocationReport before = reportBeforeClose;
            List<String> problems = new ArrayList<>(before.problems());
            if (before.liveAllocations() > 0) {
                problems.add("closed with " + before.liveAllocations() + " live allocations (" + before.allocatedBytes()
                        + " bytes), freed by close");
                if (problems.size() > AllocationTracker.PROBLEMS_KEPT) {
                    problems.removeFirst(); // the report keeps the latest ones only, as the tracker does
                }
            }
            // every segment must be inaccessible before the memory behind it goes away. A scope that a
            // downcall holds cannot close (Arena.close throws): then nothing is unmapped under the native
            // code, and the next close() starts again here, past the scopes closed already (a close that
            // threw once and then returned at its closed flag kept the range and its budget for good)
            if (arena.scope().isAlive()) {
                arena.close();
            }
            for (AllocationTracker.Tracked t : tracker.liveAllocations()) {
                if (t.arena() != null && t.arena().scope().isAlive()) {
                    t.arena().close();
                }
            }
            tracker.clear();
            if (memoryManager != null) {
                memoryManager.releaseAll(managerOwner);
                managerBytes.set(0);
            }
            range.close();
            closingReport = new AllocationReport(name, debug, 0, 0, 0, before.leaks(), problems);
            PlatformMBeans.unregister(mbeanName);
            // last: the application's log handler may throw (a checked exception too, sneakily), and it then finds
            // the work done. Warned first, a handler that threw ended close with nothing freed, and every later
            // close() failed with a NullPointerException before it freed anything: memory, budget and MBean kept
            if (before.liveAllocations() > 0) {
                LOG.log(System.Logger.Level.WARNING, "closed with live allocations (freed now): " + before);
            }
        }
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "PooledAllocator[" + name + ", " + allocatedBytes() + " bytes live, " + footprintBytes() + " bytes footprint]";
    }

    /** Configures a {@link PooledAllocator}. Not thread-safe; build once. */
    public static final class Builder {
        private Budget budget;
        private MemoryManager memoryManager;
        private DebugMode debug = DebugMode.defaultMode();
        private int sampleRate = DebugMode.defaultSampleRate();
        private Duration idleRelease = DEFAULT_IDLE_RELEASE;
        private long capacity = DEFAULT_CAPACITY;
        private String name;
        private boolean registerMBean = true;
        private Supplier<Arena> ownScopes = Arena::ofShared;

        private Builder() {
        }

        /** For tests: what makes FULL mode's scope of each allocation ({@link Arena#ofShared()} by default). */
        Builder ownScopes(Supplier<Arena> factory) {
            this.ownScopes = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /**
         * @param register whether the allocator registers its {@link AllocatorMXBean} while it is open (the
         *                 default); a registered allocator stays reachable from the platform MBean server
         *                 until it is closed
         * @return this builder
         */
        public Builder registerMBean(boolean register) {
            this.registerMBean = register;
            return this;
        }

        /**
         * @param budget charged per 64 KiB unit of footprint (see the class description); refusals throw
         *               {@link BudgetExceededException}. Null for none. A closed budget is taken, and every
         *               request that must charge it then throws {@link IllegalStateException} naming it
         * @return this builder
         * @throws IllegalArgumentException if {@code budget} is a memory manager's own budget
         *         ({@link dev.offheap.memory.MemoryManager#budget()}), which only its manager may reserve from;
         *         a child of it is fine
         */
        public Builder budget(Budget budget) {
            this.budget = Checks.usableBudget(budget);
            return this;
        }

        /**
         * @param manager serves requests above 64 KiB that fit in one of its pages; a {@link MemoryType#NATIVE}
         *                or {@link MemoryType#MAPPED} manager, or null for none
         * @return this builder
         * @throws IllegalArgumentException if {@code manager} keeps its pages on the heap ({@link MemoryType#HEAP})
         */
        public Builder memoryManager(MemoryManager manager) {
            if (manager != null && manager.type() == MemoryType.HEAP) {
                // a heap page is no native memory, and every one has address 0: blocks taken from such pages
                // could never be freed (free refused them as foreign) and stayed held until close
                throw new IllegalArgumentException("memory manager '" + manager.name() + "' keeps its pages on the"
                        + " heap; a pooled allocator hands out native memory and takes pages only from a NATIVE or"
                        + " MAPPED manager");
            }
            this.memoryManager = manager;
            return this;
        }

        /**
         * @param mode what to record about allocations
         * @return this builder
         * @throws NullPointerException if {@code mode} is null
         */
        public Builder debug(DebugMode mode) {
            this.debug = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param rate N, where 1 allocation in N of a thread is tracked in {@link DebugMode#SAMPLED} mode (the
         *             gap to the next tracked one is drawn uniformly from [N/2, 3N/2]); the default is
         *             {@link DebugMode#defaultSampleRate()}
         * @return this builder
         * @throws IllegalArgumentException if {@code rate} is less than 1
         */
        public Builder sampleRate(int rate) {
            this.sampleRate = Checks.sampleRate(rate);
            return this;
        }

        /**
         * @param idle how long the allocator must see no slow-path activity before cached and free memory
         *             is given back to the system; {@link Duration#ZERO} for never (then only {@link #trim()} does)
         * @return this builder
         * @throws NullPointerException     if {@code idle} is null
         * @throws IllegalArgumentException if {@code idle} is negative
         */
        public Builder idleRelease(Duration idle) {
            Objects.requireNonNull(idle, "idle");
            if (idle.isNegative()) {
                throw new IllegalArgumentException("idle release period must not be negative, was " + idle);
            }
            this.idleRelease = idle;
            return this;
        }

        /**
         * @param bytes address space to reserve, a multiple of 64 KiB from 1 MiB to 1 TiB; it costs no
         *              memory until used (the allocator keeps about 5 bytes per 64 KiB of it on the heap, a state
         *              byte and a reference, 9 without compressed references, plus span tables for what is used),
         *              and caps the allocator's footprint
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is out of range or not a multiple of 64 KiB
         */
        public Builder capacity(long bytes) {
            if (bytes < (1L << 20) || bytes > (1L << 40) || (bytes & (UnitRange.UNIT_BYTES - 1)) != 0) {
                throw new IllegalArgumentException("capacity must be a multiple of 64 KiB from 1 MiB to 1 TiB, was "
                        + bytes + " bytes");
            }
            this.capacity = bytes;
            return this;
        }

        /**
         * @param name used in messages and reports
         * @return this builder
         * @throws NullPointerException     if {@code name} is null
         * @throws IllegalArgumentException if {@code name} is blank
         */
        public Builder name(String name) {
            this.name = Checks.name(name);
            return this;
        }

        /**
         * @return a new allocator
         * @throws OutOfMemoryError if the address range cannot be reserved
         */
        public PooledAllocator build() {
            return new PooledAllocator(this);
        }
    }
}
