package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.internal.PlatformMBeans;
import dev.offheap.memory.internal.VirtualMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;

/**
 * An {@link Allocator} that calls a C allocator through {@link java.lang.foreign.Linker}: the C
 * library's {@code malloc}/{@code calloc}/{@code aligned_alloc}/{@code free}, or mimalloc's
 * {@code mi_*} functions when its shared library is present (Debian package {@code libmimalloc2.0}).
 *
 * <p>{@link #allocate} uses {@code calloc} (or {@code mi_zalloc_aligned}), so zeroing costs what the
 * C allocator makes it cost (often nothing for fresh pages); {@link #allocateUninitialized} uses
 * {@code malloc}. Alignments above 16 bytes use the aligned functions.
 *
 * <h2>Bookkeeping and safety</h2>
 * Every live allocation is recorded in a lock-striped table (address to size), so that
 * {@link #close()} can free what is left, a free of a foreign or already freed segment is refused with
 * an exception instead of corrupting the C heap, and {@link #allocatedBytes()} is exact. A budget is
 * charged the requested bytes of each allocation.
 * <p>Segments of up to {@value #OWN_SCOPE_THRESHOLD} bytes share the allocator's scope: closing the
 * allocator makes all of them inaccessible, but in {@link DebugMode#OFF} and
 * {@link DebugMode#SAMPLED} a segment used after {@link #free} reaches memory the C allocator may have
 * reused, as in C; in rare cases (the C allocator returning the top of its heap to the system) such a
 * use can fault. Larger allocations, which C allocators map and unmap one by one, get a scope of their
 * own that {@link #free} closes, so a stale large segment throws {@link IllegalStateException}. In
 * {@link DebugMode#FULL} every allocation gets its own scope. For memory that is never unmapped while
 * the allocator is open, use {@link PooledAllocator}.
 *
 * <h2>Threading</h2>
 * All methods are thread-safe; any thread may free any allocation. Segments are accessible from every
 * thread.
 *
 * <pre>{@code
 * try (NativeAllocator malloc = NativeAllocator.malloc()) {
 *     MemorySegment s = malloc.allocateUninitialized(256);
 *     ...
 *     malloc.free(s);
 * }
 * }</pre>
 */
public final class NativeAllocator implements Allocator {
    /** Allocations larger than this many bytes get a scope of their own, closed by {@link #free}. */
    public static final long OWN_SCOPE_THRESHOLD = 256 * 1024;

    private static final System.Logger LOG = System.getLogger(NativeAllocator.class.getName());
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final long SIZE_MASK = (1L << 60) - 1;
    private static final long TRACKED = 1L << 62;
    /** In a table value: the allocation has a scope of its own in {@code ownScopes}. */
    private static final long OWN_SCOPE = 1L << 61;

    /** Which C allocator to call. */
    public enum Kind {
        /** The C library's malloc family. */
        MALLOC,
        /** mimalloc, loaded once for the process's lifetime; needs its shared library. */
        MIMALLOC
    }

    private final String name;
    private final Kind kind;
    private final NativeFunctions functions;
    private final Budget budget;
    private final DebugMode debug;
    private final int sampleRate;
    private final AllocationTracker tracker;
    private final Arena arena = Arena.ofShared();
    /** What 0-byte requests get: no C allocation (see {@link Checks#emptySegment}). */
    private final MemorySegment empty = Checks.emptySegment(arena);
    private final AddressTable table = new AddressTable(value -> value & SIZE_MASK);
    /** Scopes of allocations that have their own (large ones, and all of them in FULL mode). */
    private final ConcurrentHashMap<Long, Arena> ownScopes = new ConcurrentHashMap<>();
    private final Object closeLock = new Object();
    private volatile boolean closed;
    private volatile AllocationReport closingReport;
    /** Whether {@link #close()} has freed everything (a held scope can interrupt it). Guarded by closeLock. */
    private boolean closeFinished;
    /** Where the management view is registered; null if it is not. */
    private final ObjectName mbeanName;

