package dev.offheap.memory;

import dev.offheap.memory.internal.Failures;
import dev.offheap.memory.internal.FileSpace;
import dev.offheap.memory.internal.MappedFileHeader;
import dev.offheap.memory.internal.PageAllocationFailedEvent;
import dev.offheap.memory.internal.PlatformMBeans;
import dev.offheap.memory.internal.SlotStack;
import dev.offheap.memory.internal.SpillEvent;
import dev.offheap.memory.internal.VirtualMemory;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Fixed-size pages of memory for owners, from an explicit budget: the managed memory of a data
 * processing system (sort buffers, hash tables, caches), on the heap, in native memory or in a
 * mapped file.
 *
 * <h2>Design</h2>
 * A manager owns {@link #totalBytes()} of memory cut into pages of {@link #pageSize()} bytes (a power
 * of two, 4 KiB to 64 MiB). Owners — any object, compared with {@code equals} — take pages with
 * {@link #allocatePages(Object, int)} and give them back one by one, as a collection, or all at once
 * with {@link #releaseAll(Object)}. Released pages are pooled and handed out again. Memory an owner
 * needs outside pages is accounted with {@link #reserve(Object, long)}. All of it is counted in a
 * {@link Budget} (a child of the {@linkplain Builder#parentBudget(Budget) parent budget} if one is
 * given, which is charged the whole size when the manager is built). Closing that budget, or any budget
 * above it, closes the manager as {@link #close()} does: a manager never runs on a closed budget.
 *
 * <p>When a request cannot be met, the manager asks the owners that registered a
 * {@link SpillCallback}, largest user first, to give memory back, retries, and only then throws
 * {@link BudgetExceededException}; nothing is half-allocated.
 *
 * <p>Pages that are used and released together can be allocated as one {@link PageGroup}
 * ({@link #allocateGroup(Object, int)}): one scope for all of them, 4 bytes of heap per page instead of
 * a segment, a scope and a lease each, and one revocation when the group closes.
 *
 * <h2>Safety</h2>
 * Every page handed out is a {@link MemorySegment} with a scope of its own. Releasing the page, or
 * closing the manager, closes that scope wherever the JDK allows it (a CONFINED page of another live
 * thread is the exception: see below): a segment the old owner kept throws
 * {@link IllegalStateException} on every access. In every case it can never read or write the bytes of
 * the page's next owner, and the JVM never crashes. Releasing a page twice is detected and never pools it twice;
 * a segment that is not a page of this manager is rejected. Two {@link PageAccess} modes trade
 * generality against the cost of that revocation:
 * <ul>
 *   <li>{@link PageAccess#CONFINED} (default): a page is used and released by the thread that
 *       allocated it; revocation costs nanoseconds. If another thread calls {@link #releaseAll} or
 *       {@link #close()} while the allocating thread is alive, the JDK does not allow revoking the page
 *       from there: the page is <em>quarantined</em> — never handed out again and its memory never
 *       freed — until that thread releases it or ends. After {@link #close()} only its end counts: a
 *       release after close does nothing, the page stays usable by its thread, and (for
 *       {@link MemoryType#MAPPED}) the file stays mapped and locked until that thread has ended.</li>
 *   <li>{@link PageAccess#SHARED}: any thread uses and releases pages; each release costs a JVM-wide
 *       handshake (tens of microseconds).</li>
 * </ul>
 * {@link MemoryType#HEAP} pages are the exception the JDK imposes: a heap segment can be neither revoked
 * nor confined, so a released heap page's array is dropped instead of reused, and any thread may use and
 * release a heap page whatever the {@link PageAccess}. A stale heap segment keeps working on its own dead
 * array; it never sees another owner's bytes.
 *
 * <h2>Threading and cost</h2>
 * All methods are thread-safe. Each platform thread keeps up to 4 MiB of free pages in a private
 * cache (at least 2 pages, at most 256), so threads that allocate and release at the same time
 * neither contend on one counter nor pass pages to each other; the caches are drained back whenever a
 * request would otherwise fail, and those of ended threads every 64 new caches.
 * Allocate and release take no shared lock: only the calling thread's own cache lock, which another
 * thread touches only while draining. Two threads sharing one manager reach about 1.9x one
 * thread's throughput (docs/memory.md).
 *
 * <h2>Observability</h2>
 * A {@link MemoryManagerMXBean} is registered under {@code dev.offheap:type=MemoryManager,name=...}
 * (unless {@linkplain Builder#registerMBean(boolean) disabled}; a second open manager of the same
 * name gets {@code <name>-2}, and so on); JFR records
 * {@code dev.offheap.PageAllocationFailed} and {@code dev.offheap.Spill} events.
 *
 * <pre>{@code
 * try (MemoryManager mm = MemoryManager.builder()
 *         .totalSize(ByteSize.parse("256m")).pageSize(32 * 1024).type(MemoryType.NATIVE).build()) {
 *     List<MemorySegment> pages = mm.allocatePages("sorter", 4);
 *     pages.getFirst().set(ValueLayout.JAVA_LONG, 0, 42L);
 *     mm.releaseAll("sorter");
 * }
 * }</pre>
 */
public final class MemoryManager implements AutoCloseable {
    /** Smallest page size, in bytes. */
    public static final int MIN_PAGE_SIZE = 4 * 1024;
    /** Largest page size, in bytes. */
    public static final int MAX_PAGE_SIZE = 64 * 1024 * 1024;
    /** Page size used when none is configured, in bytes. */
    public static final int DEFAULT_PAGE_SIZE = 32 * 1024;

    private static final System.Logger LOG = System.getLogger(MemoryManager.class.getName());
    private static final VarHandle SLOT_STATE = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final Cleaner RETAINED_MEMORY_CLEANER = Cleaner.create();
    private static final AtomicInteger UNNAMED_COUNTER = new AtomicInteger();
    /** Native memory is obtained in chunks of this size (or the whole size if smaller), each one arena. */
    private static final long NATIVE_CHUNK_BYTES = 16L << 20;
    /**
     * Bytes of pages a thread caches privately, at most: enough that a thread which allocates and
     * releases a few MiB of pages at a time keeps reusing its own, so two such threads neither take
     * turns on the shared pool nor pass pages (and their cache lines) to each other. Cached pages
     * count as used in the budget; a request the budget refuses drains every cache before it fails.
     */
    private static final long MAGAZINE_BYTES = 4L << 20;
    /** Pages a thread's cache holds, at least and at most, whatever {@link #MAGAZINE_BYTES} says. */
    private static final int MAGAZINE_MIN_PAGES = 2;
    private static final int MAGAZINE_MAX_PAGES = 256;
    /** Pages an empty cache takes from the pool when a single page is asked for. */
    private static final int MAGAZINE_BATCH = 8;
    /**
     * How long an allocation the budget admitted waits for a page when every slot is leased or cached: a release
     * pushes its slot before it gives its bytes back, so a page is always on its way then, for as long as a push
     * takes. One that does not come within this time was never coming: bytes were released to the manager's
     * budget that no page gave back (callers cannot: the budget refuses their releases, so only a defect of the
     * manager's own accounting), and the allocation fails instead of spinning for ever.
     */
    private static final long ADMITTED_PAGE_WAIT_NANOS = 2_000_000_000L;
    /** Pages {@link #release(Collection)} gives back to the pool at once, at most. */
    private static final int RELEASE_BATCH = 256;
    /** Slots of the table that finds a thread's cache by thread id; a power of two. */
    private static final int MAGAZINE_TABLE_SIZE = 64;
    /** New caches between two sweeps that forget the caches of ended threads. */
    private static final int FORGET_ENDED_EVERY_NEW_MAGAZINES = 64;
    private static final VarHandle MAGAZINE_TABLE = MethodHandles.arrayElementVarHandle(Magazine[].class);
    private static final int OWNERS_NAMED_IN_MESSAGES = 5;
    /**
     * Records of owners that hold nothing kept at least before a sweep drops them (see {@link #sweepOwnerRecords}):
     * enough that a few hundred owners that come and go are never swept for.
     */
    private static final int MIN_OWNER_SWEEP_THRESHOLD = 1024;
    /**
     * Pages per record that a manager may keep before a sweep: a sweep passes over the page table, so that
     * it costs at most this many slot reads per new owner, and the records cost a few bytes of heap per page.
     */
    private static final int PAGES_PER_SWEPT_RECORD = 32;
    /**
     * The files that mapped managers of this JVM hold (their {@link BasicFileAttributes#fileKey() keys}), until
     * their channels are closed, with who holds each; guarded by itself. A file here is refused before a build
     * opens it.
     */
    private static final Map<Object, MappedFileUse> MAPPED_FILES = new HashMap<>();
    /**
     * Run by a mapped build right after it reserved its file's blocks, before it maps the file; null (as always
     * outside tests) runs nothing. A seam for tests that hold a build there while another process builds on the
     * same file.
     */
    static volatile Runnable afterMappedFileReserved;
    /** Pages a manager can hold: the slot table (one entry per page, plus padding) must fit a Java array. */
    private static final int MAX_PAGES = Integer.MAX_VALUE - 64;
    /** 16 compressed references fill a 64-byte cache line. */
    private static final int STATE_SPREAD_SHIFT = 4;
    /** Pages from this size up have a cache line of the slot table each (see {@link #stateIndex}). */
    private static final int OWN_LINE_MIN_PAGE_SIZE = 16 * 1024;
    private static final int STATE_SPREAD = 1 << STATE_SPREAD_SHIFT;

    private final String name;
    private final MemoryType type;
    private final PageAccess access;
    private final int pageSize;
    private final int pageShift;
    private final long totalBytes;
    private final int totalPages;
    private final Budget budget;
    private final Consumer<String> leakReporter;

    // ---- memory: chunks of up to 2^chunkShift pages, every chunk but the last one full;
    // slot = (chunk << chunkShift) + page in chunk, so finding a page's memory is a shift and a mask
    private final int chunkShift;
    private final long chunkBytes;
    private final Chunk[] chunks;
    private final Object chunkGrowthLock = new Object();
    private volatile int chunksAllocated;
    /** Chunk base addresses in ascending order with their chunk numbers; replaced when a chunk is added. */
    private volatile ChunkIndex chunkIndex = new ChunkIndex(new long[0], new int[0]);
    private final SlotStack freeSlots;

    // ---- per page: null when free, else the Lease (owner, scope, confining thread); one reference
    // store and one compare-and-set per allocate/release, because every reference store into this
    // long-lived array pays the collector's write barrier
    private final Object[] slotState;
    /**
     * Entries of consecutive slots lie one cache line apart ({@link #stateIndex}): consecutive slots
     * usually sit in different threads' caches, and two threads writing one line made two threads
     * slower than one.
     */
    private final int stateLowBits;
    private final int stateLowMask;
    private final Map<byte[], Integer> heapSlots;
    private final byte[][] heapArrays;
    /** Arrays of released heap pages, weakly held, so that a second release is told apart from a foreign segment. */
    private final Map<byte[], Boolean> releasedHeapArrays;

    // ---- owners and per-thread caches
    private final ConcurrentHashMap<Object, OwnerRecord> owners = new ConcurrentHashMap<>();
    /** Records kept, at most, before a new owner's record starts a sweep that drops those of idle owners. */
    private volatile int ownerSweepThreshold;
    private final AtomicBoolean sweepingOwners = new AtomicBoolean();
    private final ThreadLocal<Magazine> magazines = new ThreadLocal<>();
    /**
     * Finds the caller's cache with one array load and one identity check, indexed by thread id;
     * a {@link ThreadLocal} lookup (a weak-reference check on a hash map) cost a fifth of an
     * allocate + release. Threads whose index is taken by another live thread use the ThreadLocal.
     */
    private final Magazine[] magazineTable = new Magazine[MAGAZINE_TABLE_SIZE];
    /** Pages each thread's cache holds at most: {@link #MAGAZINE_BYTES}, within its bounds and a quarter of all pages. */
    private final int magazineCapacity;
    private final Set<Magazine> allMagazines = ConcurrentHashMap.newKeySet();
    /** Caches made so far; every {@link #FORGET_ENDED_EVERY_NEW_MAGAZINES} of them, those of ended threads go. */
    private final AtomicLong magazinesCreated = new AtomicLong();
    private final ThreadLocal<int[]> spillDepth = ThreadLocal.withInitial(() -> new int[1]);

    // ---- statistics
    private final LongAdder failures = new LongAdder();
    private final LongAdder spills = new LongAdder();
    private final LongAdder spilledBytes = new LongAdder();
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final AtomicInteger quarantinedPages = new AtomicInteger();

    private final ObjectName mbeanName;
    private volatile boolean closed;

    private MemoryManager(Builder b, long total) {
        this.type = b.type;
        this.access = b.access;
        this.pageSize = b.pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(b.pageSize);
        this.totalBytes = total;
        this.totalPages = Math.toIntExact(total >>> pageShift);
        this.name = b.name != null ? b.name : "memory-manager-" + UNNAMED_COUNTER.incrementAndGet();
        this.leakReporter = b.leakReporter != null ? b.leakReporter : report -> LOG.log(System.Logger.Level.WARNING, report);
        long stateLength = Math.max(STATE_SPREAD, Long.highestOneBit(Math.max(1, totalPages) - 1L) << 1);
        long ownLinesLength = (long) totalPages << STATE_SPREAD_SHIFT;
        if (pageSize >= OWN_LINE_MIN_PAGE_SIZE && ownLinesLength <= MAX_PAGES) {
            // a cache line per slot: threads that each hold many pages never share a line of the table;
            // with these bits stateIndex's permutation reduces to slot << STATE_SPREAD_SHIFT
            this.slotState = new Object[(int) ownLinesLength + 2 * STATE_SPREAD];
            this.stateLowBits = 31;
            this.stateLowMask = Integer.MAX_VALUE;
        } else if (stateLength > 1 << 30) {
            // beyond 2^30 pages a power-of-two table would not fit an array: no spreading
            this.slotState = new Object[totalPages + 2 * STATE_SPREAD];
            this.stateLowBits = 0;
            this.stateLowMask = 0;
        } else {
            this.slotState = new Object[(int) stateLength + 2 * STATE_SPREAD];
            this.stateLowBits = Long.numberOfTrailingZeros(stateLength) - STATE_SPREAD_SHIFT;
            this.stateLowMask = (1 << stateLowBits) - 1;
        }
        this.ownerSweepThreshold = ownerSweepThresholdFor(0);
        this.magazineCapacity = Math.clamp(Math.min(MAGAZINE_BYTES >>> pageShift, totalPages / 4),
                MAGAZINE_MIN_PAGES, MAGAZINE_MAX_PAGES);
        this.heapSlots = type == MemoryType.HEAP ? new IdentityHashMap<>() : null;
        this.heapArrays = type == MemoryType.HEAP ? new byte[totalPages][] : null;
        this.releasedHeapArrays = type == MemoryType.HEAP ? new WeakHashMap<>() : null;
        this.freeSlots = new SlotStack(totalPages);
        // ceil(log2(totalPages)): one chunk holds everything; mapped memory is always one mapping
        int shiftForAllPages = 64 - Long.numberOfLeadingZeros(Math.max(1, totalPages) - 1L);
        int shiftForNativeChunk = Math.max(0, Long.numberOfTrailingZeros(NATIVE_CHUNK_BYTES) - pageShift);
        this.chunkShift = type == MemoryType.MAPPED ? shiftForAllPages : Math.min(shiftForAllPages, shiftForNativeChunk);
        this.chunkBytes = (long) pageSize << chunkShift;
        this.chunks = new Chunk[(int) ((totalPages + (1L << chunkShift) - 1) >>> chunkShift)];
        // Built under the lock close() takes: once made, the budget is reachable from its parent, and closing the
        // parent closes this manager (Budget.close), which waits here until there is a whole manager to close
        synchronized (chunkGrowthLock) {
            Budget made = null;
            try {
                // taken from the parent after the tables above: a build that ran out of heap for them charged it for good
                made = b.parentBudget != null ? b.parentBudget.childOfManager(this, name, total, total)
                        : Budget.rootOfManager(this, name, total, leakReporter);
                if (type == MemoryType.MAPPED) {
                    addChunk(mapFile(b.mappedFile, total));
                } else if (type == MemoryType.NATIVE && b.preallocate) {
                    while (chunksAllocated < chunks.length) {
                        addChunk(allocateNativeChunk());
                    }
                } else if (type == MemoryType.HEAP) {
                    for (int slot = totalPages - 1; slot >= 0; slot--) {
                        freeSlots.push(slot);
                    }
                }
                this.budget = made; // before the bean: a JMX client may read it as soon as it is registered
                // in the try: a bean that fails to register with an unchecked exception or an Error (checked ones
                // are logged and skipped) must not keep the budget this build took from its parent
                this.mbeanName = b.registerMBean
                        ? PlatformMBeans.register("MemoryManager", name, false, ManagementView::new) : null;
            } catch (RuntimeException | Error e) {
                closed = true; // a close of the parent waiting for the lock finds nothing left to close
                freeChunks();
                if (made != null) {
                    made.closeReturningDirect();
                }
                throw e;
            }
        }
    }

    /** @return a builder with the defaults: NATIVE memory, 32 KiB pages, CONFINED access, no size yet */
    public static Builder builder() {
        return new Builder();
    }

    // =================================================================== pages

    /**
     * Allocates one page for {@code owner}.
     *
     * <p>The manager keeps a record of each owner that holds something: pages, reserved bytes or a spill
     * callback (shown by {@link #usageByOwner()}, the MBean and {@code offheap inspect}). A record whose owner
     * holds none of them (it released every page and reservation, or its request was refused) is dropped, at the
     * latest when the manager's records grow past the largest of 1024, one per 32 pages, and twice the records
     * kept when it last dropped some: an owner per request costs nothing once the request released what it held. {@link #releaseAll(Object)}
     * forgets an owner at once, its spill callback included; an owner with a spill callback keeps its record
     * until then, or until it removes the callback.
     *
     * @param owner who holds the page; compared with {@code equals}
     * @return a segment of exactly {@link #pageSize()} bytes; its content is unspecified (zero for
     * memory never used, a previous owner's bytes for a reused page; for a {@link MemoryType#MAPPED} manager
     * over an existing file, what the file held there)
     * @throws NullPointerException    if {@code owner} is null
     * @throws BudgetExceededException if no page is free after asking other owners to spill
     * @throws IllegalStateException   if the manager is closed
     */
    public MemorySegment allocatePage(Object owner) {
        Objects.requireNonNull(owner, "owner");
        ensureOpen();
        Magazine magazine = magazine();
        OwnerRecord record = record(owner, magazine);
        int slot = magazine != null ? magazine.take() : -1;
        if (slot < 0) {
            slot = takeSlotsFromPool(record, magazine, 1, 0)[0];
        }
        try {
            return lease(slot, record);
        } catch (RuntimeException | Error e) {
            // a heap page's array or a page's arena could not be made (OutOfMemoryError): keep the slot
            returnSlots(new int[] {slot}, 0, 1);
            throw e;
        }
    }

    /**
     * Allocates {@code count} pages for {@code owner}, all or none.
     *
     * @param owner who holds the pages; compared with {@code equals}
     * @param count how many, at least 1
     * @return a new mutable list of {@code count} distinct pages of {@link #pageSize()} bytes each
     * @throws NullPointerException     if {@code owner} is null
     * @throws IllegalArgumentException if {@code count} is zero or negative
     * @throws BudgetExceededException  if the pages are not free after asking other owners to spill;
     *                                  nothing is allocated then
     * @throws IllegalStateException    if the manager is closed
     */
    public List<MemorySegment> allocatePages(Object owner, int count) {
        Objects.requireNonNull(owner, "owner");
        requirePageCount(count);
        ensureOpen();
        Magazine magazine = magazine();
        OwnerRecord record = record(owner, magazine);
        int[] slots = takeSlots(record, magazine, count);
        List<MemorySegment> pages = new ArrayList<>(count);
        try {
            for (int slot : slots) {
                pages.add(lease(slot, record));
            }
        } catch (RuntimeException | Error e) {
            // all or nothing: a lease that failed (a heap page's array, an arena: OutOfMemoryError) leaves
            // its slot and those after it unleased; the pages leased before it are released
            for (MemorySegment page : pages) {
                release(page);
            }
            returnSlots(slots, pages.size(), count - pages.size());
            throw e;
        }
        return pages;
    }

    /**
     * Allocates {@code count} pages for {@code owner} as one {@link PageGroup}, all or none: pages that
     * share one scope, revoked together when the group is {@linkplain PageGroup#close() closed}.
     *
     * <p>A group costs less than {@link #allocatePages} for the same pages, in heap and in time: it
     * holds 4 bytes of heap per page (the page's number) instead of a segment, a scope and a lease per
     * page (about 150 bytes), so 4 KiB pages cost about 0.1% of their size in heap instead of 3.6%;
     * and releasing it closes one scope instead of one per page, which for {@link PageAccess#SHARED}
     * pages is one JVM-wide handshake instead of one per page. In exchange its pages are released
     * together: {@link #release(MemorySegment)} refuses a page of a group. {@link #releaseAll(Object)}
     * and {@link #close()} release groups as they release pages, and {@link #usedPages()} and
     * {@link #usageByOwner()} count a group's pages as pages.
     *
     * @param owner who holds the pages; compared with {@code equals}
     * @param count how many, at least 1
     * @return a group of {@code count} distinct pages of {@link #pageSize()} bytes each; their content is
     *         unspecified, as for {@link #allocatePage}
     * @throws NullPointerException     if {@code owner} is null
     * @throws IllegalArgumentException if {@code count} is zero or negative
     * @throws BudgetExceededException  if the pages are not free after asking other owners to spill;
     *                                  nothing is allocated then
     * @throws IllegalStateException    if the manager is closed
     */
    public PageGroup allocateGroup(Object owner, int count) {
        Objects.requireNonNull(owner, "owner");
        requirePageCount(count);
        ensureOpen();
        Magazine magazine = magazine();
        OwnerRecord record = record(owner, magazine);
        int[] slots = takeSlots(record, magazine, count);
        try {
            return leaseGroup(slots, record);
        } catch (RuntimeException | Error e) {
            // the group's arena or a heap page's array could not be made (OutOfMemoryError), or the manager
            // closed meanwhile (then nothing goes back, see returnSlots): no slot is leased, all go back
            returnSlots(slots, 0, count);
            throw e;
        }
    }

    /**
     * Releases a page: from now on every access through {@code page} (or a slice of it) throws
     * {@link IllegalStateException}, and the page may be handed to another owner. After
     * {@link #close()} this does nothing.
     *
     * <p>A page is known by its address, size and scope: a segment that has all three of a held page's, such as
     * {@code page.asSlice(0)}, cannot be told from it and releases it.
     *
     * @param page a segment returned by {@link #allocatePage} or {@link #allocatePages}, not a slice
     * @throws NullPointerException     if {@code page} is null
     * @throws IllegalArgumentException if {@code page} is not a page of this manager: a slice, or a segment over a
     *                                  page's memory that is not the page's own (made from its address, or
     *                                  reinterpreted into another scope; the page stays allocated), or is a page
     *                                  of a {@link PageGroup} (close the group instead; the page stays allocated)
     * @throws IllegalStateException    if the page was already released (double release)
     * @throws WrongThreadException     if the page is {@link PageAccess#CONFINED} to another live thread;
     *                                  the page stays allocated ({@link MemoryType#HEAP} pages are confined
     *                                  to no thread: any thread may release them)
     */
    public void release(MemorySegment page) {
        int slot = revokeForRelease(page);
        if (slot >= 0) {
            recycle(slot);
        }
    }

    /**
     * The checks and the revocation of {@link #release(MemorySegment)}, without giving the slot back.
     *
     * @return the slot, now no longer leased, for the caller to recycle; -1 when there is nothing to
     *         recycle (the manager is closed, or the page was quarantined and is recycled already)
     */
    private int revokeForRelease(MemorySegment page) {
        Objects.requireNonNull(page, "page");
        if (closed) {
            return -1;
        }
        int slot = slotOf(page);
        if (slot < 0) {
            return -1; // a heap page that close dropped meanwhile
        }
        Object state = SLOT_STATE.getAcquire(slotState, stateIndex(slot));
        if (!(state instanceof Lease lease) || (lease.arena != null && !lease.arena.scope().equals(page.scope()))) {
            if (closed) {
                return -1; // close revoked the page meanwhile: a release racing close does nothing, as after it
            }
            throw notHeldThroughThisSegment(page, slot, state);
        }
        if (lease instanceof GroupLease) {
            throw new IllegalArgumentException("page " + slot + " of memory manager '" + name + "' belongs to a"
                    + " page group; its pages are released together, by closing the group");
        }
        if (lease.isQuarantined()) {
            try {
                releaseQuarantined(slot, lease);
            } catch (IllegalStateException inUse) {
                throw inUseByNativeCall("page " + slot, "release it", inUse);
            }
            return -1;
        }
        if (lease.thread != null && lease.thread != Thread.currentThread() && lease.thread.isAlive()) {
            // refused before the slot changes: emptied and put back, it was invisible meanwhile to a close()
            // or releaseAll() scanning for leases, which then freed or forgot a page still in use
            throw new WrongThreadException("page " + slot + " of memory manager '" + name + "' is confined to thread '"
                    + lease.thread.getName() + "'; release it from that thread, or build the manager with PageAccess.SHARED");
        }
        // revoke first, with the lease still in its slot: a close() or releaseAll() scanning meanwhile sees the
        // page (emptied before, the slot hid it from them while a revoke that failed put it back)
        try {
            revoke(lease);
        } catch (IllegalStateException inUse) {
            throw inUseByNativeCall("page " + slot, "release it", inUse);
        }
        if (!SLOT_STATE.compareAndSet(slotState, stateIndex(slot), lease, null)) {
            if (closed) {
                return -1; // close took the lease meanwhile: nothing to recycle, as after close
            }
            throw alreadyReleased(page, slot);
        }
        return slot;
    }

    /**
     * Releases each page of {@code pages}, as {@link #release(MemorySegment)} does. Pages are released
     * in order; if one fails, the ones before it stay released, the failing one and the rest are not.
     *
     * @param pages the pages; not null, no null element
     * @throws NullPointerException     if {@code pages} or an element is null
     * @throws IllegalArgumentException if an element is not a page of this manager, or is a page of a
     *                                  {@link PageGroup}
     * @throws IllegalStateException    if an element was already released
     * @throws WrongThreadException     if an element is confined to another thread
     */
    public void release(Collection<MemorySegment> pages) {
        Objects.requireNonNull(pages, "pages");
        // Slots go back in batches: the thread's cache first, the rest to the pool and the budget with
        // one update each, so that threads releasing many pages at once do not take turns on the pool.
        int[] released = new int[Math.clamp(pages.size(), 1, RELEASE_BATCH)];
        int count = 0;
        try {
            for (MemorySegment page : pages) {
                int slot = revokeForRelease(page);
                if (slot >= 0) {
                    released[count++] = slot;
                    if (count == released.length) {
                        recycleAll(released, count);
                        count = 0;
                    }
                }
            }
        } finally {
            recycleAll(released, count);
        }
    }

    /**
     * Releases every page and reservation of {@code owner} and forgets the owner: its record and its spill
     * callback. Pages
     * confined to another live thread are quarantined (see the class description), and so are
     * {@link PageAccess#SHARED} pages a native call holds (their scope is acquired) until the call
     * returned and they are released or needed. Does nothing for
     * an unknown owner. Call it when the owner is done: pages that another thread allocates for the
     * same owner while this runs may be missed (they stay the owner's, for a later {@code releaseAll}, and are
     * revoked and freed by {@link #close()}).
     *
     * @param owner the owner
     * @throws NullPointerException if {@code owner} is null
     */
    public void releaseAll(Object owner) {
        Objects.requireNonNull(owner, "owner");
        if (closed) {
            return;
        }
        OwnerRecord record = owners.remove(owner);
        if (record == null) {
            return;
        }
        record.state = OwnerRecord.FORGOTTEN;
        // an allocation for the owner that publishes its lease meanwhile reads the state after: it sees FORGOTTEN
        // and moves the page to the owner's new record (keepLease), or this pass sees its lease
        VarHandle.fullFence();
        for (int slot = 0; slot < totalPages; slot++) {
            if (SLOT_STATE.getAcquire(slotState, stateIndex(slot)) instanceof Lease lease && lease.ownerNow() == record) {
                forceRelease(slot, lease);
            }
        }
        long reserved = record.reservedBytes.getAndSet(0);
        if (reserved > 0) {
            budget.releaseForManager(reserved);
        }
    }

    // =================================================================== writing mapped memory back

    /**
     * Writes what {@code segment} holds back to a {@link MemoryType#MAPPED} manager's file and waits until the
     * storage device has it ({@code msync} with {@code MS_SYNC}, as {@link MemorySegment#force()} does for a
     * mapped segment). The bytes then survive a crash or power loss of the machine, not only the end of the
     * process: without it the system writes them back when it chooses. The pages a manager hands out are not
     * mapped segments themselves ({@code isMapped()} is false, since each has a scope of its own), so the JDK
     * refuses {@code page.force()}; this is the way to force them.
     *
     * <p>Thread-safety: any thread may call it, also for a {@link PageAccess#CONFINED} page of another thread;
     * stores that other threads make meanwhile may or may not be written. The system writes whole pages of its
     * own (4 KiB), so bytes next to the segment may be written too.
     *
     * @param segment a page this manager handed out and still holds ({@link #allocatePage}, {@link #allocatePages},
     *                a {@link PageGroup}'s page), or a slice of one
     * @throws NullPointerException          if {@code segment} is null
     * @throws UnsupportedOperationException if this manager's type is not {@link MemoryType#MAPPED}
     * @throws IllegalArgumentException      if {@code segment} does not lie in this manager's memory
     * @throws IllegalStateException         if the manager is closed, or the segment's scope is not alive (a
     *                                       released page, a closed group)
     * @throws java.io.UncheckedIOException  if the system fails to write the bytes (an I/O error)
     */
    public void force(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        MemorySegment mapped = mappedMemoryForForce();
        long offset = segment.address() - mapped.address();
        if (!segment.isNative() || offset < 0 || offset > mapped.byteSize() - segment.byteSize()) {
            throw new IllegalArgumentException("segment " + segment + " does not lie in the memory of memory manager '"
                    + name + "' (" + mapped + "): force takes its pages, or slices of them");
        }
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("segment " + segment + " of memory manager '" + name + "' is not alive: a"
                    + " released page (or a closed group's) is not the caller's to force");
        }
        mapped.asSlice(offset, segment.byteSize()).force();
    }

    /**
     * Writes all of a {@link MemoryType#MAPPED} manager's memory back to its file, held pages and free ones,
     * and waits until the storage device has it; see {@link #force(MemorySegment)}.
     *
     * @throws UnsupportedOperationException if this manager's type is not {@link MemoryType#MAPPED}
     * @throws IllegalStateException         if the manager is closed
     * @throws java.io.UncheckedIOException  if the system fails to write the bytes (an I/O error)
     */
    public void force() {
        mappedMemoryForForce().force();
    }

    /** @return the mapped file's whole mapping, a mapped segment the JDK forces */
    private MemorySegment mappedMemoryForForce() {
        if (type != MemoryType.MAPPED) {
            throw new UnsupportedOperationException("memory manager '" + name + "' is " + type + ": only a MAPPED"
                    + " manager's memory has a file to be written back to");
        }
        ensureOpen();
        // a mapped manager has one chunk, the whole file, mapped at build
        return chunks[0].memory;
    }

    // =================================================================== reservations and spilling

    /**
     * Accounts {@code bytes} of memory that {@code owner} uses outside pages, so that pages and other
     * memory share one limit. Spills other owners if needed, as page allocation does.
     *
     * @param owner who holds the bytes
     * @param bytes how many, at least 0
     * @throws NullPointerException     if {@code owner} is null
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws BudgetExceededException  if the bytes are not available after spilling, or are more than
     *                                  {@link #totalBytes()} (then no owner is asked to spill)
     * @throws IllegalStateException    if the manager is closed
     */
    public void reserve(Object owner, long bytes) {
        Objects.requireNonNull(owner, "owner");
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be at least 0, was " + bytes);
        }
        ensureOpen();
        OwnerRecord record = record(owner);
        if (bytes > totalBytes) {
            // no spill can make room for it: asking the owners would make them drop their data for nothing
            throw refused(record, bytes, ByteSize.format(bytes) + " of reservation, more than the manager has,",
                    usedBytes(), List.of());
        }
        reserveOrSpill(record, bytes, ByteSize.format(bytes) + " of reservation", 0);
        record.reservedBytes.addAndGet(bytes);
        if (record.state != OwnerRecord.LIVE) {
            keepReservation(record, bytes);
        }
    }

    /**
     * Returns bytes reserved with {@link #reserve(Object, long)}. After {@link #close()} this does nothing.
     *
     * @param owner who reserved them
     * @param bytes how many, at least 0 and at most what the owner has reserved
     * @throws NullPointerException     if {@code owner} is null
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws IllegalStateException    if the owner has fewer bytes reserved (nothing changes)
     */
    public void releaseReservation(Object owner, long bytes) {
        Objects.requireNonNull(owner, "owner");
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be at least 0, was " + bytes);
        }
        if (closed || bytes == 0) {
            return;
        }
        OwnerRecord record = owners.get(owner);
        long current;
        do {
            current = record == null ? 0 : record.reservedBytes.get();
            if (bytes > current) {
                if (closed) {
                    return; // close forgot the owners meanwhile: a release racing close does nothing, as after it
                }
                throw new IllegalStateException("owner '" + ownerLabel(owner) + "' releases " + bytes
                        + " reserved bytes but holds " + current + " in memory manager '" + name + "'");
            }
        } while (!record.reservedBytes.compareAndSet(current, current - bytes));
        budget.releaseForManager(bytes);
    }

    /**
     * Registers (or replaces, or with null removes) the callback through which {@code owner} gives
     * memory back when another owner's request cannot be met.
     *
     * @param owner    the owner
     * @param callback the callback, or null to remove it
     * @throws NullPointerException  if {@code owner} is null
     * @throws IllegalStateException if the manager is closed
     */
    public void registerSpillCallback(Object owner, SpillCallback callback) {
        Objects.requireNonNull(owner, "owner");
        ensureOpen();
        OwnerRecord record = record(owner);
        record.callback = callback;
        // a sweep checking the record for a callback sees this one, or is seen here (see OwnerRecord#state)
        while (!keep(record)) {
            record = freshRecord(owner, null);
            record.callback = callback;
        }
    }

    // =================================================================== views

    /** @return the manager's name (also its JMX name and the name of its budget) */
    public String name() {
        return name;
    }

    /** @return the page size in bytes */
    public int pageSize() {
        return pageSize;
    }

    /** @return the managed memory in bytes, a multiple of the page size */
    public long totalBytes() {
        return totalBytes;
    }

    /** @return the number of pages, {@code totalBytes() / pageSize()} */
    public int totalPages() {
        return totalPages;
    }

    /**
     * @return the pages held by owners now (quarantined pages are not held: see {@link #quarantinedPages()});
     * counts the page table, so it costs a pass over all pages
     */
    public int usedPages() {
        int used = 0;
        for (int slot = 0; slot < totalPages; slot++) {
            if (SLOT_STATE.getAcquire(slotState, stateIndex(slot)) instanceof Lease lease && !lease.isQuarantined()) {
                used++;
            }
        }
        return used;
    }

    /** @return the pages that could be allocated now: what the budget has left, in whole pages */
    public int freePages() {
        return (int) Math.min(totalPages, (budget.available() >>> pageShift) + cachedPages());
    }

    /**
     * @return bytes in use: pages held by owners, quarantined pages (released but not yet reusable, see
     * {@link MemoryManager#quarantinedPages()}) and reservations; free pages cached per thread are not counted.
     * After {@link #close()}: the bytes of the pages whose memory close kept, {@code quarantinedPages() * pageSize()}
     */
    public long usedBytes() {
        if (closed) {
            // the budget was returned: what is left is the memory close kept for live threads
            return (long) quarantinedPages.get() << pageShift;
        }
        return Math.max(0, budget.used() - ((long) cachedPages() << pageShift));
    }

    /**
     * @return the highest amount reserved from the manager's budget so far: pages held, reservations,
     * and the free pages threads cached at that moment (up to 4 MiB of pages per thread: 2 to 256 pages,
     * see the class description), so it can exceed the highest {@link #usedBytes()} by that much
     */
    public long peakUsedBytes() {
        return budget.peak();
    }

    private int cachedPages() {
        int cached = 0;
        for (Magazine magazine : allMagazines) {
            cached += magazine.size();
        }
        return cached;
    }

    /**
     * @return bytes of native or mapped memory actually obtained so far (heap: 0); for {@link MemoryType#MAPPED}
     *         the pages' mapping, {@link #totalBytes()}: the file's 4 KiB header is not mapped and not counted here
     *         nor in the budget, so the file takes 4096 bytes more than this on its file system
     */
    public long allocatedBytes() {
        return allocatedBytes.get();
    }

    /** @return where the pages live */
    public MemoryType type() {
        return type;
    }

    /** @return who may use and release pages */
    public PageAccess pageAccess() {
        return access;
    }

    /**
     * The budget that accounts this manager's memory: its pages (held, quarantined or cached per thread) and
     * reservations. Read it (used, peak, limit), hang reporting on it, or make {@linkplain Budget#child children}
     * of it: what a child reserves counts against the manager's limit, leaving fewer pages free, and a child
     * still holding bytes when the manager closes is reported as a leak. Its own count is the manager's alone:
     * {@link Budget#reserve}, {@link Budget#tryReserve} and {@link Budget#release} on it throw
     * {@link UnsupportedOperationException} (a release of bytes no page gave back would let it admit pages that
     * do not exist); {@link #reserve(Object, long)} accounts memory outside pages. Closing it, or a budget
     * above it, closes the manager (see {@link #close()}).
     *
     * @return the manager's budget; the same object for the manager's life, thread-safe as every budget is
     */
    public Budget budget() {
        return budget;
    }

    /**
     * @return pages released from another thread while confined to a live one, or while a native call held
     *         them, not yet reusable. After {@link #close()}: the pages whose memory close kept because it could
     *         not revoke them (confined to a live thread, or held by a native call), held or quarantined before,
     *         until that memory is freed (once their thread has ended and is unreachable, or nothing reaches
     *         their scope); pages close freed are not counted
     */
    public int quarantinedPages() {
        return quarantinedPages.get();
    }

    /** @return requests refused after spilling, since creation */
    public long allocationFailures() {
        return failures.sum();
    }

    /** @return spill callbacks invoked, since creation */
    public long spillCount() {
        return spills.sum();
    }

    /**
     * @return bytes given back by spill callbacks, since creation: how far each spilling owner's use (pages and
     *         reservations) fell while it was asked, less pages it quarantined meanwhile (not free); spills of one
     *         owner that run at once, on several threads, count a fall once
     */
    public long spilledBytes() {
        return spilledBytes.sum();
    }

    /**
     * @return bytes used per owner (pages plus reservations), keyed by the owner's text ({@code owner.toString()},
     *         or {@link Objects#toIdentityString(Object)} for an owner whose {@code toString()} returns null),
     *         largest first; owners that hold nothing are not listed
     */
    public Map<String, Long> usageByOwner() {
        Map<OwnerRecord, Long> pagesByOwner = countPagesByOwner();
        Map<String, Long> byLabel = new LinkedHashMap<>();
        for (OwnerRecord record : owners.values()) {
            long used = usedBytesOf(record, pagesByOwner);
            if (used > 0) {
                byLabel.merge(record.label, used, Long::sum);
            }
        }
        // sorted after merging: distinct owners with the same text add up, and their sum may outrank an owner
        // that one of them alone did not (sorted before, the merged entry kept the place of its first part)
        Map<String, Long> usage = new LinkedHashMap<>();
        for (Map.Entry<String, Long> entry : Budget.largestFirst(byLabel.keySet(), byLabel::get)) {
            usage.put(entry.getKey(), entry.getValue());
        }
        return usage;
    }

    /** @return the owner records kept now, for tests: owners that hold something, and a bounded number of others */
    int ownerRecordCount() {
        return owners.size();
    }

    /** @return whether {@link #close()} has been called */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "MemoryManager[" + name + ", " + type + ", " + totalPages + " pages of " + ByteSize.format(pageSize)
                + ", used " + ByteSize.format(usedBytes()) + "]";
    }

    /**
     * Frees all memory. Pages still held are revoked first (their segments throw from now on) and
     * reported, owner by owner, as a leak; pages confined to another live thread cannot be revoked from
     * here (the JDK lets only a confined scope's own thread close it), so their segments keep working for
     * that thread alone (any other gets {@link WrongThreadException}), and their memory, handed to no one,
     * is kept until those threads end; {@link #quarantinedPages()} and
     * {@link #usedBytes()} count those pages until then, and nothing else. Mapped memory is unmapped; the file stays.
     * Later allocation throws {@link IllegalStateException}; later release does nothing. Closing twice
     * does nothing. Closing the manager's {@linkplain #budget() budget}, or a budget above it (the
     * {@linkplain Builder#parentBudget(Budget) parent budget}, say), runs this close on the thread that closes
     * the budget, with everything it does: pages revoked or kept, owners reported, budget returned.
     *
     * @throws RuntimeException what the leak reporter threw, if it throws, as it is (an {@link Error}, or a
     *                          checked exception that a reporter written in another JVM language or with a
     *                          "sneaky throw" throws, comes out unchanged); the manager is closed all the same,
     *                          its budget returned to the parent.
     *                          The same for anything else that throws during close (the leak reporter of a
     *                          child of {@link #budget()}, an {@link Error}): every other step still runs (pages revoked, memory
     *                          freed, MBean unregistered, budget returned), and the first failure is thrown after
     */
    @Override
    public void close() {
        synchronized (chunkGrowthLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Every step runs whatever an earlier one threw (a budget refusing the drain's release as an over-release,
        // an Error), and the first failure is thrown at the end: the closed flag is set, so a later close() does
        // nothing, and a step skipped for good left the MBean registered (holding the manager), held pages
        // usable, the memory allocated and the parent's budget charged. Throwable, as Budget.close catches: a
        // leak reporter is a Consumer, but one written in Kotlin (or a sneaky throw) throws checked exceptions,
        // which went past a catch of RuntimeException and Error and lost the first failure.
        Throwable failure = null;
        try {
            drainMagazines();
        } catch (Throwable e) {
            failure = e;
        }
        StringBuilder leaks = new StringBuilder();
        try {
            Map<OwnerRecord, Long> pagesByOwner = countPagesByOwner();
            for (OwnerRecord record : owners.values()) {
                long pages = pagesByOwner.getOrDefault(record, 0L);
                long reserved = record.reservedBytes.get();
                if (pages > 0 || reserved > 0) {
                    leaks.append("\n  ").append(record.label).append(": ").append(pages).append(" pages (")
                            .append(ByteSize.format(pages << pageShift)).append("), ")
                            .append(ByteSize.format(reserved)).append(" reserved");
                }
            }
        } catch (Throwable e) {
            failure = Failures.firstOrSuppressed(failure, e);
        }
        int retained = 0;
        for (int slot = 0; slot < totalPages; slot++) {
            // volatile: pairs with publishLease's volatile write and read of closed (see there)
            if (SLOT_STATE.getVolatile(slotState, stateIndex(slot)) instanceof Lease lease) {
                try {
                    boolean kept = !revokeAtClose(slot, lease);
                    // from now on quarantinedPages() counts the pages whose memory close keeps (until the cleaner
                    // frees it): a quarantined page freed here no longer counts, a held one kept here does
                    if (kept) {
                        retained++;
                        if (!lease.isQuarantined()) {
                            quarantinedPages.incrementAndGet();
                        }
                    } else if (lease.isQuarantined()) {
                        quarantinedPages.decrementAndGet();
                    }
                } catch (Throwable e) {
                    failure = Failures.firstOrSuppressed(failure, e);
                    if (lease.arena != null && lease.arena.scope().isAlive()) {
                        // neither revoked nor left to a cleaner: its chunk must never be freed under the page
                        chunks[slot >>> chunkShift].retained.incrementAndGet();
                    }
                }
            }
        }
        for (Chunk chunk : chunks) {
            if (chunk != null) {
                if (chunk.fileUse != null) {
                    chunk.fileUse.managerClosed = true;
                }
                try {
                    chunk.releaseRetained();
                } catch (Throwable e) {
                    failure = Failures.firstOrSuppressed(failure, e);
                }
            }
        }
        PlatformMBeans.unregister(mbeanName);
        owners.clear();
        // The table references threads; a closed manager must not keep them (and retained chunks) alive.
        Arrays.fill(magazineTable, null);
        // nor the caches of live threads, which the drain above kept: each holds its thread
        allMagazines.clear();
        // the report comes last, so that a reporter that throws (a test's, failing on leaks) leaves a manager
        // closed all the way: its budget returned to the parent and its MBean gone
        try {
            // Everything was revoked or retained above; the budget's own count is not a leak of its own (this
            // reports the owners). It is not released first: a release racing that (one that read closed just
            // before it was set) would make one of the two an over-release.
            budget.closeReturningDirect();
        } catch (Throwable e) {
            // the budget's own report (of budgets made under it) throws what its reporter throws, checked or not
            failure = Failures.firstOrSuppressed(failure, e);
        }
        if (!leaks.isEmpty() || retained > 0) {
            try {
                leakReporter.accept("memory manager '" + name + "' closed while owners still held memory:" + leaks
                        + (retained > 0 ? "\n  " + retained + " pages confined to live threads are kept until those threads end"
                        + " (or, in use by a native call, until nothing reaches them)" : ""));
            } catch (Throwable e) {
                failure = Failures.firstOrSuppressed(failure, e);
            }
        }
        Failures.throwIfAny(failure);
    }

    // =================================================================== internals: slots

    private static void requirePageCount(int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("page count must be at least 1, was " + count);
        }
    }

    /**
     * Takes {@code count} slots, from the caller's cache first, then the pool; all or none.
     *
     * @throws BudgetExceededException if they are not free after spilling, or are more than the manager has
     *                                 (then no owner is asked to spill)
     */
    private int[] takeSlots(OwnerRecord record, Magazine magazine, int count) {
        if (count > totalPages) {
            throw refused(record, (long) count << pageShift, count + " pages, more than the manager has,",
                    usedBytes(), List.of());
        }
        int[] slots = new int[count];
        int taken = magazine != null ? magazine.takeAll(slots, count) : 0;
        if (taken < count) {
            int[] fromPool;
            try {
                fromPool = takeSlotsFromPool(record, magazine, count - taken, taken);
            } catch (RuntimeException | Error e) {
                // an Error too (a spill callback's AssertionError): the slots taken must not be lost
                returnSlots(slots, 0, taken);
                throw e;
            }
            System.arraycopy(fromPool, 0, slots, taken, fromPool.length);
        }
        return slots;
    }

    /**
     * Takes {@code count} slots past the caller's cache: budget first (spilling if needed), then the pool.
     *
     * @param fromCache slots the request took from the caller's cache already: a refusal names the whole request,
     *                  and does not count those as used (they go back)
     */
    private int[] takeSlotsFromPool(OwnerRecord record, Magazine magazine, int count, int fromCache) {
        int extra = 0;
        int batch = Math.min(MAGAZINE_BATCH, magazineCapacity);
        if (magazine != null && count == 1 && budget.tryReserveForManager((long) batch << pageShift)) {
            extra = batch - 1;
        } else {
            int requested = count + fromCache;
            reserveOrSpill(record, (long) count << pageShift, requested + (requested == 1 ? " page" : " pages"),
                    (long) fromCache << pageShift);
        }
        int[] slots = new int[count];
        int[] refill = extra > 0 ? new int[extra] : null;
        int popped = 0;
        int refilled = 0;
        try {
            for (popped = freeSlots.popAll(slots, 0, count); popped < count; popped++) {
                slots[popped] = popFreeSlot();
            }
            if (extra > 0) {
                for (refilled = freeSlots.popAll(refill, 0, extra); refilled < extra; refilled++) {
                    refill[refilled] = popFreeSlot();
                }
                magazine.putAll(refill, extra);
            }
        } catch (RuntimeException | Error e) {
            // the system refused a new chunk (OutOfMemoryError): the slots popped and the pages the budget admitted
            // go back, else every such failure lost them for good (after close nothing goes back, see returnSlots)
            returnSlots(slots, 0, popped);
            if (refill != null) {
                returnSlots(refill, 0, refilled);
            }
            if (!closed) {
                budget.releaseForManager((long) (count - popped + extra - refilled) << pageShift);
            }
            throw e;
        }
        return slots;
    }

    /**
     * Pops a slot the budget has already admitted; grows the memory if the pool is empty.
     *
     * @throws IllegalStateException if no slot comes within {@link #ADMITTED_PAGE_WAIT_NANOS} although the budget
     *                               admitted one: the budget was changed behind the manager's back
     */
    private int popFreeSlot() {
        long waitingSince = 0;
        boolean waiting = false;
        while (true) {
            int slot = freeSlots.pop();
            if (slot >= 0) {
                return slot;
            }
            synchronized (chunkGrowthLock) {
                if (!freeSlots.isEmpty()) {
                    continue;
                }
                ensureOpen();
                if (chunksAllocated == chunks.length) {
                    // Admitted by the budget, so a slot is on its way back from a concurrent release.
                    long now = System.nanoTime();
                    if (!waiting) {
                        waiting = true;
                        waitingSince = now;
                    } else if (now - waitingSince > ADMITTED_PAGE_WAIT_NANOS) {
                        throw new IllegalStateException("memory manager '" + name + "': its budget admitted a page,"
                                + " but every page is leased or cached and none came back within "
                                + ADMITTED_PAGE_WAIT_NANOS / 1_000_000_000L + " s: bytes were released to its budget"
                                + " (" + budget.name() + ") that no page gave back, a defect of its accounting");
                    }
                    Thread.onSpinWait();
                    continue;
                }
                addChunk(allocateNativeChunk());
            }
        }
    }

    // reinterpret only swaps the scope of a slice the manager owns: same address, same size.
    @SuppressWarnings("restricted")
    private MemorySegment lease(int slot, OwnerRecord record) {
        if (type == MemoryType.HEAP) {
            MemorySegment page = MemorySegment.ofArray(newHeapArray(slot));
            Lease lease = new Lease(record, null, null);
            publishLease(slot, lease);
            if (record.state != OwnerRecord.LIVE) {
                keepLease(lease);
            }
            return page;
        }
        Arena arena = newPageArena();
        MemorySegment page = pageMemory(slot).reinterpret(arena, null);
        Lease lease = new Lease(record, arena, confiningThread());
        publishLease(slot, lease);
        if (record.state != OwnerRecord.LIVE) {
            keepLease(lease);
        }
        return page;
    }

    /** A new heap page's array, registered as the slot's. */
    private byte[] newHeapArray(int slot) {
        byte[] array = new byte[pageSize];
        synchronized (heapSlots) {
            heapSlots.put(array, slot);
            heapArrays[slot] = array;
        }
        return array;
    }

    /** @return the scope that will revoke a native or mapped page (or a group's pages) */
    private Arena newPageArena() {
        return access == PageAccess.CONFINED ? Arena.ofConfined() : Arena.ofShared();
    }

    /** @return the thread a native or mapped page's scope is confined to, or null if it is shared */
    private Thread confiningThread() {
        return access == PageAccess.CONFINED ? Thread.currentThread() : null;
    }

    /** @return a slot's memory, in the manager's own scope: reinterpreted into a page's scope before it goes out */
    private MemorySegment pageMemory(int slot) {
        Chunk chunk = chunks[slot >>> chunkShift];
        long offset = (slot & ((1L << chunkShift) - 1)) << pageShift;
        return chunk.memory.asSlice(offset, pageSize);
    }

    /**
     * Leases every slot to one group: one lease, one scope. The lease is published in every slot before
     * the manager's closed flag is read, so that a close() running meanwhile either finds every slot
     * leased or is seen here (as in {@link #publishLease}); one full fence after all the stores does what
     * a volatile store per slot did, for one fence instead of one per page.
     */
    private PageGroup leaseGroup(int[] slots, OwnerRecord record) {
        MemorySegment[] heapPages = null;
        Arena arena = null;
        if (type == MemoryType.HEAP) {
            heapPages = new MemorySegment[slots.length];
            int made = 0;
            try {
                for (; made < slots.length; made++) {
                    heapPages[made] = MemorySegment.ofArray(newHeapArray(slots[made]));
                }
            } catch (RuntimeException | Error e) {
                for (int i = 0; i < made; i++) {
                    dropHeapArray(slots[i]);
                }
                throw e;
            }
        } else {
            arena = newPageArena();
        }
        GroupLease lease = new GroupLease(record, arena, arena != null ? confiningThread() : null);
        PageGroup group = new PageGroup(this, slots, lease, heapPages);
        lease.group = group; // before the slots publish the lease: whoever reads it from a slot sees its group
        for (int slot : slots) {
            SLOT_STATE.setRelease(slotState, stateIndex(slot), lease);
        }
        VarHandle.fullFence();
        if (closed) {
            for (int slot : slots) {
                if (SLOT_STATE.compareAndSet(slotState, stateIndex(slot), lease, null) && arena == null) {
                    dropHeapArray(slot);
                }
            }
            revoke(lease);
            throw new IllegalStateException("memory manager '" + name + "' is closed");
        }
        if (record.state != OwnerRecord.LIVE) {
            keepLease(lease);
        }
        return group;
    }

    /**
     * {@link PageGroup#page(int)}: a segment of the group's scope over one of its pages. reinterpret only
     * swaps the scope of a slice the manager owns: same address, same size.
     */
    @SuppressWarnings("restricted")
    MemorySegment groupPage(PageGroup group, int index) {
        int slot = group.slots[Objects.checkIndex(index, group.slots.length)];
        Lease lease = group.lease;
        if (lease.arena == null) {
            if (group.isReleased() || SLOT_STATE.getAcquire(slotState, stateIndex(slot)) != lease) {
                throw groupReleased();
            }
            return group.heapPages[index];
        }
        if (group.isReleased() || !lease.arena.scope().isAlive()) {
            throw groupReleased();
        }
        return pageMemory(slot).reinterpret(lease.arena, null);
    }

    /** @return whether a heap group's pages are still leased to it (not released by releaseAll or close) */
    boolean isGroupLeased(PageGroup group) {
        return !closed && SLOT_STATE.getAcquire(slotState, stateIndex(group.slots[0])) == group.lease;
    }

    /** A release the JDK refused because a native call holds the scope (it is acquired); nothing changed. */
    private IllegalStateException inUseByNativeCall(String what, String retry, IllegalStateException cause) {
        return new IllegalStateException(what + " of memory manager '" + name + "' is in use by a native call (its"
                + " scope is acquired); " + retry + " once the call returned", cause);
    }

    private IllegalStateException groupReleased() {
        return new IllegalStateException("page group of memory manager '" + name + "' was released (closed, or"
                + " released by releaseAll or the manager's close); its pages may belong to other owners now");
    }

    /**
     * {@link PageGroup#close()}: revokes the group's scope, then gives back each slot still leased to the
     * group (or quarantined from it, by a releaseAll on another thread), as {@link #release(Collection)} does.
     */
    void releaseGroup(PageGroup group) {
        if (closed) {
            closeKeptGroup(group);
            return;
        }
        Lease lease = group.lease;
        if (lease.thread != null && lease.thread != Thread.currentThread() && lease.thread.isAlive()) {
            throw new WrongThreadException("page group of memory manager '" + name + "' is confined to thread '"
                    + lease.thread.getName() + "'; close it from that thread, or build the manager with PageAccess.SHARED");
        }
        if (!group.beginClose()) {
            if (closed) {
                return;
            }
            throw new IllegalStateException("page group of memory manager '" + name + "' was already released"
                    + (group.wasRevoked() ? ", by releaseAll of its owner"
                    : group.isReleased() ? " (closed twice)" : ", or is being closed by another thread"));
        }
        revokeClosingGroup(group, lease);
        // Usually every slot is still the group's: then they all go back as they are, with no copy. A slot
        // releaseAll took meanwhile (another thread's) is left out, and those after it are copied.
        int[] slots = group.slots;
        int[] released = slots;
        int found = 0;
        for (int i = 0; i < slots.length; i++) {
            if (takeGroupSlot(slots[i], lease)) {
                if (released != slots) {
                    released[found] = slots[i];
                }
                found++;
            } else if (released == slots) {
                released = Arrays.copyOf(slots, slots.length);
            }
        }
        recycleAll(released, found);
        if (found == 0 && !closed) {
            throw new IllegalStateException("page group of memory manager '" + name + "' was already released, by"
                    + " releaseAll of its owner");
        }
    }

    /**
     * {@link PageGroup#close()} after the manager's close. A group whose scope that close could not revoke
     * (confined to a thread that was alive then, or shared and held by a native call) was kept, and its close
     * did nothing: the group said it was alive and its segments worked until its thread ended. Its scope is
     * revoked now where this thread can (its own thread, or any for a shared group), so that it is released
     * as a close before the manager's would release it. Its slots went when the manager closed; its memory
     * stays until the cleaner of that close sees nothing reach it. Anything else does nothing, as after close.
     */
    private void closeKeptGroup(PageGroup group) {
        Lease lease = group.lease;
        if (lease.arena == null || group.isReleased() || !lease.arena.scope().isAlive()
                || (lease.thread != null && lease.thread != Thread.currentThread())) {
            return;
        }
        if (!group.beginClose()) {
            return; // another close of it runs
        }
        revokeClosingGroup(group, lease);
    }

    /**
     * Revokes the scope of a group whose close has begun and marks it closed; a scope a native call holds
     * ends the close refused, the group as it was.
     */
    private void revokeClosingGroup(PageGroup group, Lease lease) {
        try {
            revoke(lease);
        } catch (IllegalStateException inUse) {
            group.closeRefused();
            throw inUseByNativeCall("page group", "close it", inUse);
        }
        group.closed();
    }

    /**
     * Empties a slot still leased to the group, or quarantined from it by a releaseAll on another thread.
     * Tried again when the compare-and-set fails: a releaseAll quarantining the slot between the read and the
     * compare-and-set left it quarantined with the group closed, stranded until the group's thread ended.
     *
     * @return whether this call emptied the slot (the caller recycles it)
     */
    private boolean takeGroupSlot(int slot, Lease lease) {
        while (true) {
            Object state = SLOT_STATE.getAcquire(slotState, stateIndex(slot));
            boolean quarantined = state instanceof Lease held && held != lease && held.isQuarantined()
                    && lease.arena != null && held.arena == lease.arena;
            if (state != lease && !quarantined) {
                return false; // taken by releaseAll or close, or handed to another owner since
            }
            if (SLOT_STATE.compareAndSet(slotState, stateIndex(slot), state, null)) {
                if (quarantined) {
                    quarantinedPages.decrementAndGet();
                }
                return true;
            }
        }
    }

    /**
     * Makes a page leased, unless the manager closed meanwhile. A close() that began after this thread's
     * open check scans the slots for leases to revoke and then frees the memory: a lease published after
     * its scan passed the slot would hand out a page over freed memory. The volatile write and read make
     * one of the two see the other: close's scan finds the lease, or this finds the manager closed.
     *
     * @throws IllegalStateException if the manager closed meanwhile; the page is not handed out then
     */
    private void publishLease(int slot, Lease lease) {
        SLOT_STATE.setVolatile(slotState, stateIndex(slot), lease);
        if (closed) {
            refuseLeaseAfterClose(slot, lease);
        }
    }

    private void refuseLeaseAfterClose(int slot, Lease lease) {
        // if close's scan took the lease, it revoked it (or keeps the chunk until this thread ends); revoke
        // tolerates an arena the scan closed meanwhile
        if (SLOT_STATE.compareAndSet(slotState, stateIndex(slot), lease, null)) {
            if (lease.arena == null) {
                dropHeapArray(slot);
            } else {
                revoke(lease);
            }
        }
        throw new IllegalStateException("memory manager '" + name + "' is closed");
    }

    /**
     * Where a slot's state lives, past 16 unused entries. Those keep every slot off the cache line of
     * the array's header, which each access reads (length for the bounds check, class for the type
     * check): a slot there made two threads that allocate and release pages each slow the other down.
     * 16 unused entries at the end do the same for the object that follows the array.
     *
     * <p>With pages of {@link #OWN_LINE_MIN_PAGE_SIZE} or more, each slot has a cache line of the table
     * to itself (16 entries, 64 bytes: at most 0.4% of the page). With smaller pages, whose table would
     * cost too much heap that way, the index is the slot number with its low bits moved up: a
     * permutation of the (power-of-two) table in which slot s and s + 1 are 16 entries apart, so that
     * threads holding a page or two each do not share a line; threads holding many pages each do.
     */
    private int stateIndex(int slot) {
        return STATE_SPREAD + (((slot & stateLowMask) << STATE_SPREAD_SHIFT) | (slot >>> stateLowBits));
    }

    /**
     * Finds the slot of a page, or throws IllegalArgumentException if it is not one of ours; -1 for a heap
     * page that a close() running meanwhile dropped.
     *
     * <p>The heap lookup and the messages live in methods of their own so that this one and the native
     * lookup stay small: as one method of 362 bytecodes it was over C2's size limit for inlining a hot
     * call (FreqInlineSize, 325), so every release paid a call and lost the page's escape and type
     * facts. Split, allocate + release of one page got 15-25% faster (the manager benchmark, see
     * docs/memory.md).
     */
    private int slotOf(MemorySegment page) {
        if (type == MemoryType.HEAP) {
            return heapSlotOf(page);
        }
        int slot = nativeSlotOf(page);
        if (slot < 0) {
            throw notAPage(page);
        }
        return slot;
    }

    /** @return the slot of a native or mapped page of ours, or -1 */
    private int nativeSlotOf(MemorySegment page) {
        long address = page.address();
        ChunkIndex index = chunkIndex;
        int position = index.positionOf(address);
        if (position < 0) {
            return -1;
        }
        long offset = address - index.bases[position];
        int number = index.chunkNumbers[position];
        if (offset < chunks[number].memory.byteSize() && (offset & (pageSize - 1)) == 0
                && page.byteSize() == pageSize && page.isNative()) {
            return (number << chunkShift) + (int) (offset >>> pageShift);
        }
        return -1;
    }

    private IllegalArgumentException notAPage(MemorySegment page) {
        return new IllegalArgumentException("segment " + page + " is not a page of memory manager '" + name
                + "' (pages are " + pageSize + "-byte segments returned by allocatePage/allocatePages, not slices)");
    }

    private int heapSlotOf(MemorySegment page) {
        Object base = page.heapBase().orElse(null);
        Integer slot = null;
        if (base instanceof byte[] array && page.byteSize() == pageSize) {
            synchronized (heapSlots) {
                slot = heapSlots.get(array);
                if (slot == null && releasedHeapArrays.containsKey(array)) {
                    if (closed) {
                        return -1; // close dropped the page meanwhile: a release racing close does nothing, as after it
                    }
                    throw new IllegalStateException("heap page of memory manager '" + name
                            + "' was already released (double release); segment " + page);
                }
            }
        }
        if (slot == null) {
            throw new IllegalArgumentException("segment " + page + " is not a page held from memory manager '" + name
                    + "': never allocated here, or already released (heap pages are not reused)");
        }
        return slot;
    }

    /**
     * Why a segment over a page's memory, of the page's size, is not released: its scope is not the page's.
     * If the page is held and the segment's scope is alive, the segment is not one the manager handed out (made
     * from the page's address, or reinterpreted into another arena's scope): IllegalArgumentException, the page
     * stays held. It was reported as a double release (IllegalStateException) of a page nobody had released.
     * Else it is a segment of the page's earlier lease, whose scope its release closed: a double release.
     */
    private RuntimeException notHeldThroughThisSegment(MemorySegment page, int slot, Object state) {
        if (state instanceof Lease && page.scope().isAlive()) {
            return new IllegalArgumentException("segment " + page + " is not a page of memory manager '" + name
                    + "': it lies over page " + slot + ", which is held, but is not the segment allocatePage or"
                    + " allocatePages returned for it (one made from its address, or reinterpreted into another"
                    + " scope; or a segment of a release before, confined to a thread that has ended); the page"
                    + " stays held");
        }
        return alreadyReleased(page, slot);
    }

    private IllegalStateException alreadyReleased(MemorySegment page, int slot) {
        return new IllegalStateException("page " + slot + " of memory manager '" + name
                + "' was already released (double release); segment " + page);
    }

    /** Closes the scope of a leased page; throws WrongThreadException for a page confined to another thread. */
    private static void revoke(Lease lease) {
        if (lease.arena == null) {
            return;
        }
        try {
            lease.arena.close();
        } catch (WrongThreadException e) {
            if (lease.thread.isAlive()) {
                throw e;
            }
            // The only thread that could reach this segment has ended: nobody can access it any more.
        } catch (IllegalStateException e) {
            if (lease.arena.scope().isAlive()) {
                throw e;
            }
            // closed already: by an allocation that found the manager closed after publishing it (publishLease)
        }
    }

    /**
     * {@link #revoke} for the passes over many pages (releaseAll, close, recycling quarantined pages), from any
     * thread: a page confined to another thread that has ended is left as it is without asking the JDK, as
     * revoke leaves it after the JDK refused to close its scope. That refusal built a WrongThreadException,
     * stack trace and all, for every page: a microsecond each, 10,000 for a releaseAll of 10,000 pages.
     * Nothing can reach such a page any more. (The release fast path calls revoke as it is.)
     */
    private static void revokeAnywhere(Lease lease) {
        Thread thread = lease.thread;
        if (thread != null && thread != Thread.currentThread() && !thread.isAlive()) {
            return;
        }
        revoke(lease);
    }

    /**
     * Marks the group of a revoked group lease released. Needed where the scope stays open: a CONFINED
     * group whose thread ended cannot have its scope closed by another thread (revoke tolerates that), and
     * the group, which asked its scope, said it was alive and handed out segments over pages that went
     * back to the manager. A single page's lease does nothing here.
     */
    private static void revokedGroup(Lease lease) {
        if (lease instanceof GroupLease groupLease) {
            groupLease.group.revoked();
        }
    }

    /** Returns released slots to the caller's cache and the rest to the pool, with their budget. */
    private void recycleAll(int[] slots, int count) {
        if (type == MemoryType.HEAP) {
            for (int i = 0; i < count; i++) {
                recycle(slots[i]);
            }
            return;
        }
        Magazine magazine = magazine();
        int cached = magazine == null ? 0 : magazine.putAll(slots, count);
        int pooled = count - cached;
        if (pooled > 0) {
            freeSlots.pushAll(slots, cached, pooled);
            budget.releaseForManager((long) pooled << pageShift);
        }
    }

    /** Returns a released slot to the caller's cache or to the pool, with its budget. */
    private void recycle(int slot) {
        if (type == MemoryType.HEAP) {
            dropHeapArray(slot);
            freeSlots.push(slot);
            budget.releaseForManager(pageSize);
            return;
        }
        Magazine magazine = magazine();
        if (magazine == null || !magazine.put(slot)) {
            freeSlots.push(slot);
            budget.releaseForManager(pageSize);
        }
    }

    private void dropHeapArray(int slot) {
        synchronized (heapSlots) {
            byte[] array = heapArrays[slot];
            heapSlots.remove(array);
            releasedHeapArrays.put(array, Boolean.TRUE);
            heapArrays[slot] = null;
        }
    }

    /**
     * Releases a leased slot on behalf of releaseAll: quarantines it if the JDK does not allow revoking it here
     * (confined to another live thread, or a shared page held by a native call).
     */
    private void forceRelease(int slot, Lease lease) {
        // Revoked (or found not revocable) with the lease still in its slot, which then changes in one
        // compare-and-set. Emptied first and marked quarantined only after a refused revocation, the slot hid the
        // page meanwhile from a close() scanning for pages to revoke or keep, which then freed the memory under
        // the thread still using it (and from the owner's own release, which found it "already released").
        boolean revoked = lease.thread == null || lease.thread == Thread.currentThread() || !lease.thread.isAlive();
        if (revoked) {
            try {
                revokeAnywhere(lease);
            } catch (IllegalStateException inUse) {
                // a shared page in a native call (its scope is acquired): thrown on, it left the owner's other
                // pages unreleased, and this one (emptied) neither leased nor free for good
                revoked = false;
            }
        }
        if (!revoked) {
            quarantinedPages.incrementAndGet();
            if (!SLOT_STATE.compareAndSet(slotState, stateIndex(slot), lease, lease.quarantined())) {
                quarantinedPages.decrementAndGet(); // released meanwhile, by its holder or by close
            }
            return;
        }
        revokedGroup(lease); // before the page can go to another owner
        if (SLOT_STATE.compareAndSet(slotState, stateIndex(slot), lease, null)) {
            recycle(slot);
        }
    }

    /**
     * Revokes a quarantined page and recycles it.
     *
     * @throws IllegalStateException if a native call still holds the page (its scope is acquired); it stays quarantined
     */
    private void releaseQuarantined(int slot, Lease quarantined) {
        revokeAnywhere(quarantined);
        revokedGroup(quarantined); // a group's: its thread ended, or a native call no longer holds it
        if (SLOT_STATE.compareAndSet(slotState, stateIndex(slot), quarantined, null)) {
            quarantinedPages.decrementAndGet();
            recycle(slot);
        }
    }

    /** Makes quarantined pages of ended threads, and shared ones no native call holds any more, reusable. */
    private void recycleQuarantinedOfEndedThreads() {
        if (quarantinedPages.get() == 0) {
            return;
        }
        for (int slot = 0; slot < totalPages; slot++) {
            if (SLOT_STATE.getAcquire(slotState, stateIndex(slot)) instanceof Lease lease && lease.isQuarantined()
                    && (lease.thread == null || !lease.thread.isAlive())) {
                try {
                    releaseQuarantined(slot, lease);
                } catch (IllegalStateException inUse) {
                    // a shared page whose native call has not returned yet: it stays quarantined
                }
            }
        }
    }

    /** Revokes one page at close; returns false if it is confined to a live thread and must be retained. */
    private boolean revokeAtClose(int slot, Lease lease) {
        if (type == MemoryType.HEAP) {
            dropHeapArray(slot);
            SLOT_STATE.setRelease(slotState, stateIndex(slot), null);
            return true;
        }
        if (lease.thread != null && lease.thread != Thread.currentThread() && lease.thread.isAlive()) {
            // confined to a live thread: its scope cannot be closed from here. Asked first, not tried: the JDK
            // builds a WrongThreadException, stack trace and all, for every page it refuses to close. The slot
            // lets go of the lease, which holds the thread (and its confined scope, the thread too): kept, it
            // made the thread reachable for as long as the closed manager was, and the chunk stayed
            keepAtClose(slot, lease.thread);
            return false;
        }
        try {
            revokeAnywhere(lease);
            revokedGroup(lease);
            SLOT_STATE.setRelease(slotState, stateIndex(slot), null);
            return true;
        } catch (IllegalStateException inUse) {
            // a shared page held by a running native call (its scope is acquired): it cannot be closed now,
            // and close must go on; the chunk stays until nothing can reach the page's scope any more, so
            // the slot lets go of the lease (which holds the scope)
            keepAtClose(slot, lease.arena.scope());
            return false;
        }
    }

    /** Keeps the chunk of a page close cannot revoke until the cleaner sees {@code reachable} unreachable. */
    private void keepAtClose(int slot, Object reachable) {
        Chunk chunk = chunks[slot >>> chunkShift];
        chunk.retained.incrementAndGet();
        RETAINED_MEMORY_CLEANER.register(reachable, keptPageFreed(chunk, quarantinedPages));
        SLOT_STATE.setRelease(slotState, stateIndex(slot), null);
    }

    /**
     * The cleaner's action for a page whose memory close kept: the page no longer counts in
     * {@link #quarantinedPages()}, and its chunk is freed once no kept page is left in it. Static, so that
     * it holds the chunk and the counter, not the closed manager.
     */
    private static Runnable keptPageFreed(Chunk chunk, AtomicInteger quarantinedPages) {
        return () -> {
            quarantinedPages.decrementAndGet();
            chunk.releaseRetained();
        };
    }

    private void returnSlots(int[] slots, int from, int count) {
        // after close nothing goes back: close returns the whole budget, and a release racing its own would
        // make it over-release
        if (count > 0 && !closed) {
            freeSlots.pushAll(slots, from, count);
            budget.releaseForManager((long) count << pageShift);
        }
    }

    // =================================================================== internals: budget and spilling

    /**
     * Reserves {@code bytes} from the budget, asking other owners to spill if it refuses.
     *
     * @param what     the request, as a refusal names it
     * @param taken    bytes of the request already held in the budget (free pages it took from the caller's
     *                 cache): a refusal reports them as requested, not as used, since they go back
     */
    private void reserveOrSpill(OwnerRecord requester, long bytes, String what, long taken) {
        if (budget.tryReserveForManager(bytes)) {
            return;
        }
        // Quarantined pages come back through the caller's cache, so recycle them before draining caches.
        recycleQuarantinedOfEndedThreads();
        drainMagazines();
        if (budget.tryReserveForManager(bytes)) {
            return;
        }
        int[] depth = spillDepth.get();
        List<String> asked = new ArrayList<>();
        if (depth[0] == 0) {
            List<OwnerRecord> withCallbacks = new ArrayList<>();
            for (OwnerRecord record : owners.values()) {
                if (record != requester && record.callback != null) {
                    withCallbacks.add(record);
                }
            }
            Map<OwnerRecord, Long> pagesAtStart = countPagesByOwner();
            List<OwnerRecord> candidates = Budget.largestFirst(withCallbacks,
                    record -> usedBytesOf(record, pagesAtStart)).stream().map(Map.Entry::getKey).toList();
            for (OwnerRecord candidate : candidates) {
                // read once: a callback asked before this one (or another thread) may have removed it, or released
                // its owner, which forgets it, since the candidates were chosen; re-read, a removed one was called
                // as null (a NullPointerException logged as its failure and counted as a spill)
                SpillCallback callback = candidate.callback;
                if (callback == null || candidate.state == OwnerRecord.FORGOTTEN) {
                    continue;
                }
                // never negative: another thread may release bytes between the refusal and this read
                long needed = Math.max(bytes - budget.available(), 0);
                SpillEvent event = new SpillEvent();
                long freed;
                beginSpill(candidate);
                try {
                    event.begin();
                    depth[0]++;
                    try {
                        callback.spill(this, needed);
                    } catch (Exception e) {
                        // checked ones too: a callback in a language without checked exceptions (or a sneaky throw)
                        // throws an IOException from its spill file; let through, it skipped the clean-up of
                        // allocatePages, which lost the free pages the request had taken from the thread's cache
                        LOG.log(System.Logger.Level.WARNING, "spill callback of owner '" + candidate.label
                                + "' in memory manager '" + name + "' failed", e);
                    } finally {
                        depth[0]--;
                        // the event's duration is the callback's (SpillEvent's description), not the drain and page
                        // table pass that count what it freed
                        event.end();
                    }
                    drainMagazines();
                } finally {
                    // an Error from the callback ends the request here, but the callback was invoked and may have
                    // released memory first: it is counted as every other spill is (left out, spillCount, spilledBytes
                    // and the Spill events said no callback had been asked)
                    freed = endSpill(candidate);
                    countSpill(event, requester, candidate, needed, freed);
                }
                asked.add(candidate.label + " (gave back " + ByteSize.format(freed) + ")");
                if (budget.tryReserveForManager(bytes)) {
                    return;
                }
            }
        }
        throw refused(requester, bytes + taken, what, budget.used() - taken, asked);
    }

    /** Counts one invocation of a spill callback and records its JFR event. */
    private void countSpill(SpillEvent event, OwnerRecord requester, OwnerRecord candidate, long wanted, long freed) {
        spills.increment();
        spilledBytes.add(freed);
        if (event.shouldCommit()) {
            event.manager = name;
            event.requester = requester.label;
            event.spillingOwner = candidate.label;
            event.wantedBytes = wanted;
            event.freedBytes = freed;
            event.commit();
        }
    }

    /**
     * Starts measuring what a spill of {@code record} gives back. Spills of one owner that run at once (requests
     * failing on several threads) share their measurements: the first to begin takes the owner's use, and each
     * one that ends counts the drop since the last measurement and takes the use again (see {@link #endSpill}).
     * Each measured from its own start, two spills at once both counted the bytes the owner gave back in either.
     * The record's lock is held for a pass over the page table, never across a callback.
     */
    private void beginSpill(OwnerRecord record) {
        synchronized (record) {
            if (record.spillsRunning++ == 0) {
                // quarantined first: a page quarantined in between then counts as quarantined since, not as freed
                record.spillMarkQuarantined = quarantinedPages.get();
                record.spillMarkBytes = usedBytesOf(record);
            }
        }
    }

    /**
     * Ends a spill of {@code record} that {@link #beginSpill} started.
     *
     * @return the bytes the owner gave back since the last measurement of a spill of it, less its pages
     *         quarantined meanwhile (a releaseAll of pages confined to a live thread: they left the owner but are
     *         not free, and count in the budget until their thread releases them or ends); at least 0
     */
    private long endSpill(OwnerRecord record) {
        synchronized (record) {
            long used = usedBytesOf(record);
            int quarantined = quarantinedPages.get();
            long quarantinedSince = Math.max(0, quarantined - record.spillMarkQuarantined);
            long freed = Math.max(0, record.spillMarkBytes - used - (quarantinedSince << pageShift));
            record.spillMarkBytes = used;
            record.spillMarkQuarantined = quarantined;
            record.spillsRunning--;
            return freed;
        }
    }

    /** @return the bytes {@code record} uses now, its pages (counted by a pass over the page table) and reservations */
    private long usedBytesOf(OwnerRecord record) {
        long pages = 0;
        for (int slot = 0; slot < totalPages; slot++) {
            if (SLOT_STATE.getAcquire(slotState, stateIndex(slot)) instanceof Lease lease && lease.ownerNow() == record) {
                pages++;
            }
        }
        return (pages << pageShift) + record.reservedBytes.get();
    }

    /** Counts a final refusal and records its JFR event (every refusal has one); returns the exception to throw. */
    private BudgetExceededException refused(OwnerRecord requester, long bytes, String what, long used, List<String> asked) {
        failures.increment();
        PageAllocationFailedEvent event = new PageAllocationFailedEvent();
        if (event.shouldCommit()) {
            event.manager = name;
            event.owner = requester.label;
            event.requestedBytes = bytes;
            event.usedBytes = used;
            event.limitBytes = totalBytes;
            event.commit();
        }
        return exceeded(requester, bytes, what, used, asked);
    }

    private BudgetExceededException exceeded(OwnerRecord requester, long bytes, String what, long used, List<String> asked) {
        StringBuilder sb = new StringBuilder()
                .append("memory manager '").append(name).append("' cannot give ").append(what).append(" (")
                .append(ByteSize.format(bytes)).append(") to owner '").append(requester.label).append("': limit ")
                .append(ByteSize.format(totalBytes)).append(", used ").append(ByteSize.format(used))
                .append(" (").append(usedPages()).append(" of ").append(totalPages).append(" pages held");
        if (quarantinedPages.get() > 0) {
            sb.append(", ").append(quarantinedPages.get()).append(" quarantined");
        }
        sb.append("); biggest owners: ");
        int named = 0;
        for (Map.Entry<String, Long> entry : usageByOwner().entrySet()) {
            if (named == OWNERS_NAMED_IN_MESSAGES || entry.getValue() == 0) {
                break;
            }
            sb.append(named == 0 ? "" : ", ").append(entry.getKey()).append(' ').append(ByteSize.format(entry.getValue()));
            named++;
        }
        if (named == 0) {
            sb.append("none");
        }
        // children of the manager's budget draw from it too, leaving fewer pages free: without them a refusal
        // could say "used 1.0 MiB (0 of 256 pages held); biggest owners: none", naming no one who held the bytes
        int children = 0;
        for (Map.Entry<Budget, Long> child : Budget.largestFirst(budget.children(), Budget::reserved)) {
            if (children == OWNERS_NAMED_IN_MESSAGES || child.getValue() == 0) {
                break;
            }
            sb.append(children == 0 ? "; child budgets: " : ", ").append(child.getKey().name()).append(' ')
                    .append(ByteSize.format(child.getValue()));
            children++;
        }
        sb.append("; spill callbacks asked: ").append(asked.isEmpty() ? "none" : String.join(", ", asked));
        return new BudgetExceededException(sb.toString(), budget.path(), bytes, totalBytes, used);
    }

    /**
     * Counts each owner's pages by a pass over the page table. Owners' page counts are needed only on
     * slow paths (statistics, spill order, failure and leak reports), so the allocate and release fast
     * paths keep no per-owner counter that threads would contend on.
     */
    private Map<OwnerRecord, Long> countPagesByOwner() {
        Map<OwnerRecord, Long> counts = new IdentityHashMap<>();
        for (int slot = 0; slot < totalPages; slot++) {
            if (SLOT_STATE.getAcquire(slotState, stateIndex(slot)) instanceof Lease lease
                    && lease.ownerNow() instanceof OwnerRecord owner) {
                counts.merge(owner, 1L, Long::sum);
            }
        }
        return counts;
    }

    private long usedBytesOf(OwnerRecord record, Map<OwnerRecord, Long> pagesByOwner) {
        return (pagesByOwner.getOrDefault(record, 0L) << pageShift) + record.reservedBytes.get();
    }

    // =================================================================== internals: owners and caches

    private OwnerRecord record(Object owner) {
        return record(owner, magazine());
    }

    /** Looks up the owner's record, through the last-owner memo of the caller's cache when it has one. */
    private OwnerRecord record(Object owner, Magazine magazine) {
        if (magazine != null && magazine.lastOwner == owner && magazine.lastRecord.state != OwnerRecord.FORGOTTEN) {
            return magazine.lastRecord;
        }
        OwnerRecord record = owners.get(owner);
        if (record == null || record.state == OwnerRecord.FORGOTTEN) {
            record = freshRecord(owner, record);
        }
        if (magazine != null) {
            magazine.lastOwner = owner;
            magazine.lastRecord = record;
        }
        return record;
    }

    /**
     * The owner's record: the one in the table unless it was forgotten, else a new one. A new one can start a
     * sweep of the records of owners that hold nothing ({@link #sweepOwnerRecords}).
     *
     * @param forgotten a forgotten record of the owner the caller saw in the table, or null
     */
    private OwnerRecord freshRecord(Object owner, OwnerRecord forgotten) {
        if (forgotten != null) {
            // dropped by a sweep (which takes it out of the table right after) or forgotten by releaseAll
            owners.remove(owner, forgotten);
        }
        while (true) {
            OwnerRecord record = owners.get(owner);
            if (record == null) {
                OwnerRecord made = new OwnerRecord(owner);
                record = owners.putIfAbsent(owner, made);
                if (record == null) {
                    if (owners.size() > ownerSweepThreshold) {
                        sweepOwnerRecords(made);
                    }
                    return made;
                }
            }
            if (record.state != OwnerRecord.FORGOTTEN) {
                return record;
            }
            owners.remove(owner, record);
        }
    }

    /**
     * Keeps a record that the caller has just made hold something (a lease published, bytes added, a callback
     * set) from being dropped by a sweep that saw it hold nothing: a sweep that marked it is called off; see
     * {@link OwnerRecord#state}.
     *
     * @return true if the record stays; false if it was forgotten (a sweep dropped it, or releaseAll forgot it)
     */
    private static boolean keep(OwnerRecord record) {
        while (true) {
            int state = record.state;
            if (state == OwnerRecord.LIVE) {
                return true;
            }
            if (state == OwnerRecord.FORGOTTEN) {
                return false;
            }
            if (OwnerRecord.STATE.compareAndSet(record, OwnerRecord.SWEEPING, OwnerRecord.LIVE)) {
                return true;
            }
        }
    }

    /**
     * After a lease of a record not seen live was published: keeps the record, or moves the lease to the owner's
     * record of now if the record was forgotten meanwhile, so that the page counts for its owner (its use, its
     * releaseAll, the leak report of close) and not for a record nobody finds. A releaseAll that took the page
     * meanwhile has revoked it: moving the lease that is no longer in its slot changes nothing then.
     */
    private void keepLease(Lease lease) {
        OwnerRecord record = lease.owner;
        while (!keep(record)) {
            record = freshRecord(record.owner, record);
            // volatile: a sweep that marks the new record then reads the lease's owner sees it (see OwnerRecord#state)
            Lease.OWNER.setVolatile(lease, record);
        }
    }

    /**
     * After {@code bytes} were added to a record not seen live: keeps the record, or moves the bytes to the owner's
     * record of now if the record was forgotten meanwhile. A sweep drops only a record that reserves nothing,
     * so the bytes are still there, unless releaseAll took them (and gave them back to the budget): then the
     * reservation went with the rest of the owner's, as for a reserve that returned before it.
     */
    private void keepReservation(OwnerRecord record, long bytes) {
        while (!keep(record)) {
            long current;
            do {
                current = record.reservedBytes.get();
                if (current < bytes) {
                    return; // releaseAll took them
                }
            } while (!record.reservedBytes.compareAndSet(current, current - bytes));
            record = freshRecord(record.owner, record);
            record.reservedBytes.addAndGet(bytes);
        }
    }

    /**
     * Drops the records of owners that hold nothing (no page, no reservation, no spill callback) and raises the
     * threshold of the next sweep to twice the records left, at least {@link #MIN_OWNER_SWEEP_THRESHOLD} and one
     * per {@link #PAGES_PER_SWEPT_RECORD} pages: its pass over the page table costs a few reads per new owner
     * since the last one. One thread sweeps at a time; another that would start a sweep meanwhile goes on.
     *
     * <p>The allocate and release paths take no lock for this: a record to be dropped is marked
     * {@link OwnerRecord#SWEEPING} first, then the page table is read; a thread that makes a record hold something
     * publishes that first, then reads the mark and calls the sweep of that record off ({@link #keep}), or moves
     * what it published to the owner's new record if the sweep dropped it. Volatile on both sides, one of the two
     * always sees the other.
     *
     * @param spare a record just made, for an owner about to use it: not dropped; or null
     * @return how many records it dropped, or -1 if another thread was sweeping (then this one did nothing)
     */
    private int sweepOwnerRecords(OwnerRecord spare) {
        if (!sweepingOwners.compareAndSet(false, true)) {
            return -1;
        }
        int dropped = 0;
        List<OwnerRecord> marked = new ArrayList<>();
        try {
            for (OwnerRecord record : owners.values()) {
                if (record != spare && record.callback == null && record.reservedBytes.get() == 0
                        && OwnerRecord.STATE.compareAndSet(record, OwnerRecord.LIVE, OwnerRecord.SWEEPING)) {
                    marked.add(record);
                }
            }
            if (!marked.isEmpty()) {
                Set<OwnerRecord> holding = Collections.newSetFromMap(new IdentityHashMap<>());
                for (int slot = 0; slot < totalPages; slot++) {
                    if (SLOT_STATE.getVolatile(slotState, stateIndex(slot)) instanceof Lease lease
                            && lease.ownerNow() instanceof OwnerRecord owner) {
                        holding.add(owner);
                    }
                }
                for (OwnerRecord record : marked) {
                    boolean idle = !holding.contains(record) && record.callback == null
                            && record.reservedBytes.get() == 0 && !isSpilling(record);
                    if (idle && OwnerRecord.STATE.compareAndSet(record, OwnerRecord.SWEEPING, OwnerRecord.FORGOTTEN)) {
                        owners.remove(record.owner, record);
                        dropped++;
                    } else {
                        OwnerRecord.STATE.compareAndSet(record, OwnerRecord.SWEEPING, OwnerRecord.LIVE);
                    }
                }
            }
            ownerSweepThreshold = ownerSweepThresholdFor(owners.size());
        } finally {
            // a sweep that failed midway (an OutOfMemoryError) leaves no record marked: a marked one could never
            // be dropped by a later sweep
            for (OwnerRecord record : marked) {
                OwnerRecord.STATE.compareAndSet(record, OwnerRecord.SWEEPING, OwnerRecord.LIVE);
            }
            sweepingOwners.set(false);
        }
        return dropped;
    }

    /**
     * Runs a sweep of the records of owners that hold nothing now, whatever the threshold: a seam for tests
     * (offheap-jcstress races it against the paths that make a record hold something). Thread-safe, as a sweep
     * started by a new owner is.
     *
     * @return how many records it dropped, or -1 if another thread was sweeping (then this call did nothing)
     */
    int sweepOwnerRecordsNow() {
        return sweepOwnerRecords(null);
    }

    private int ownerSweepThresholdFor(int records) {
        return Math.max(Math.max(MIN_OWNER_SWEEP_THRESHOLD, totalPages / PAGES_PER_SWEPT_RECORD),
                (int) Math.min(Integer.MAX_VALUE, 2L * records));
    }

    private static boolean isSpilling(OwnerRecord record) {
        synchronized (record) {
            return record.spillsRunning > 0;
        }
    }

    /** @return this thread's page cache, or null for heap memory and virtual threads (which would strand pages) */
    private Magazine magazine() {
        if (type == MemoryType.HEAP) {
            return null;
        }
        Thread thread = Thread.currentThread();
        // A racy read is safe: Magazine.thread is final, so a published cache is seen whole.
        Magazine magazine = magazineTable[(int) thread.threadId() & (MAGAZINE_TABLE_SIZE - 1)];
        if (magazine != null && magazine.thread == thread) {
            return magazine;
        }
        return magazineOfNewOrCollidingThread(thread);
    }

    private Magazine magazineOfNewOrCollidingThread(Thread thread) {
        if (thread.isVirtual()) {
            return null;
        }
        Magazine magazine = magazines.get();
        if (magazine == null) {
            magazine = new Magazine(thread, magazineCapacity);
            magazines.set(magazine);
            allMagazines.add(magazine);
            // caches of ended threads were forgotten only when the budget ran short, and one that ended empty
            // holds no budget: a thread per task kept every ended thread (and its cache) on the heap for good
            if (magazinesCreated.incrementAndGet() % FORGET_ENDED_EVERY_NEW_MAGAZINES == 0) {
                drainMagazines(true);
            }
        }
        int index = (int) thread.threadId() & (MAGAZINE_TABLE_SIZE - 1);
        Magazine holder = magazineTable[index];
        if (holder == null || !holder.thread.isAlive()) {
            MAGAZINE_TABLE.compareAndSet(magazineTable, index, holder, magazine);
        }
        return magazine;
    }

    /** Returns every thread's cached pages to the pool; forgets caches of ended threads. */
    private void drainMagazines() {
        drainMagazines(false);
    }

    /**
     * Returns cached pages to the pool and forgets the caches of ended threads: those of every thread, or
     * with {@code endedOnly} only those of ended threads. A cache is drained before it is forgotten:
     * cachedPages() counts its pages till then.
     */
    private void drainMagazines(boolean endedOnly) {
        for (Magazine magazine : allMagazines) {
            // Thread termination happens-before isAlive() returning false: an ended thread's last writes are visible.
            boolean ended = !magazine.thread.isAlive();
            if (endedOnly && !ended) {
                continue;
            }
            int drained = magazine.drainTo(freeSlots);
            if (drained > 0) {
                budget.releaseForManager((long) drained << pageShift);
            }
            if (ended) {
                allMagazines.remove(magazine);
            }
        }
    }

    // =================================================================== internals: memory

    private Chunk allocateNativeChunk() {
        int number = chunksAllocated;
        long bytes = Math.min(chunkBytes, totalBytes - (long) number * chunkBytes);
        Arena arena = Arena.ofShared();
        MemorySegment memory;
        try {
            memory = arena.allocate(bytes, Math.min(pageSize, 4096));
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new OutOfMemoryError("memory manager '" + name + "' could not obtain " + ByteSize.format(bytes)
                    + " of native memory from the system: " + e.getMessage());
        }
        return new Chunk(number, memory, arena);
    }

    private Chunk mapFile(Path file, long bytes) {
        if (file == null) {
            throw new IllegalArgumentException("memory type MAPPED needs a file: call mappedFile(path)");
        }
        if (file.getFileSystem() != FileSystems.getDefault()) {
            throw new IllegalArgumentException("mapped file " + file.toUri() + " is not on the default file system;"
                    + " only a file there can be mapped");
        }
        Path absolute = file.toAbsolutePath();
        // the header, then the pages: page i at MappedFileHeader.BYTES + i * pageSize
        long fileBytes = MappedFileHeader.BYTES + bytes;
        try {
            if (Files.isDirectory(absolute)) {
                throw new IllegalArgumentException("mapped file " + absolute + " is a directory");
            }
            boolean existed = Files.exists(absolute);
            if (existed && !Files.isRegularFile(absolute)) {
                throw new IllegalArgumentException("mapped file " + absolute + " is not a regular file (a device, a FIFO"
                        + " or a socket)");
            }
            // A dangling symlink's file is created where the link points: its directory, and the file system whose
            // free space counts, are the target's (the link's own file system refused a file bound for another).
            Path createdAt = existed ? absolute : danglingLinkTarget(absolute);
            String named = createdAt == absolute ? absolute.toString()
                    : absolute + " (a symbolic link to " + createdAt + ")";
            Path directory = createdAt.getParent();
            if (!existed && directory != null && !Files.isDirectory(directory)) {
                // the file is created, its directories are not: the system's refusal named only the file
                throw new IllegalArgumentException("cannot create mapped file " + named + ": "
                        + (Files.exists(directory) ? "its parent " + directory + " is not a directory"
                        : "its directory " + directory + " does not exist")
                        + " (a mapped file is created if missing, its directories are not)");
            }
            if (!existed && directory != null) {
                long usable = Files.getFileStore(directory).getUsableSpace();
                if (usable < fileBytes) {
                    throw new IllegalArgumentException("cannot create mapped file " + named + " of " + ByteSize.format(fileBytes)
                            + ": its file system has only " + ByteSize.format(usable) + " free");
                }
            }
            // Whether this build created the file is what open says, not what a check before it saw: another
            // process may create the file in between, and a dangling symlink "does not exist" but is the user's.
            OpenedFile opened;
            Object fileKey;
            MappedFileUse fileUse;
            synchronized (MAPPED_FILES) {
                // A file a live manager of this JVM maps is refused before it is opened: where the manager's lock is
                // a POSIX one (see lockForManager), closing any descriptor of the file (this build's channel) would
                // drop it, and another process could then map the bytes the manager hands out.
                Object before = fileKey(absolute);
                if (before != null && MAPPED_FILES.containsKey(before)) {
                    throw fileInUse(absolute, MAPPED_FILES.get(before));
                }
                opened = openOrCreate(absolute);
                // the key of the file opened (the descriptor's, where there is one), not of what the path names now
                fileKey = fileKey(opened.descriptor() != null ? opened.descriptor().path() : absolute);
                MappedFileUse holder = fileKey == null ? null : MAPPED_FILES.get(fileKey);
                if (fileKey == null || holder != null) {
                    // removed since it was opened, or replaced by a file in use here: nothing of ours to map
                    opened.close();
                    if (fileKey == null) {
                        throw new NoSuchFileException(absolute.toString(), null, "removed while it was opened");
                    }
                    throw fileInUse(absolute, holder);
                }
                fileUse = new MappedFileUse(name);
                MAPPED_FILES.put(fileKey, fileUse);
            }
            FileChannel channel = opened.channel();
            FileSpace.Descriptor descriptor = opened.descriptor();
            Arena arena = Arena.ofShared();
            boolean mapped = false;
            // the file this build may remove if it fails: never one that another process holds
            Path created = opened.created();
            // An existing file this build may grow (empty, or a manager's shorter than its header says): a failure
            // leaves it at the length it had, with the header bytes it had (this build may rewrite or mark them).
            long lengthBefore = -1;
            ByteBuffer headerBefore = null;
            try {
                // Locked before anything is judged or changed, on the descriptor that reserves the blocks, for the
                // manager's life: a build in another process on the same new or empty file is refused before it
                // grows, reserves or shrinks it, and a file another process maps, asked for at a larger size, is
                // refused as in use, not as too small with the advice to delete it.
                boolean lockedForGood = false;
                if (descriptor != null) {
                    switch (descriptor.tryLock()) {
                        case TAKEN -> lockedForGood = true;
                        case HELD_ELSEWHERE -> {
                            created = null; // taken by another process since this build created it: its file now
                            throw fileLockedElsewhere(absolute);
                        }
                        case NOT_SUPPORTED -> {
                            // no such lock here: the channel's POSIX lock, taken once the blocks are reserved
                        }
                    }
                    if (lockedForGood && !fileKey.equals(fileKey(absolute))) {
                        // removed (by a failed build that created it, say) or replaced since it was opened: a manager
                        // on it would hold a file no other build can see, nor refuse
                        created = null;
                        throw new NoSuchFileException(absolute.toString(), null, "removed or replaced while it was opened");
                    }
                }
                // Without the lock above: the lock taken here is let go at once (closing FileSpace's descriptor would
                // drop it anyway) and taken for good once the file is mapped.
                if (!lockedForGood && lockedElsewhere(channel)) {
                    created = null;
                    throw fileLockedElsewhere(absolute);
                }
                long size = channel.size();
                // an existing empty file (Files.createTempFile's) has no contents to keep: it is made as a new one is
                boolean fresh = opened.created() != null || size == 0;
                if (!fresh) {
                    // Judged before anything of it changes: a file that is not a manager's (a wrong path to someone's
                    // data) is refused as it is, never grown, reserved, truncated or written. One that holds a header
                    // and no page (its build was killed right after writing it) is made again.
                    fresh = MappedFileHeader.check(channel, absolute, bytes);
                }
                if (opened.created() == null && size < fileBytes) {
                    headerBefore = ByteBuffer.allocate((int) Math.min(size, MappedFileHeader.BYTES));
                    while (headerBefore.hasRemaining()) {
                        if (channel.read(headerBefore, headerBefore.position()) < 0) {
                            throw new NoSuchFileException(absolute.toString(), null, "cut short while it was read");
                        }
                    }
                    headerBefore.flip();
                    lengthBefore = size;
                }
                if (fresh) {
                    // The header first, then the growth. A build killed at any point leaves the file empty (before
                    // the header: the next build makes it as a new one), or a header and at most the pages' room
                    // (killed while posix_fallocate grew it: the next build finds its header and grows it the rest of
                    // the way), never grown bytes without a header, which the next build would refuse as not a
                    // manager's file. No page is handed out before the file is whole, so a short file with a header
                    // holds no page a program wrote, unless its header says it was whole (see markWholeIfGrown
                    // below): then it was cut short after, and check refused it. A build that fails (not killed)
                    // cuts an existing file it grew back to its length and header, and removes a file it created.
                    MappedFileHeader.write(channel, pageSize, bytes);
                }
                // Take the file's blocks now: a sparse mapping faults (InternalError from a plain access)
                // when a page is first written after its file system filled up.
                if (descriptor != null) {
                    descriptor.reserve(fileBytes); // the file opened and locked, whatever its path names now
                } else {
                    FileSpace.reserve(absolute, fileBytes);
                }
                Runnable seam = afterMappedFileReserved;
                if (seam != null) {
                    seam.run();
                }
                // the pages only: the header is never a page's memory, nor counted as the manager's memory
                MemorySegment memory = channel.map(FileChannel.MapMode.READ_WRITE, MappedFileHeader.BYTES, bytes, arena);
                if (!lockedForGood) {
                    // Locked after reserve: closing any descriptor of a file drops this process's POSIX locks on it.
                    if (descriptor != null) {
                        descriptor.close();
                        descriptor = null;
                    }
                    if (!lockForManager(channel, absolute)) {
                        created = null; // taken by another process since the check above: its file now
                        lengthBefore = -1;
                        throw fileLockedElsewhere(absolute);
                    }
                }
                // Marked whole once reserved (or, where nothing is reserved, grown by the mapping) to its full length,
                // and locked: a later build tells this file, cut short, from one whose build stopped while it grew it.
                MappedFileHeader.markWholeIfGrown(channel);
                mapped = true;
                return new Chunk(0, memory, arena, channel, descriptor, fileKey, fileUse);
            } catch (FileSpace.FileSpaceException e) {
                throw new IllegalArgumentException("cannot create mapped file " + absolute + " of " + ByteSize.format(fileBytes)
                        + " for memory manager '" + name + "': " + e.getMessage(), e);
            } finally {
                if (!mapped) {
                    arena.close();
                    if (lengthBefore >= 0) {
                        // the blocks the build reserved (memory, in /dev/shm) go back; a failed build left them taken
                        restoreQuietly(channel, lengthBefore, headerBefore);
                    }
                    deleteIfCreated(created);
                    closeQuietly(channel);
                    if (descriptor != null) {
                        descriptor.close(); // the last: it holds the lock, which the steps above needed
                    }
                    releaseMappedFile(fileKey);
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot create or map file " + absolute + " for memory manager '" + name
                    + "': " + e, e);
        }
    }

    /**
     * @return where a file created through {@code path} would be: the end of its chain of symbolic links (as far
     *         as 40 links, the system's limit), or {@code path} itself if it is not a link
     */
    private static Path danglingLinkTarget(Path path) throws IOException {
        Path target = path;
        for (int links = 0; links < 40 && Files.isSymbolicLink(target); links++) {
            target = target.resolveSibling(Files.readSymbolicLink(target));
        }
        return target;
    }

    /**
     * A channel on the mapped file, the file this build created ({@code null} if it existed), and where
     * {@link FileSpace.Descriptor#supported()}, the descriptor the channel was opened from (else {@code null}),
     * which locks the file and reserves its blocks.
     */
    private record OpenedFile(FileChannel channel, Path created, FileSpace.Descriptor descriptor) {
        void close() {
            closeQuietly(channel);
            if (descriptor != null) {
                descriptor.close();
            }
        }
    }

    /**
     * Opens the file, creating it if missing (through a dangling symlink too: then the link's target is
     * created), and says which file the call created. Where {@link FileSpace.Descriptor#supported()}, the file is
     * opened once, as a descriptor, and the channel is opened on that descriptor's file: both are one file,
     * whatever is renamed over the path meanwhile.
     */
    private static OpenedFile openOrCreate(Path path) throws IOException {
        Path target = path;
        for (int attempt = 0; ; attempt++) {
            try {
                return open(target, true);
            } catch (FileAlreadyExistsException exists) {
                try {
                    return open(target, false);
                } catch (NoSuchFileException gone) {
                    // a dangling symlink (create its target), or a file removed since: try again, a few times
                    if (attempt >= 40) {
                        throw gone;
                    }
                    if (Files.isSymbolicLink(target)) {
                        target = target.resolveSibling(Files.readSymbolicLink(target));
                    }
                }
            }
        }
    }

    /**
     * @param createNew whether to create the file, failing if anything is at the path
     * @return the file opened for reading and writing, through a descriptor where one can be opened
     */
    private static OpenedFile open(Path path, boolean createNew) throws IOException {
        if (!FileSpace.Descriptor.supported()) {
            return new OpenedFile(createNew
                    ? FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE), createNew ? path : null, null);
        }
        FileSpace.Descriptor descriptor = FileSpace.Descriptor.open(path, createNew);
        try {
            FileChannel channel = FileChannel.open(descriptor.path(), StandardOpenOption.READ, StandardOpenOption.WRITE);
            return new OpenedFile(channel, createNew ? path : null, descriptor);
        } catch (IOException | RuntimeException | Error e) {
            descriptor.close();
            if (createNew) {
                deleteIfCreated(path);
            }
            throw e;
        }
    }

    /** @return what identifies the file {@code path} names (device and inode), or null if there is none */
    private static Object fileKey(Path path) throws IOException {
        try {
            Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            return key != null ? key : path.toRealPath();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Forgets a file of {@link #MAPPED_FILES}: only once its channel is closed, which drops the POSIX locks. */
    private static void releaseMappedFile(Object fileKey) {
        synchronized (MAPPED_FILES) {
            MAPPED_FILES.remove(fileKey);
        }
    }

    /** Cuts the file back to {@code length} and writes {@code header} (its first bytes as they were) back. */
    private static void restoreQuietly(FileChannel channel, long length, ByteBuffer header) {
        try {
            channel.truncate(length);
            while (header.hasRemaining()) {
                channel.write(header, header.position());
            }
        } catch (IOException ignored) {
            // the build's own failure is what the caller needs to see
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // the build's own failure is what the caller needs to see
        }
    }

    /** The refusal of a file that a manager of this JVM maps, open or closed (then kept for its pages' threads). */
    private static IllegalArgumentException fileInUse(Path file, MappedFileUse holder) {
        if (holder.managerClosed) {
            return new IllegalArgumentException("mapped file " + file + " is still mapped by memory manager '"
                    + holder.managerName + "', which is closed but keeps the mapping (and its lock on the file) for the"
                    + " pages it could not revoke: CONFINED pages of threads that were alive at its close, or pages a"
                    + " native call held; it lets go once those threads have ended and are collected (or those calls"
                    + " returned and nothing reaches their pages); give this one another file meanwhile");
        }
        return new IllegalArgumentException("mapped file " + file + " is in use by memory manager '" + holder.managerName
                + "' of this JVM (it holds a lock on the file); close that one first or give this one another file");
    }

    /** The refusal of a file that someone else locks: a manager in another process, as a rule. */
    private static IllegalArgumentException fileLockedElsewhere(Path file) {
        String holder = FileSpace.lockHolder(file);
        return new IllegalArgumentException("mapped file " + file + " is in use by another memory manager ("
                + (holder != null ? holder : "another process, or another channel of this JVM,")
                + " holds a lock on the file); close that one first or give this one another file");
    }

    /**
     * Takes an exclusive lock on the whole file, so that no other manager maps it while this one lives.
     *
     * @return false if someone else holds a lock on the file; true if this channel holds the lock now, or if the
     *         file system cannot lock (then the file is mapped without a lock)
     */
    private static boolean lockForManager(FileChannel channel, Path file) throws IOException {
        try {
            return channel.tryLock() != null;
        } catch (OverlappingFileLockException e) {
            return false; // held in this JVM
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot lock mapped file " + file + "; it is mapped without a lock", e);
            return true;
        }
    }

    /** @return whether someone else holds a lock on the file; this channel holds none afterwards */
    private static boolean lockedElsewhere(FileChannel channel) throws IOException {
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return true; // held in this JVM
        } catch (IOException e) {
            return false; // the file system cannot lock: lockForManager says so
        }
        if (lock == null) {
            return true;
        }
        lock.release();
        return false;
    }

    /** Removes a mapped file that a failed build created, so that a failure leaves no file behind. */
    private static void deleteIfCreated(Path created) {
        if (created != null) {
            try {
                Files.deleteIfExists(created);
            } catch (IOException ignored) {
                // the build's own failure is what the caller needs to see
            }
        }
    }

    private void addChunk(Chunk chunk) {
        chunks[chunk.number] = chunk;
        chunksAllocated = chunk.number + 1;
        allocatedBytes.addAndGet(chunk.memory.byteSize());
        ChunkIndex old = chunkIndex;
        int size = old.bases.length;
        long[] bases = Arrays.copyOf(old.bases, size + 1);
        int[] numbers = Arrays.copyOf(old.chunkNumbers, size + 1);
        int at = size;
        long base = chunk.memory.address();
        while (at > 0 && bases[at - 1] > base) {
            bases[at] = bases[at - 1];
            numbers[at] = numbers[at - 1];
            at--;
        }
        bases[at] = base;
        numbers[at] = chunk.number;
        chunkIndex = new ChunkIndex(bases, numbers);
        int first = chunk.number << chunkShift;
        int pages = (int) (chunk.memory.byteSize() >>> pageShift);
        for (int slot = first + pages - 1; slot >= first; slot--) {
            freeSlots.push(slot);
        }
    }

    private void freeChunks() {
        for (Chunk chunk : chunks) {
            if (chunk != null) {
                chunk.releaseRetained();
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("memory manager '" + name + "' is closed");
        }
    }

    // =================================================================== nested types

    /** One owner's holdings. */
    private static final class OwnerRecord {
        /** In the owners' table, in use. */
        static final int LIVE = 0;
        /** In the table, marked by a sweep that is checking whether the owner holds anything. */
        static final int SWEEPING = 1;
        /** Out of the table (or about to be taken out): dropped by a sweep, or forgotten by releaseAll. */
        static final int FORGOTTEN = 2;
        static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(OwnerRecord.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Object owner;
        final String label;
        final AtomicLong reservedBytes = new AtomicLong();
        volatile SpillCallback callback;
        /**
         * {@link #LIVE}, {@link #SWEEPING} or {@link #FORGOTTEN}. Whoever makes the record hold something (a
         * lease published, bytes reserved, a callback set) reads this after that write, both volatile; a sweep
         * marks the record SWEEPING before it reads what the record holds, and drops it only by a compare-and-set
         * from SWEEPING, which the first side's compare-and-set back to LIVE calls off.
         */
        volatile int state;
        /** Spills of this owner running now (guarded by the record; see {@link MemoryManager#beginSpill}). */
        int spillsRunning;
        /** The owner's use, and the manager's quarantined pages, at the last measurement of a running spill. */
        long spillMarkBytes;
        int spillMarkQuarantined;

        OwnerRecord(Object owner) {
            this.owner = owner;
            this.label = ownerLabel(owner);
        }
    }

    /**
     * How messages, leak reports, {@link #usageByOwner()} and the MBean name an owner: its text, or its identity
     * string where its {@code toString()} returns null. A null label failed the message of a refused request
     * (NullPointerException instead of BudgetExceededException), usageByOwner and the MBean's UsageByOwner
     * (NullPointerException), and read "null" in leak reports.
     */
    static String ownerLabel(Object owner) {
        String text = owner.toString();
        return text != null ? text : Objects.toIdentityString(owner);
    }

    /**
     * Who holds a slot: the owner (null once quarantined), the scope that revokes the page (null for heap
     * pages) and the thread it is confined to (null if none). One per single page, so it stays at three
     * references (24 bytes): a group's lease is a {@link GroupLease}, not a flag here, which cost every
     * single page 8 bytes more (0.2% of a 4 KiB page in heap).
     */
    static class Lease {
        /**
         * Written again only where the record was dropped while the lease was being published (see
         * {@link MemoryManager#keepLease}), with a volatile write that a sweep's volatile read pairs with; plain
         * reads elsewhere see the owner of the publication or the new one, either counts the page for its owner.
         */
        static final VarHandle OWNER;

        static {
            try {
                OWNER = MethodHandles.lookup().findVarHandle(Lease.class, "owner", OwnerRecord.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        OwnerRecord owner;
        final Arena arena;
        final Thread thread;

        Lease(OwnerRecord owner, Arena arena, Thread thread) {
            this.owner = owner;
            this.arena = arena;
            this.thread = thread;
        }

        boolean isQuarantined() {
            return owner == null;
        }

        /**
         * @return the owner's record, read volatile: where a lease is counted or taken by owner, a lease that
         *         {@link MemoryManager#keepLease} moved to the owner's new record is seen with that one
         */
        OwnerRecord ownerNow() {
            return (OwnerRecord) OWNER.getVolatile(this);
        }

        /** @return a lease of the same scope and thread with no owner: the state of a quarantined page */
        Lease quarantined() {
            return new Lease(null, arena, thread);
        }
    }

    /** The one lease every slot of a {@link PageGroup} holds: how a page is known to belong to a group. */
    static final class GroupLease extends Lease {
        /**
         * The group, told when the manager revokes it (releaseAll, close, quarantine taken back): its scope
         * alone cannot say so when it stays open. Set before the lease is published in any slot.
         */
        PageGroup group;

        GroupLease(OwnerRecord owner, Arena arena, Thread thread) {
            super(owner, arena, thread);
        }

        @Override
        Lease quarantined() {
            GroupLease quarantined = new GroupLease(null, arena, thread);
            quarantined.group = group;
            return quarantined;
        }
    }

    /** A run of memory obtained at once, freed when the manager closes and no page of it is retained. */
    private static final class Chunk {
        final int number;
        final MemorySegment memory;
        final Arena arena;
        /** The mapped file's channel, holding its POSIX lock (if it holds the lock) until the mapping goes; null for native memory. */
        final FileChannel file;
        /** The mapped file's descriptor that holds its lock until the mapping goes; null for native memory, or a POSIX lock. */
        final FileSpace.Descriptor lock;
        /** The mapped file's key in {@link #MAPPED_FILES}; null for native memory. */
        final Object fileKey;
        /** The mapped file's entry in {@link #MAPPED_FILES}; null for native memory. */
        final MappedFileUse fileUse;
        /** One for the manager, plus one per page kept alive for a live confining thread after close. */
        final AtomicInteger retained = new AtomicInteger(1);

        Chunk(int number, MemorySegment memory, Arena arena) {
            this(number, memory, arena, null, null, null, null);
        }

        Chunk(int number, MemorySegment memory, Arena arena, FileChannel file, FileSpace.Descriptor lock, Object fileKey,
                MappedFileUse fileUse) {
            this.number = number;
            this.memory = memory;
            this.arena = arena;
            this.file = file;
            this.lock = lock;
            this.fileKey = fileKey;
            this.fileUse = fileUse;
        }

        void releaseRetained() {
            if (retained.decrementAndGet() == 0) {
                if (file == null) {
                    // Native memory: freed a grace period from now, its physical memory given back at once.
                    // Every page's scope is closed by now, but an access may still slip past such a close
                    // (VirtualMemory.RELEASE_GRACE_MILLIS says why): it must find the memory still there.
                    VirtualMemory.purgeWholePages(memory);
                    VirtualMemory.afterGrace(arena::close);
                    return;
                }
                // a mapped file's mapping goes now: kept, it would hold the file (its lock and its entry in
                // MAPPED_FILES) past the manager's close, and refuse a new manager on it for the grace
                arena.close();
                try {
                    file.close();
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "could not close a mapped file", e);
                }
                if (lock != null) {
                    lock.close();
                }
                releaseMappedFile(fileKey);
            }
        }
    }

    /** Who maps a file of {@link #MAPPED_FILES}, for the refusal of another build on it. */
    private static final class MappedFileUse {
        final String managerName;
        /** Set when the manager closes; the entry stays while close keeps the mapping for pages it could not revoke. */
        volatile boolean managerClosed;

        MappedFileUse(String managerName) {
            this.managerName = managerName;
        }
    }

    private record ChunkIndex(long[] bases, int[] chunkNumbers) {
        /** @return the position of the chunk base at or below {@code address}, or -1 if none is */
        int positionOf(long address) {
            if (bases.length <= 8) {
                // a few chunks (every manager up to 128 MiB): a scan beats a search call
                int position = bases.length - 1;
                while (position >= 0 && bases[position] > address) {
                    position--;
                }
                return position;
            }
            int position = Arrays.binarySearch(bases, address);
            return position >= 0 ? position : -position - 2;
        }
    }

    /**
     * A thread's private cache of free page slots, already counted in the budget. Only its thread
     * takes and puts; another thread may drain it, so access is under its monitor, which is
     * uncontended on the fast path.
     */
    private static final class Magazine extends MagazineFields {
        // A cache line after the fields: the JVM lays out a subclass's fields after its superclass's.
        @SuppressWarnings("unused")
        private long q0, q1, q2, q3, q4, q5, q6, q7;

        Magazine(Thread thread, int capacity) {
            super(thread, capacity);
        }
    }

    /** The fields and operations of {@link Magazine}, between two cache lines of padding. */
    private abstract static class MagazineFields extends MagazinePadding {
        private static final VarHandle LOCKED;
        /** Ints between the slots and whatever lies next to the array (see {@link MagazinePadding}). */
        private static final int SLOTS_OFFSET = 16;

        static {
            try {
                LOCKED = MethodHandles.lookup().findVarHandle(MagazineFields.class, "locked", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Thread thread;
        final int capacity;
        final int[] slots;
        int count;
        Object lastOwner;
        OwnerRecord lastRecord;
        /**
         * A spin lock rather than a monitor: one compare-and-set to take and a plain store to drop,
         * half of what an uncontended monitor costs, and contended only while another thread drains.
         */
        @SuppressWarnings("unused") // accessed through LOCKED
        private volatile int locked;

        MagazineFields(Thread thread, int capacity) {
            this.thread = thread;
            this.capacity = capacity;
            this.slots = new int[capacity + 2 * SLOTS_OFFSET];
        }

        int take() {
            lock();
            try {
                return count == 0 ? -1 : slots[SLOTS_OFFSET + --count];
            } finally {
                unlock();
            }
        }

        /** @return false if full (the caller returns the slot to the pool) */
        boolean put(int slot) {
            lock();
            try {
                if (count == capacity) {
                    return false;
                }
                slots[SLOTS_OFFSET + count++] = slot;
                return true;
            } finally {
                unlock();
            }
        }

        /** Takes up to {@code max} cached slots into {@code into[0..]}. @return how many */
        int takeAll(int[] into, int max) {
            lock();
            try {
                int n = Math.min(max, count);
                for (int i = 0; i < n; i++) {
                    into[i] = slots[SLOTS_OFFSET + --count];
                }
                return n;
            } finally {
                unlock();
            }
        }

        /** Caches {@code from[0..]} while there is room. @return how many, the first ones of {@code from} */
        int putAll(int[] from, int n) {
            lock();
            try {
                int put = Math.min(n, capacity - count);
                for (int i = 0; i < put; i++) {
                    slots[SLOTS_OFFSET + count++] = from[i];
                }
                return put;
            } finally {
                unlock();
            }
        }

        int drainTo(SlotStack pool) {
            lock();
            try {
                int drained = count;
                while (count > 0) {
                    pool.push(slots[SLOTS_OFFSET + --count]);
                }
                return drained;
            } finally {
                unlock();
            }
        }

        int size() {
            lock();
            try {
                return count;
            } finally {
                unlock();
            }
        }

        private void lock() {
            while (!LOCKED.compareAndSet(this, 0, 1)) {
                Thread.onSpinWait();
            }
        }

        private void unlock() {
            LOCKED.setRelease(this, 0);
        }
    }

    /**
     * A cache line before a {@link Magazine}'s fields (the JVM lays out a superclass's fields first):
     * the collector may copy two threads' magazines next to each other, and two threads writing one
     * cache line would each be slower than one thread alone.
     */
    private abstract static class MagazinePadding {
        @SuppressWarnings("unused")
        private long p0, p1, p2, p3, p4, p5, p6, p7;
    }

    /** The JMX view; reads only. */
    private final class ManagementView implements MemoryManagerMXBean {
        /** The name the bean is registered under: the manager's, or it with the -N that sets it apart. */
        private final String label;

        ManagementView(String label) {
            this.label = label;
        }

        @Override
        public String getName() {
            return label;
        }

        @Override
        public String getMemoryType() {
            return type.name();
        }

        @Override
        public int getPageSize() {
            return pageSize;
        }

        @Override
        public long getTotalBytes() {
            return totalBytes;
        }

        @Override
        public int getTotalPages() {
            return totalPages;
        }

        @Override
        public int getUsedPages() {
            return usedPages();
        }

        @Override
        public int getFreePages() {
            return freePages();
        }

        @Override
        public long getReservedBytes() {
            long sum = 0;
            for (OwnerRecord record : owners.values()) {
                sum += record.reservedBytes.get();
            }
            return sum;
        }

        @Override
        public long getUsedBytes() {
            return usedBytes();
        }

        @Override
        public long getPeakUsedBytes() {
            return peakUsedBytes();
        }

        @Override
        public long getAllocatedBytes() {
            return allocatedBytes();
        }

        @Override
        public long getAllocationFailures() {
            return allocationFailures();
        }

        @Override
        public long getSpillCount() {
            return spillCount();
        }

        @Override
        public long getSpilledBytes() {
            return spilledBytes();
        }

        @Override
        public int getQuarantinedPages() {
            return quarantinedPages();
        }

        @Override
        public Map<String, Long> getUsageByOwner() {
            return usageByOwner();
        }

        @Override
        public List<ChildBudgetUsage> getChildBudgets() {
            List<ChildBudgetUsage> usage = new ArrayList<>();
            for (Map.Entry<Budget, Long> child : Budget.largestFirst(budget.children(), Budget::reserved)) {
                Budget b = child.getKey();
                usage.add(new ChildBudgetUsage(b.name(), b.used(), child.getValue(), b.limit()));
            }
            return usage;
        }
    }

    // =================================================================== builder

    /**
     * Configures a {@link MemoryManager}. Not thread-safe; {@link #build()} may be called more than
     * once (each call makes an independent manager).
     */
    public static final class Builder {
        /** Property key prefix read by {@link #properties(Properties)}. */
        public static final String PROPERTY_PREFIX = "offheap.memory.";
        private static final Set<String> KNOWN_KEYS = Set.of("size", "fraction-of-heap", "fraction-of-physical", "type",
                "page-size", "mapped-file", "page-access", "preallocate", "name", "register-mbean");
        /** Keys that each set the total size: at most one may be given. */
        private static final List<String> SIZE_KEYS = List.of("size", "fraction-of-heap", "fraction-of-physical");

        private long totalSize = -1;
        private double heapFraction = -1;
        private double physicalFraction = -1;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private MemoryType type = MemoryType.NATIVE;
        private Path mappedFile;
        private PageAccess access = PageAccess.CONFINED;
        private boolean preallocate;
        private Budget parentBudget;
        private String name;
        private boolean registerMBean = true;
        private Consumer<String> leakReporter;

        private Builder() {
        }

        /** Makes this builder's settings those of {@code other}. */
        private void setFrom(Builder other) {
            totalSize = other.totalSize;
            heapFraction = other.heapFraction;
            physicalFraction = other.physicalFraction;
            pageSize = other.pageSize;
            type = other.type;
            mappedFile = other.mappedFile;
            access = other.access;
            preallocate = other.preallocate;
            parentBudget = other.parentBudget;
            name = other.name;
            registerMBean = other.registerMBean;
            leakReporter = other.leakReporter;
        }

        /**
         * Sets the managed memory in bytes; replaces any fraction set before.
         *
         * @param bytes the size, a positive multiple of the page size
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is zero or negative (the multiple is checked by {@link #build()})
         */
        public Builder totalSize(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("total size must be positive, was " + bytes);
            }
            this.totalSize = bytes;
            this.heapFraction = -1;
            this.physicalFraction = -1;
            return this;
        }

        /**
         * Sets the managed memory as a fraction of the JVM's maximum heap ({@code -Xmx}), rounded down to
         * whole pages; replaces any size set before.
         *
         * @param fraction greater than 0 and at most 1
         * @return this builder
         * @throws IllegalArgumentException if the fraction is out of range
         */
        public Builder totalSizeFractionOfHeap(double fraction) {
            this.heapFraction = checkFraction(fraction);
            this.totalSize = -1;
            this.physicalFraction = -1;
            return this;
        }

        /**
         * Sets the managed memory as a fraction of the machine's physical memory, rounded down to whole
         * pages; replaces any size set before.
         *
         * @param fraction greater than 0 and at most 1
         * @return this builder
         * @throws IllegalArgumentException if the fraction is out of range
         */
        public Builder totalSizeFractionOfPhysicalMemory(double fraction) {
            this.physicalFraction = checkFraction(fraction);
            this.totalSize = -1;
            this.heapFraction = -1;
            return this;
        }

        /**
         * Sets the page size.
         *
         * @param bytes a power of two from {@link #MIN_PAGE_SIZE} (4 KiB) to {@link #MAX_PAGE_SIZE} (64 MiB)
         * @return this builder
         * @throws IllegalArgumentException if not a power of two or out of range
         */
        public Builder pageSize(int bytes) {
            if (Integer.bitCount(bytes) != 1 || bytes < MIN_PAGE_SIZE || bytes > MAX_PAGE_SIZE) {
                throw new IllegalArgumentException("page size must be a power of two from 4 KiB to 64 MiB, was " + bytes);
            }
            this.pageSize = bytes;
            return this;
        }

        /**
         * Sets where pages live.
         *
         * @param type HEAP, NATIVE (default) or MAPPED (then also {@link #mappedFile(Path)})
         * @return this builder
         * @throws NullPointerException if {@code type} is null
         */
        public Builder type(MemoryType type) {
            this.type = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * Sets the file that backs a {@link MemoryType#MAPPED} manager, on disk or in {@code /dev/shm}.
         * It is created if missing (through a symbolic link that points nowhere, where the link points; its
         * directory must exist there and its file system have room). The file starts with a 4 KiB header that says
         * it is a manager's file, its format version and the page size and total size it was made for; the pages
         * follow it, so the file is the total size plus 4096 bytes (the header is neither mapped nor charged to
         * the manager's budget). A new file, or an empty existing one (as
         * {@link java.nio.file.Files#createTempFile} leaves one), gets the header before it is grown. An existing
         * non-empty file must start with such a header, of this format, made for at least the total size (a file
         * made for a larger one serves a smaller manager with its first pages, and keeps its header; the page size
         * may differ: the pages' bytes are one run after the header); any other file (a wrong path to someone's
         * data) is refused by {@link #build()} before anything of it changes. On Linux
         * {@link #build()} allocates every block of the file's first total-size-plus-header bytes
         * ({@code posix_fallocate}; blocks already there keep their contents, and a manager's file shorter than
         * that, left by a build killed while it grew it, is grown), so that no write
         * through a page can fail later for want of space. Once the file is whole its header is marked so; a
         * file so marked and shorter than its header says was cut short after (its last pages are lost) and is
         * refused by {@link #build()}, untouched, naming its length and the length it had. The file must be a regular file of the default
         * file system; the manager locks it until it closes, so that no second manager maps it meanwhile
         * (on Linux from before the build changes the file: a build in another process on the same file at
         * the same time is refused before it grows or reserves it).
         *
         * @param file the path
         * @return this builder
         * @throws NullPointerException if {@code file} is null
         */
        public Builder mappedFile(Path file) {
            this.mappedFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * Sets who may use and release pages.
         *
         * @param access CONFINED (default) or SHARED
         * @return this builder
         * @throws NullPointerException if {@code access} is null
         */
        public Builder pageAccess(PageAccess access) {
            this.access = Objects.requireNonNull(access, "access");
            return this;
        }

        /**
         * Obtains all native memory when the manager is built instead of in 16 MiB chunks on demand
         * (mapped memory is always mapped at build time).
         *
         * @param preallocate whether to preallocate
         * @return this builder
         */
        public Builder preallocate(boolean preallocate) {
            this.preallocate = preallocate;
            return this;
        }

        /**
         * Draws the manager's memory from {@code parent}: the whole size is reserved there when the
         * manager is built, and returned when it closes. Closing {@code parent} while the manager is open
         * closes the manager (see {@link MemoryManager#close()}); a build while it closes either fails with
         * {@link IllegalStateException} or gives a manager that is closed.
         *
         * @param parent the parent budget, or null for a manager with a budget of its own
         * @return this builder
         */
        public Builder parentBudget(Budget parent) {
            this.parentBudget = parent;
            return this;
        }

        /**
         * Names the manager in messages, JMX and its budget.
         *
         * @param name non-blank, without '/'
         * @return this builder
         * @throws IllegalArgumentException if blank or containing '/'
         */
        public Builder name(String name) {
            if (name == null || name.isBlank() || name.indexOf('/') >= 0) {
                throw new IllegalArgumentException("manager name must be non-blank and without '/': '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /**
         * Chooses whether the manager registers its {@link MemoryManagerMXBean} (default true).
         *
         * @param register whether to register
         * @return this builder
         */
        public Builder registerMBean(boolean register) {
            this.registerMBean = register;
            return this;
        }

        /**
         * Sets who receives the leak report when the manager closes while owners hold memory; by
         * default it is logged as a warning through {@link System.Logger}.
         *
         * @param reporter receives the report text, on the closing thread
         * @return this builder
         * @throws NullPointerException if {@code reporter} is null
         */
        public Builder leakReporter(Consumer<String> reporter) {
            this.leakReporter = Objects.requireNonNull(reporter, "reporter");
            return this;
        }

        /**
         * Reads settings from properties, the way {@code taskmanager.memory.*} keys configure Flink.
         * Keys (all optional) under {@value #PROPERTY_PREFIX}: {@code size} (e.g. {@code 512m}),
         * {@code fraction-of-heap} or {@code fraction-of-physical} (e.g. {@code 0.25}), {@code type}
         * ({@code heap}, {@code native}, {@code mapped}), {@code page-size} (e.g. {@code 32k}),
         * {@code mapped-file}, {@code page-access} ({@code confined}, {@code shared}),
         * {@code preallocate}, {@code name}, {@code register-mbean}. Other keys are ignored, except
         * unknown keys under the prefix, which are rejected as likely typos. At most one of {@code size},
         * {@code fraction-of-heap} and {@code fraction-of-physical} may be given. All or nothing: if one key is
         * refused, none is applied (the builder keeps the settings it had).
         *
         * <p>The defaults of the properties ({@code new Properties(defaults)}) are read as
         * {@link Properties#getProperty(String)} reads them: a key the properties do not have is taken from
         * their defaults. Values must be {@code String}s ({@link Properties#setProperty}), in the defaults too; a
         * key under the prefix whose value is another type of object is refused, not skipped as
         * {@code getProperty} skips it. (Where a key of the properties or of their defaults is not a
         * {@code String}, which {@link Properties#propertyNames()} refuses to list, only the properties' own
         * values are checked.)
         *
         * @param properties the properties, e.g. {@link System#getProperties()}
         * @return this builder
         * @throws NullPointerException     if {@code properties} is null
         * @throws IllegalArgumentException for an unknown key under the prefix, a value that does not parse
         *                                  or is not a {@code String} (an empty {@code mapped-file} too), or more
         *                                  than one key that sets the size
         */
        public Builder properties(Properties properties) {
            Objects.requireNonNull(properties, "properties");
            for (Map.Entry<Object, Object> entry : properties.entrySet()) {
                // getProperty and stringPropertyNames see String values only: a key put with another type of value
                // (put(key, 8192)) was skipped as if absent, a known one silently not applied, a misspelt one not rejected
                if (entry.getKey() instanceof String key && key.startsWith(PROPERTY_PREFIX)
                        && !(entry.getValue() instanceof String)) {
                    throw new IllegalArgumentException("property '" + key + "' has a value of type "
                            + entry.getValue().getClass().getName() + ", not a String; set it with setProperty");
                }
            }
            // the same for the defaults (new Properties(defaults)), which entrySet does not see: a key that getProperty
            // does not find has no String value there either (the properties' own keys were checked above)
            for (String key : keysWithDefaults(properties)) {
                if (key.startsWith(PROPERTY_PREFIX) && properties.getProperty(key) == null) {
                    throw new IllegalArgumentException("property '" + key + "' has a value that is not a String in the"
                            + " defaults of the properties; set it with setProperty");
                }
            }
            List<String> sizeKeys = SIZE_KEYS.stream().map(k -> PROPERTY_PREFIX + k)
                    .filter(k -> properties.getProperty(k) != null).sorted().toList();
            if (sizeKeys.size() > 1) {
                // applied one after the other, the last would win, and which is last is the order of a hash set
                throw new IllegalArgumentException("properties " + sizeKeys + " each set the size; give only one");
            }
            // applied to a copy, which becomes this builder's settings only once every key has been applied: one
            // bad key changes nothing (applied here one by one, the keys before it in a hash set's order stayed)
            Builder staged = new Builder();
            staged.setFrom(this);
            for (String key : properties.stringPropertyNames()) {
                if (!key.startsWith(PROPERTY_PREFIX)) {
                    continue;
                }
                String shortKey = key.substring(PROPERTY_PREFIX.length());
                String value = properties.getProperty(key).trim();
                if (!KNOWN_KEYS.contains(shortKey)) {
                    throw new IllegalArgumentException("unknown memory manager property '" + key + "'; known: "
                            + KNOWN_KEYS.stream().sorted().map(k -> PROPERTY_PREFIX + k).toList());
                }
                try {
                    switch (shortKey) {
                        case "size" -> staged.totalSize(ByteSize.parse(value));
                        case "fraction-of-heap" -> staged.totalSizeFractionOfHeap(Double.parseDouble(value));
                        case "fraction-of-physical" -> staged.totalSizeFractionOfPhysicalMemory(Double.parseDouble(value));
                        case "type" -> staged.type(parseEnum(MemoryType.class, value));
                        case "page-size" -> staged.pageSize(Math.toIntExact(ByteSize.parse(value)));
                        case "mapped-file" -> staged.mappedFile(parseFile(value));
                        case "page-access" -> staged.pageAccess(parseEnum(PageAccess.class, value));
                        case "preallocate" -> staged.preallocate(parseBoolean(value));
                        case "name" -> staged.name(value);
                        case "register-mbean" -> staged.registerMBean(parseBoolean(value));
                        default -> throw new AssertionError(shortKey);
                    }
                } catch (IllegalArgumentException | ArithmeticException e) {
                    throw new IllegalArgumentException("bad value '" + value + "' for property '" + key + "': " + e.getMessage(), e);
                }
            }
            setFrom(staged);
            return this;
        }

        /**
         * Builds the manager.
         *
         * @return a new, open manager
         * @throws IllegalStateException    if no size was set, or the parent budget is closed
         * @throws IllegalArgumentException if the size is not a multiple of the page size, exceeds
         *                                  2^31-65 pages ({@code Integer.MAX_VALUE - 64}: the page
         *                                  table, with its padding, must fit a Java array), a fraction
         *                                  yields less than one page, or a mapped file is missing,
         *                                  is not a memory manager's file (an existing non-empty file
         *                                  without a manager's header: nothing of it is changed), has
         *                                  a header of another format version or with sizes that
         *                                  cannot be used, was cut short after it was whole (nothing
         *                                  of it is changed), was made for a smaller total size,
         *                                  cannot be created or its file system has no
         *                                  room for all of its blocks, is not a regular file of the
         *                                  default file system, or is in use by another manager; or a
         *                                  mapped file is set for a type other than MAPPED
         * @throws BudgetExceededException  if the parent budget cannot give the size
         * @throws OutOfMemoryError         if preallocated native memory cannot be obtained
         */
        public MemoryManager build() {
            long total;
            if (totalSize > 0) {
                total = totalSize;
                if (total % pageSize != 0) {
                    long below = total / pageSize * pageSize;
                    // near Long.MAX_VALUE the multiple above does not fit a long (it read as a negative size)
                    long above = below > Long.MAX_VALUE - pageSize ? -1 : below + pageSize;
                    throw new IllegalArgumentException("total size " + total + " is not a multiple of the page size "
                            + pageSize + " (nearest: " + below + (above < 0 ? "" : " or " + above) + ")");
                }
            } else if (heapFraction > 0 || physicalFraction > 0) {
                long base = heapFraction > 0 ? Runtime.getRuntime().maxMemory() : physicalMemory();
                double fraction = heapFraction > 0 ? heapFraction : physicalFraction;
                total = (long) (base * fraction) / pageSize * pageSize;
                if (total == 0) {
                    throw new IllegalArgumentException("fraction " + fraction + " of " + ByteSize.format(base)
                            + " is less than one page of " + ByteSize.format(pageSize));
                }
            } else {
                throw new IllegalStateException("no size: call totalSize, totalSizeFractionOfHeap or totalSizeFractionOfPhysicalMemory");
            }
            if (total / pageSize > MAX_PAGES) {
                throw new IllegalArgumentException("total size " + total + " is more than " + MAX_PAGES + " pages of "
                        + pageSize + " bytes; use larger pages");
            }
            if (type == MemoryType.MAPPED && mappedFile == null) {
                throw new IllegalArgumentException("memory type MAPPED needs a file: call mappedFile(path)");
            }
            if (type != MemoryType.MAPPED && mappedFile != null) {
                // a file asked for and silently not used: the pages would not be where the caller expects them
                throw new IllegalArgumentException("mapped file " + mappedFile + " is set but the memory type is "
                        + type + ": set type MAPPED to keep the pages in it, or leave the file out");
            }
            return new MemoryManager(this, total);
        }

        private static long physicalMemory() {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                return os.getTotalMemorySize();
            }
            throw new IllegalStateException("this JVM does not report physical memory; set the size in bytes");
        }

        /**
         * @return the keys of the properties and of their defaults, or none if one of them is not a String:
         *         propertyNames, the one method that lists the keys of the defaults whatever their values, throws
         *         then (only the properties' own keys are checked for values that are not Strings)
         */
        private static List<String> keysWithDefaults(Properties properties) {
            List<String> keys = new ArrayList<>();
            try {
                for (Enumeration<?> names = properties.propertyNames(); names.hasMoreElements(); ) {
                    keys.add((String) names.nextElement());
                }
            } catch (ClassCastException keyThatIsNotAString) {
                return List.of();
            }
            return keys;
        }

        private static double checkFraction(double fraction) {
            if (!(fraction > 0 && fraction <= 1)) {
                throw new IllegalArgumentException("fraction must be greater than 0 and at most 1, was " + fraction);
            }
            return fraction;
        }

        private static <E extends Enum<E>> E parseEnum(Class<E> type, String value) {
            // ASCII only: upper-casing maps some other letters onto ASCII ones ('ı' to 'I', 'ſ' to 'S', 'ﬁ' to
            // "FI"), so valueOf(value.toUpperCase()) read "natıve" as NATIVE; equalsIgnoreCase does the same
            if (value.chars().allMatch(c -> c < 0x80)) {
                for (E constant : type.getEnumConstants()) {
                    if (constant.name().equalsIgnoreCase(value)) {
                        return constant;
                    }
                }
            }
            throw new IllegalArgumentException("expected one of " + Arrays.stream(type.getEnumConstants())
                    .map(c -> c.name().toLowerCase(Locale.ROOT)).toList());
        }

        /** A file path; empty is refused, not read as {@code Path.of("")}, the working directory. */
        private static Path parseFile(String value) {
            if (value.isEmpty()) {
                throw new IllegalArgumentException("expected the path of a file, not an empty value");
            }
            return Path.of(value);
        }

        private static boolean parseBoolean(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new IllegalArgumentException("expected true or false");
            };
        }
    }
}
