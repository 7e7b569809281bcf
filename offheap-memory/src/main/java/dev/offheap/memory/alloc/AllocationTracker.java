package dev.offheap.memory.alloc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The debug bookkeeping of one allocator: which tracked allocations are live, where and by which
 * thread each was made, which were freed recently and where, and the problems seen. Used only on
 * the tracked (slow) path: in {@link DebugMode#SAMPLED} for 1 allocation in N, in
 * {@link DebugMode#FULL} for every one.
 */
final class AllocationTracker {
    private static final int STACK_DEPTH = 24;
    /** Freed allocations remembered to tell a double free (with both stack traces) from a foreign free. */
    private static final int RECENTLY_FREED = 16_384;
    /** Problems a report lists at most, the latest ones (AllocationReport#problems says so). */
    static final int PROBLEMS_KEPT = 100;
    private static final String PACKAGE = AllocationTracker.class.getPackageName() + ".";
    /** Frames of these classes (and their nested classes) are the allocator's own and left out of stack traces. */
    private static final Set<String> OWN_CLASSES = Set.of("AllocationTracker", "Allocator", "AllocateFrom",
            "NativeAllocator", "PooledAllocator", "StackAllocator", "SizeClassPool", "UnitRange", "ThreadCache", "Span");
    private static final StackWalker WALKER = StackWalker.getInstance();

    /**
     * One tracked allocation. {@code arena} is its own scope in FULL mode, else null; {@code scope} is the
     * scope of the segment handed out where it is not the allocator's shared one (the arena's, or a
     * memory manager's page's), else null, for {@link #staleFree} to tell this allocation's stale segments
     * from a later allocation's. The call site is
     * kept as a {@link Throwable} whose stack trace the JVM records natively and turns into
     * {@link StackTraceElement}s only when a report asks: a StackWalker walk that builds the elements
     * up front cost microseconds per tracked allocation, which sampling at 1 in 128 could not hide.
     * The first report that reads it replaces it with the {@link SiteStack} shared by every allocation of
     * the same stack (see {@link #leaks()}).
     */
    static final class Tracked {
        private final long address;
        private final long size;
        private final String thread;
        private final Arena arena;
        private final MemorySegment.Scope scope;
        /**
         * The {@link Throwable} recorded at the allocation until a report reads it, then its {@link SiteStack}.
         * Written by reports, read by any thread: both are safely published (a SiteStack's fields are final),
         * and both give the same stack, so a racing reader may see either.
         */
        private Object site;

        Tracked(long address, long size, String thread, Throwable site, Arena arena, MemorySegment.Scope scope) {
            this.address = address;
            this.size = size;
            this.thread = thread;
            this.site = site;
            this.arena = arena;
            this.scope = scope;
        }

        long address() {
            return address;
        }

        long size() {
            return size;
        }

        String thread() {
            return thread;
        }

        Arena arena() {
            return arena;
        }

        MemorySegment.Scope scope() {
            return scope;
        }

        /** @return the stack of the allocation, innermost caller first; not to be modified (it may be shared) */
        StackTraceElement[] stack() {
            return site instanceof SiteStack known ? known.elements : ownFramesDropped((Throwable) site);
        }

        /**
         * @return the allocation's stack as the one instance of {@code canonical} for its content, which it
         * keeps from now on instead of its Throwable (and the elements the Throwable caches once asked)
         */
        SiteStack siteStack(Map<SiteStack, SiteStack> canonical) {
            Object current = site;
            SiteStack stack = current instanceof SiteStack known ? known : new SiteStack(ownFramesDropped((Throwable) current));
            SiteStack shared = canonical.putIfAbsent(stack, stack);
            if (shared == null) {
                shared = stack;
            }
            if (shared != current) {
                site = shared;
            }
            return shared;
        }
    }

    /**
     * A stack of allocation sites, shared by the tracked allocations with that stack once a report has read
     * them, and by their {@link AllocationReport.Leak}s ({@code List.copyOf} of its list is the list itself).
     * Equal by content; the hash is computed once.
     */
    static final class SiteStack {
        final StackTraceElement[] elements;
        final List<StackTraceElement> list;
        private final int hash;

        SiteStack(StackTraceElement[] elements) {
            this.elements = elements;
            this.list = List.of(elements);
            this.hash = list.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof SiteStack other && hash == other.hash && list.equals(other.list);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private record Freed(Tracked allocation, String thread, Throwable site) {
    }

    /** Records where the current thread is now; cheap until {@link #ownFramesDropped} reads it. */
    static Throwable site() {
        return new Throwable("allocation site");
    }

    static StackTraceElement[] ownFramesDropped(Throwable site) {
        StackTraceElement[] all = site.getStackTrace();
        int from = 0;
        while (from < all.length && isOwn(all[from].getClassName())) {
            from++;
        }
        return Arrays.copyOfRange(all, from, Math.min(all.length, from + STACK_DEPTH));
    }

    private final String allocatorName;
    private final DebugMode mode;
    private final ConcurrentHashMap<Long, Tracked> live = new ConcurrentHashMap<>();
    private final LinkedHashMap<Long, Freed> recentlyFreed = new LinkedHashMap<>(1024, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Freed> eldest) {
            if (size() > RECENTLY_FREED) {
                recentlyFreedAddresses.remove(eldest.getKey());
                return true;
            }
            return false;
        }
    };
    /**
     * The keys of {@link #recentlyFreed} in order, guarded by the same lock: a new allocation forgets
     * every free record inside it, not only one at its own address. A record left inside a live
     * allocation would make a free of a slice of it read as a second free of the old allocation.
     */
    private final TreeSet<Long> recentlyFreedAddresses = new TreeSet<>();
    private final ArrayDeque<String> problems = new ArrayDeque<>();
    /** Every problem recorded, counted past the last {@link #PROBLEMS_KEPT} that are kept. Guarded by problems. */
    private long problemsSeen;

    /**
     * The scope of the segments the allocator hands out that have none of their own (its shared arena's), to
     * tell a stale segment of a freed allocation from another owner's segment at the same address; null where
     * the caller cannot tell (a tracker used on its own).
     */
    private final MemorySegment.Scope sharedScope;

    AllocationTracker(String allocatorName, DebugMode mode) {
        this(allocatorName, mode, null);
    }

    /** @param sharedScope the scope of the allocator's segments that have no scope of their own, or null */
    AllocationTracker(String allocatorName, DebugMode mode, MemorySegment.Scope sharedScope) {
        this.allocatorName = allocatorName;
        this.mode = mode;
        this.sharedScope = sharedScope;
    }

    DebugMode mode() {
        return mode;
    }

    static StackTraceElement[] captureStack() {
        return WALKER.walk(frames -> frames
                .dropWhile(f -> isOwn(f.getClassName()))
                .limit(STACK_DEPTH)
                .map(StackWalker.StackFrame::toStackTraceElement)
                .toArray(StackTraceElement[]::new));
    }

    private static boolean isOwn(String className) {
        if (className.startsWith("java.lang.foreign.")) {
            return true; // SegmentAllocator's default methods that lead to the allocator
        }
        if (!className.startsWith(PACKAGE)) {
            return false;
        }
        String simple = className.substring(PACKAGE.length());
        int nested = simple.indexOf('$');
        return OWN_CLASSES.contains(nested < 0 ? simple : simple.substring(0, nested));
    }

    /** Records a new allocation made by the current thread, whose segment has {@code arena}'s scope (if any). */
    Tracked track(long address, long size, Arena arena) {
        return track(address, size, arena, arena == null ? null : arena.scope());
    }

    /**
     * Records a new allocation made by the current thread.
     *
     * @param scope the scope of the segment handed out, where it is not the allocator's shared one (a
     *              memory manager's page has one of its own per lease), else null
     */
    Tracked track(long address, long size, Arena arena, MemorySegment.Scope scope) {
        Tracked t = new Tracked(address, size, Thread.currentThread().getName(), site(), arena, scope);
        Tracked previous = live.put(address, t);
        if (previous != null) {
            // the allocator handed out memory that was still live: a bug in the allocator, never the caller's
            problem("internal error: allocator '" + allocatorName + "' handed out 0x" + Long.toHexString(address)
                    + " while it was still allocated by thread '" + previous.thread() + "' at" + format(previous.stack()));
        }
        synchronized (recentlyFreed) {
            // the record at the start itself stays, for staleFree to name both stack traces when a stale
            // segment of the freed allocation is freed again; badFree skips it while this allocation lives
            var inside = recentlyFreedAddresses.subSet(address, false, address + Math.max(1, size), false);
            for (Long freed : inside) {
                recentlyFreed.remove(freed);
            }
            inside.clear();
        }
        return t;
    }

    boolean isTracked(long address) {
        return live.containsKey(address);
    }

    /**
     * Forgets a tracked allocation being freed, remembering who freed it.
     *
     * @return the allocation, or null if {@code address} is not a live tracked allocation
     */
    Tracked untrack(long address) {
        Tracked t = live.get(address);
        if (t == null) {
            return null;
        }
        // the free site costs another stack capture: FULL pays it, SAMPLED (meant for production) does not
        Freed f = new Freed(t, Thread.currentThread().getName(), mode == DebugMode.FULL ? site() : null);
        // the record moves from live to freed in one step under the lock badFree reads both under: a second
        // free of the allocation racing this one finds it in one or the other, never in neither (it then
        // took the second free for a foreign one)
        synchronized (recentlyFreed) {
            if (!live.remove(address, t)) {
                return null; // another free took it meanwhile
            }
            recentlyFreed.put(address, f);
            recentlyFreedAddresses.add(address);
        }
        return t;
    }

    /** @return the live tracked allocation at {@code address}, or null if there is none */
    Tracked liveAt(long address) {
        return live.get(address);
    }

    /** @return the requested size of the live tracked allocation at {@code address}, or -1 if there is none */
    long liveSize(long address) {
        Tracked t = live.get(address);
        return t == null ? -1 : t.size();
    }

    /**
     * Builds the exception for a free of {@code address} that is not live: a double free with both
     * stack traces if an allocation at that address was freed recently and the segment is no larger
     * than it was (a larger one cannot be it: memory another allocator handed out at a reused address),
     * else a foreign free. Records the problem either way.
     */
    RuntimeException badFree(long address, long size, String why) {
        return badFree(address, size, null, why);
    }

    /**
     * {@link #badFree(long, long, String)} for a segment of {@code scope}: a segment whose scope is neither the
     * freed allocation's own (where it had one) nor the allocator's shared one is another owner's (an
     * {@link Arena}'s, another allocator's) that the system handed the freed address to since, and its free is
     * a foreign free. A segment of the global scope (one made from a raw address) may be either, and counts as
     * a double free. A segment of the allocation still recorded live at {@code address} (same size, a scope it
     * may have) is being freed by another thread at this moment, the allocator having already let it go: a
     * double free too.
     *
     * @param scope the freed segment's scope, or null to judge by address and size alone
     */
    RuntimeException badFree(long address, long size, MemorySegment.Scope scope, String why) {
        Freed f;
        Tracked freeing;
        synchronized (recentlyFreed) {
            f = recentlyFreed.get(address);
            freeing = live.get(address);
        }
        String here = " by thread '" + Thread.currentThread().getName() + "' at" + format(captureStack());
        if (freeing != null && freeing.size() == size && scope != null && mayBeSegmentOf(freeing, scope)) {
            // the allocator no longer has the allocation, and the tracker still does: another thread's free of it
            // is under way (between the allocator's bookkeeping and untrack)
            String message = "double free in allocator '" + allocatorName + "' of the segment at 0x"
                    + Long.toHexString(address) + " (" + size + " bytes): another thread is freeing it at this moment;"
                    + " allocated by thread '" + freeing.thread() + "' at" + format(freeing.stack()) + "\nfreed again" + here;
            problem(message);
            return new IllegalStateException(message);
        }
        // a record at the start of a live allocation (kept for staleFree) is not this segment's
        if (f != null && size <= f.allocation.size() && !live.containsKey(address) && mayBeSegmentOf(f.allocation, scope)) {
            String message = doubleFree(f, here);
            problem(message);
            return new IllegalStateException(message);
        }
        String message = "free of a segment that allocator '" + allocatorName + "' did not allocate: 0x"
                + Long.toHexString(address) + " (" + size + " bytes), " + why + "; freed" + here;
        problem(message);
        return new IllegalArgumentException(message);
    }

    /** @return whether a segment of {@code scope} (null: unknown) may be one that {@code allocation} handed out */
    private boolean mayBeSegmentOf(Tracked allocation, MemorySegment.Scope scope) {
        if (scope == null || scope.equals(Arena.global().scope())) {
            return true;
        }
        if (allocation.scope() != null) {
            return scope.equals(allocation.scope());
        }
        return sharedScope == null || scope.equals(sharedScope);
    }

    /**
     * Builds the exception for a free through a stale segment: one whose own scope (FULL mode, a
     * {@link NativeAllocator} allocation with a scope of its own, or a memory manager's page) an earlier
     * free closed, while a later
     * allocation now starts at the same address. Without this, the free would find that later
     * allocation live and free it instead. Names both stack traces when the free record of the stale
     * segment's own allocation is still kept (it is until another allocation at that address is freed).
     * Records the problem.
     *
     * @param scope the stale segment's scope, to tell its allocation's free record from a later one's
     */
    IllegalStateException staleFree(long address, long size, MemorySegment.Scope scope) {
        return staleFree(address, size, scope, address);
    }

    /**
     * {@link #staleFree(long, long, MemorySegment.Scope)} where the later allocation starts at {@code liveStart}: at
     * {@code address}, or below it and covering it (its own record then forgot the stale segment's free record,
     * see {@link #track}).
     */
    IllegalStateException staleFree(long address, long size, MemorySegment.Scope scope, long liveStart) {
        Freed f;
        synchronized (recentlyFreed) {
            f = recentlyFreed.get(address);
        }
        String here = " by thread '" + Thread.currentThread().getName() + "' at" + format(captureStack());
        String message;
        if (f != null && f.allocation.scope() != null && f.allocation.scope().equals(scope)) {
            message = doubleFree(f, here);
        } else {
            message = "double free in allocator '" + allocatorName + "' of the segment at 0x" + Long.toHexString(address)
                    + " (" + size + " bytes): its scope was closed by an earlier free; the allocation made "
                    + whereSince(address, liveStart) + " since stays live\nfreed again" + here;
        }
        problem(message);
        return new IllegalStateException(message);
    }

    /** Where the later allocation over a stale segment at {@code address} starts, for a double free's message. */
    static String whereSince(long address, long liveStart) {
        return liveStart == address ? "at that address"
                : "at 0x" + Long.toHexString(liveStart) + ", " + (address - liveStart) + " bytes below it and over it,";
    }

    private String doubleFree(Freed f, String here) {
        return "double free in allocator '" + allocatorName + "' of the segment at 0x" + Long.toHexString(f.allocation.address())
                + " (" + f.allocation.size() + " bytes): allocated by thread '" + f.allocation.thread() + "' at"
                + format(f.allocation.stack()) + "\nfirst freed by thread '" + f.thread + "'" + (f.site != null ? " at" + format(ownFramesDropped(f.site))
                : " (DebugMode.FULL records where)")
                + "\nfreed again" + here;
    }

    /** Records a problem found elsewhere (for example a double free found when a cache was flushed). */
    void problem(String message) {
        synchronized (problems) {
            problemsSeen++;
            if (problems.size() == PROBLEMS_KEPT) {
                problems.removeFirst();
            }
            problems.addLast(message);
        }
    }

    /** @return problems recorded since the tracker was made, those no longer kept included */
    long problemsSeen() {
        synchronized (problems) {
            return problemsSeen;
        }
    }

    List<String> problems() {
        synchronized (problems) {
            return List.copyOf(problems);
        }
    }

    /** @return the live tracked allocations, for close() to free */
    List<Tracked> liveAllocations() {
        return new ArrayList<>(live.values());
    }

    int liveCount() {
        return live.size();
    }

    void clear() {
        live.clear();
    }

    /**
     * Groups the live tracked allocations by (stack, thread), most bytes first. Each allocation's stack is
     * turned into elements once, by the first report that finds it, and from then on the allocation keeps the
     * one {@link SiteStack} of its stack instead of its own: a report asked each for its stack, and each kept
     * every frame of it (the Throwable caches what it gives), 4.3 GB more heap for a million allocations of one
     * site 90 frames deep, for as long as they lived; and every report hashed and compared each allocation's
     * stack again.
     */
    List<AllocationReport.Leak> leaks() {
        record Site(String thread, SiteStack stack) {
        }
        Map<SiteStack, SiteStack> stacks = new HashMap<>();
        Map<Site, long[]> groups = new HashMap<>();
        for (Tracked t : live.values()) {
            long[] cb = groups.computeIfAbsent(new Site(t.thread(), t.siteStack(stacks)), k -> new long[2]);
            cb[0]++;
            cb[1] += t.size();
        }
        return groups.entrySet().stream()
                .map(e -> new AllocationReport.Leak(e.getKey().thread(), e.getKey().stack().list, e.getValue()[0], e.getValue()[1]))
                .sorted(Comparator.comparingLong(AllocationReport.Leak::bytes).reversed()
                        .thenComparing(Comparator.comparingLong(AllocationReport.Leak::count).reversed()))
                .collect(Collectors.toList());
    }

    static String format(StackTraceElement[] stack) {
        Objects.requireNonNull(stack);
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : stack) {
            sb.append("\n\tat ").append(e);
        }
        return sb.toString();
    }
}