    private NativeAllocator(Builder b, NativeFunctions functions) {
        this.kind = b.kind;
        this.functions = functions;
        this.budget = b.budget;
        this.debug = b.debug;
        this.sampleRate = b.sampleRate;
        this.name = b.name != null ? b.name : kind.name().toLowerCase(java.util.Locale.ROOT) + "-" + NAMES.incrementAndGet();
        this.tracker = debug == DebugMode.OFF ? null : new AllocationTracker(name, debug, arena.scope());
        this.mbeanName = b.registerMBean ? AllocatorView.register(name, kind.name().toLowerCase(java.util.Locale.ROOT),
                debug, budget, -1, new AllocatorView.Readings(table::bytes, table::count, table::bytes, () -> 0,
                        () -> tracker == null ? 0 : tracker.problemsSeen(), () -> report().toString())) : null;
    }

    /**
     * @return an allocator over the C library's malloc family, with the default debug mode and no budget
     * @throws IllegalArgumentException if the debug system properties are malformed
     */
    public static NativeAllocator malloc() {
        return builder().kind(Kind.MALLOC).build();
    }

    /**
     * @return an allocator over mimalloc, with the default debug mode and no budget
     * @throws IllegalStateException    if mimalloc's shared library cannot be loaded; the message names
     *                                  the Debian package libmimalloc2.0
     * @throws IllegalArgumentException if the debug system properties are malformed
     */
    public static NativeAllocator mimalloc() {
        return builder().kind(Kind.MIMALLOC).build();
    }

    /** @return whether mimalloc's shared library could be loaded (it is loaded at most once per process) */
    public static boolean isMimallocAvailable() {
        return NativeFunctions.mimalloc().isPresent();
    }

    /**
     * @return a builder with kind {@link Kind#MALLOC}, no budget, and the debug mode and sample rate
     * of {@link DebugMode#defaultMode()} and {@link DebugMode#defaultSampleRate()}
     * @throws IllegalArgumentException if the debug system properties are malformed
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return which C allocator this one calls */
    public Kind kind() {
        return kind;
    }

    /** @return the name used in messages and reports */
    public String name() {
        return name;
    }

    /** @return the debug mode */
    public DebugMode debugMode() {
        return debug;
    }

    // ------------------------------------------------------------------ allocation

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        return allocate(byteSize, byteAlignment, true);
    }

    @Override
    public MemorySegment allocateUninitialized(long byteSize, long byteAlignment) {
        return allocate(byteSize, byteAlignment, false);
    }

    // reinterpret is restricted: the address comes from the C allocator with at least byteSize bytes.
    @SuppressWarnings("restricted")
    private MemorySegment allocate(long byteSize, long byteAlignment, boolean zero) {
        Checks.sizeAndAlignment(byteSize, byteAlignment);
        if (closed) {
            throw Checks.closed(name);
        }
        if (byteSize == 0) {
            // malloc(0) returns NULL or a block of its own, and where the C allocator packs blocks without headers
            // (mimalloc) a zero-length segment there may start where a neighbour ends: free could not tell the two
            return empty;
        }
        boolean track = tracker != null && debug.tracksNext(sampleRate);
        if (budget != null) {
            budget.reserve(byteSize);
        }
        long address;
        try {
            address = raw(byteSize, byteAlignment, zero);
        } catch (RuntimeException | Error e) {
            releaseBudget(byteSize);
            throw e;
        }
        if (address == 0) {
            releaseBudget(byteSize);
            throw new OutOfMemoryError(functions.name + " could not allocate " + byteSize + " bytes aligned to "
                    + byteAlignment + " for allocator '" + name + "'");
        }
        Arena scope = arena;
        boolean ownScope = track && debug == DebugMode.FULL || byteSize > OWN_SCOPE_THRESHOLD;
        if (ownScope) {
            scope = Arena.ofShared();
            ownScopes.put(address, scope);
        }
        if (track) {
            tracker.track(address, byteSize, scope == arena ? null : scope);
        }
        if (!table.put(address, byteSize | (track ? TRACKED : 0) | (ownScope ? OWN_SCOPE : 0))) {
            // closed meanwhile: nothing was handed out
            discard(address, byteSize);
            throw Checks.closed(name);
        }
        try {
            return MemorySegment.ofAddress(address).reinterpret(byteSize, scope, null);
        } catch (IllegalStateException e) {
            // a close() racing this one closed the scope after the put: the JDK's bare "Already closed" named
            // neither the allocator nor the cause. Whoever takes the entry out of the table frees it: this
            // thread, or close()'s drain if it got there first (never both)
            if (scope.scope().isAlive()) {
                throw e;
            }
            if (table.remove(address, byteSize) >= 0) {
                discard(address, byteSize);
            }
            throw Checks.closed(name);
        }
    }

    // reinterpret is restricted: the address was just allocated with at least size bytes.
    @SuppressWarnings("restricted")
    private long raw(long size, long alignment, boolean zero) {
        // every C allocator here aligns blocks of 16 bytes or more to 16 (mimalloc's smaller ones only to 8)
        if (alignment <= functions.mallocAlignment || alignment <= 16 && size >= 16) {
            return zero ? functions.calloc(size) : functions.malloc(size);
        }
        if (zero) {
            long z = functions.zallocAligned(alignment, size);
            if (z != 0) {
                return z;
            }
        }
        long address = functions.alignedAlloc(alignment, size);
        if (address != 0 && zero) {
            Zeroing.zero(MemorySegment.ofAddress(address).reinterpret(size));
        }
        return address;
    }

    /** Frees an allocation that was never handed out: a close() racing its allocation refused it. */
    private void discard(long address, long byteSize) {
        Arena own = ownScopes.remove(address);
        if (own != null && own.scope().isAlive()) {
            try {
                own.close();
            } catch (IllegalStateException e) {
                // close() closed it meanwhile (it closes every registered scope before its drain); nothing can
                // hold it, since nobody had the segment. Before, this threw "Already closed" from here and skipped
                // the free below: the memory stayed allocated and the budget charged for good
                if (own.scope().isAlive()) {
                    throw e;
                }
            }
        }
        if (tracker != null) {
            tracker.untrack(address);
        }
        functions.free(address);
        releaseBudget(byteSize);
    }

    private void releaseBudget(long bytes) {
        if (budget != null && bytes > 0) {
            budget.release(bytes);
        }
    }

    @Override
    public void free(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        if (closed) {
            return;
        }
        long address = segment.address();
        if (segment.byteSize() == 0) {
            Checks.freeZeroLength(name, segment, arena.scope(), tracker);
            return;
        }
        if (!segment.isNative() || address == 0) {
            throw foreign(segment, "it is not a native segment");
        }
        if (!segment.scope().isAlive() && table.sizeAt(address) >= 0 && !closed) {
            // a scope of its own (large and FULL-mode allocations) is closed by free: this segment was freed
            // before, and the allocation live at its address now is a later one, which must stay live
            throw staleFree(segment, address);
        }
        long value = table.remove(address, segment.byteSize());
        if (value == AddressTable.WRONG_SIZE) {
            // a slice that starts where the allocation starts: freeing it would free the whole allocation
            // while the caller may think part of it is still in use, and miscount allocatedBytes()
            throw foreign(segment, "it starts the live allocation at 0x" + Long.toHexString(address) + " but has "
                    + segment.byteSize() + " bytes where the allocation has " + table.sizeAt(address)
                    + " (a slice of it?); free the segment the allocator returned");
        }
        if (value < 0) {
            if (closed) {
                return;
            }
            long start = table.startCovering(address);
            if (start >= 0) {
                if (!segment.scope().isAlive()) {
                    // not a slice: a slice of the live allocation has its scope, which is alive. A stale segment,
                    // whose scope its first free closed, and whose memory a later allocation took since, starting
                    // below it (the C allocator merged the freed block with a free neighbour before it)
                    throw staleFree(segment, start);
                }
                // before the debug records: one of an earlier allocation here would call this a second free
                throw foreign(segment, "it starts " + (address - start) + " bytes into the live allocation at 0x"
                        + Long.toHexString(start) + " (a slice of it?)");
            }
            if (tracker != null) {
                throw tracker.badFree(address, segment.byteSize(), segment.scope(), "or it was already freed");
            }
            throw new IllegalArgumentException("free of a segment that allocator '" + name
                    + "' did not allocate, or already freed: 0x" + Long.toHexString(address) + " (" + segment.byteSize() + " bytes) was never allocated here, "
                    + "is a slice of an allocation, or was already freed (DebugMode.FULL tells which, with stack traces)");
        }
        long size = value & SIZE_MASK;
        // only allocations that have a scope of their own look it up: the map's boxed key cost every free
        // 16 bytes of heap
        if ((value & OWN_SCOPE) != 0) {
            Arena own = ownScopes.get(address);
            if (own != null) {
                closeOwnScope(own, address, value, segment);
                ownScopes.remove(address, own);
            }
        }
        if ((value & TRACKED) != 0) {
            tracker.untrack(address);
        }
        functions.free(address);
        releaseBudget(size);
    }

    /**
     * The double free of a stale segment: one whose scope of its own an earlier free closed, while a later
     * allocation, which must stay live, starts at {@code liveStart}: at the segment's address, or below it
     * and covering it.
     */
    private IllegalStateException staleFree(MemorySegment segment, long liveStart) {
        long address = segment.address();
        if (tracker != null) {
            return tracker.staleFree(address, segment.byteSize(), segment.scope(), liveStart);
        }
        return new IllegalStateException("double free in allocator '" + name + "' of 0x" + Long.toHexString(address)
                + " (" + segment.byteSize() + " bytes): its scope was closed by an earlier free; the allocation made "
                + AllocationTracker.whereSince(address, liveStart) + " since stays live"
                // FULL keeps the free record of a block a later allocation starts at, not of one inside it
                + (liveStart == address ? " (DebugMode.FULL reports both stack traces)" : ""));
    }

    /**
     * Closes the scope of an allocation that {@link #free} has just taken out of the table. A scope that a
     * downcall holds cannot close (Arena.close throws): the allocation goes back into the table and stays
     * live, since its memory must not go back to the C allocator under the native code (before, the free
     * threw with the table entry gone: the memory was never freed, its budget never released, and
     * {@link #allocatedBytes()} no longer counted it).
     *
     * @throws IllegalStateException if a downcall is using the allocation
     */
    private void closeOwnScope(Arena own, long address, long value, MemorySegment segment) {
        try {
            own.close();
        } catch (IllegalStateException e) {
            if (!own.scope().isAlive()) {
                return; // closed already by a close() of the allocator racing this free: free it as usual
            }
            table.put(address, value);
            throw Checks.freeWhileInUse(name, segment.toString(), e);
        }
    }

    private IllegalArgumentException foreign(MemorySegment segment, String why) {
        String message = "free of a segment that allocator '" + name + "' did not allocate: " + segment + ", " + why;
        if (tracker != null) {
            tracker.problem(message);
        }
        return new IllegalArgumentException(message);
    }

    // ------------------------------------------------------------------ state

    @Override
    public long allocatedBytes() {
        return table.bytes();
    }

    /** @return the requested bytes of the live allocations; the C allocator's own headers and caches are not visible */
    @Override
    public long footprintBytes() {
        return table.bytes();
    }

    @Override
    public AllocationReport report() {
        AllocationReport atClose = closingReport;
        if (atClose != null) {
            return atClose;
        }
        return new AllocationReport(name, debug, table.bytes(), table.bytes(), table.count(),
                tracker == null ? List.of() : tracker.leaks(), tracker == null ? List.of() : tracker.problems());
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    /**
     * Reports live allocations (a WARNING through {@link System.Logger} and in {@link #report()}), makes
     * every segment inaccessible, then frees all memory. Closing twice does nothing. The warning is logged
     * last: what a log handler throws comes out as it is, once everything is freed.
     *
     * @throws IllegalStateException if a segment of this allocator is in use by a downcall now (its scope
     *                               cannot close, as {@link Arena#close()} says): nothing is freed, the
     *                               allocator refuses allocations and ignores frees from then on, and a
     *                               later {@code close()} finishes the work
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (closeFinished) {
                return;
            }
            if (!closed) {
                AllocationReport before = report();
                closed = true;
                closingReport = before;
            }
            AllocationReport before = closingReport;
            // every stale segment must throw before its memory goes back to the C allocator. A scope that a
            // downcall holds cannot close (Arena.close throws): then nothing is freed under the native code,
            // and the next close() starts again here, past the scopes closed already. Every scope closes
            // before the first free: a close that threw from the middle of the drain had freed part of the
            // table, and then returned at its closed flag, keeping the rest for good
            if (arena.scope().isAlive()) {
                arena.close();
            }
            for (Arena own : ownScopes.values()) {
                if (own.scope().isAlive()) {
                    own.close();
                }
            }
            long[] released = new long[1];
            AddressList freed = new AddressList();
            table.closeAndDrain((address, value) -> {
                Arena own = ownScopes.remove(address);
                if (own != null && own.scope().isAlive()) {
                    own.close();
                }
                freed.add(address);
                released[0] += value & SIZE_MASK;
                return 0;
            });
            // back to the C allocator a grace period from now, not at once: an access may still slip past the
            // closes above (VirtualMemory.RELEASE_GRACE_MILLIS), and a late store into a block malloc has taken
            // back could corrupt its free lists (or fault, in a large block free() unmapped)
            NativeFunctions allocatorFunctions = functions;
            VirtualMemory.afterGrace(() -> freed.forEach(allocatorFunctions::free));
            if (tracker != null) {
                tracker.clear();
            }
            releaseBudget(released[0]);
            List<String> problems = new java.util.ArrayList<>(before.problems());
            if (before.liveAllocations() > 0) {
                problems.add("closed with " + before.liveAllocations() + " live allocations (" + before.allocatedBytes()
                        + " bytes), freed by close");
                if (problems.size() > AllocationTracker.PROBLEMS_KEPT) {
                    problems.removeFirst(); // the report keeps the latest ones only, as the tracker does
                }
            }
            closingReport = new AllocationReport(name, debug, 0, 0, 0, before.leaks(), problems);
            closeFinished = true;
            PlatformMBeans.unregister(mbeanName);
            // last: the application's log handler may throw (a checked exception too, sneakily), and it then finds
            // the work done. Warned first, a handler that threw ended close with nothing freed, and every later
            // close() failed with a NullPointerException (the report was not kept yet) and never finished
            if (before.liveAllocations() > 0) {
                LOG.log(System.Logger.Level.WARNING, "closed with live allocations (freed now): " + before);
            }
        }
    }

    @Override
    public String toString() {
        return "NativeAllocator[" + name + ", " + functions.name + ", " + allocatedBytes() + " bytes live]";
    }

    /** Configures a {@link NativeAllocator}. Not thread-safe; build once. */
    public static final class Builder {
        private Kind kind = Kind.MALLOC;
        private Budget budget;
        private DebugMode debug = DebugMode.defaultMode();
        private int sampleRate = DebugMode.defaultSampleRate();
        private String name;
        private boolean registerMBean;
        /** The C allocator's functions to call instead of the kind's; null for the kind's. */
        private NativeFunctions functions;

        private Builder() {
        }

        /**
         * For tests: the C allocator to call instead of the kind's, such as one that places blocks where the
         * test needs them. Package-private; the library never calls it.
         *
         * @param functions the functions to call, or null for those of the kind
         * @return this builder
         */
        Builder functions(NativeFunctions functions) {
            this.functions = functions;
            return this;
        }

        /**
         * @param register whether the allocator registers its {@link AllocatorMXBean} while it is open; off by
         *                 default, since a native allocator is cheap enough to make per request and a
         *                 registration is not. A registered allocator stays reachable from the platform MBean
         *                 server until it is closed
         * @return this builder
         */
        public Builder registerMBean(boolean register) {
            this.registerMBean = register;
            return this;
        }

        /**
         * @param kind which C allocator to call
         * @return this builder
         * @throws NullPointerException if {@code kind} is null
         */
        public Builder kind(Kind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * @param budget charged the requested bytes of every allocation, released on free; refusals throw
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
         * @param mode what to record about allocations
         * @return this builder
         * @throws NullPointerException if {@code mode} is null
         */
        public Builder debug(DebugMode mode) {
            this.debug = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param rate N, where 1 allocation in N is tracked in {@link DebugMode#SAMPLED} mode (randomly chosen)
         * @return this builder
         * @throws IllegalArgumentException if {@code rate} is less than 1
         */
        public Builder sampleRate(int rate) {
            this.sampleRate = Checks.sampleRate(rate);
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
         * @throws IllegalStateException if the kind is {@link Kind#MIMALLOC} and mimalloc cannot be loaded;
         *                               the message names the Debian package libmimalloc2.0
         */
        public NativeAllocator build() {
            NativeFunctions functions = this.functions != null ? this.functions : kind == Kind.MALLOC ? NativeFunctions.libc()
                    : NativeFunctions.mimalloc().orElseThrow(() -> new IllegalStateException(NativeFunctions.mimallocProblem()));
            return new NativeAllocator(this, functions);
        }
    }
}
