package dev.offheap.memory.alloc;

import dev.offheap.memory.internal.Failures;
import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.internal.PlatformMBeans;
import dev.offheap.memory.internal.VirtualMemory;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;

/**
 * Per-thread stacks of native memory in the style of LWJGL's {@code MemoryStack}: push a
 * {@link Frame}, allocate from it by bumping a pointer, and pop everything at once with
 * try-with-resources.
 *
 * <pre>{@code
 * try (StackAllocator.Frame frame = StackAllocator.push()) {
 *     MemorySegment name = frame.allocateFrom("config.json");
 *     MemorySegment out = frame.allocate(ValueLayout.JAVA_LONG);
 *     ...                                   // hand both to a native function
 * }                                         // both freed here, in nanoseconds
 * }</pre>
 *
 * <h2>Design</h2>
 * Each thread gets its own stack on first {@link #pushFrame()}: {@linkplain Builder#stackSize(long)
 * stackSize} bytes (64 KiB by default) from the C library, seen through a shared arena of its own. A frame remembers the stack
 * pointer; allocating rounds it up to the alignment and slices; closing the frame restores it. A
 * frame that needs more than the stack has left <em>grows</em> the stack by another chunk (at least
 * the stack size, or the request) instead of failing; chunks are kept for later frames of the same
 * thread. The memory of a thread's stack (grown chunks included) is freed when the thread has ended:
 * stacks of ended threads are swept every 64 new stacks, before a budget refuses a stack or a growth,
 * and by {@link #close()}. A stack whose segment a downcall still uses (one handed to another thread) cannot
 * be freed under it: it stays until a sweep after the call has returned.
 *
 * <h2>Safety and threading</h2>
 * A frame belongs to the thread that pushed it: allocating from it or closing it from another thread
 * throws {@link WrongThreadException}. Only the innermost open frame allocates; closing an outer frame
 * first closes the frames inside it, then throws {@link IllegalStateException}, so the stack stays
 * consistent. In {@link DebugMode#OFF} and {@link DebugMode#SAMPLED} a segment used after its frame is
 * closed still reaches the stack's memory (later frames' data), as in LWJGL; in {@link DebugMode#FULL}
 * each frame has a confined scope of its own, so such a use throws {@link IllegalStateException}.
 * Segments may be passed to other threads while their frame is open (except in {@link DebugMode#FULL},
 * whose frame scopes are confined to the pushing thread). A budget is charged the size of
 * each thread's stack and of every chunk it grows by.
 */
public final class StackAllocator implements AutoCloseable {
    /** Bytes of a thread's stack when no size is configured: 64 KiB. */
    public static final long DEFAULT_STACK_SIZE = 64 * 1024;

    private static final System.Logger LOG = System.getLogger(StackAllocator.class.getName());
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final int STACK_TABLE_SIZE = 256;
    private static final int SWEEP_EVERY_NEW_STACKS = 64;
    /** Chunks are allocated with this alignment, so alignments up to it need no address arithmetic. */
    private static final long CHUNK_ALIGNMENT = 4096;

    // reinterpret is restricted: the chunk was just allocated with exactly this size, and it is freed only a
    // grace period after the scope closes (ChunkMemory).
    @SuppressWarnings("restricted")
    private static MemorySegment inScope(long address, long size, Arena scope) {
        return MemorySegment.ofAddress(address).reinterpret(size, scope, null);
    }

    /**
     * The C library's heap blocks under one stack's chunks. Freed a grace period after the stack's arena
     * closes, not with it: an access may still slip past a shared arena's close
     * ({@link VirtualMemory#RELEASE_GRACE_MILLIS}). Not an arena of its own, so freeing costs no second
     * closing handshake with every thread per stack. Apart from the stack, so that a cleaner's action can
     * hold it without its thread. Thread-safe: the owner thread adds, a closing thread or a cleaner frees.
     */
    private static final class ChunkMemory {
        private final AddressList addresses = new AddressList();
        /** The stack's bytes: counted here, under the lock that {@link #freeAfterGrace} takes. */
        private final AtomicLong bytes;
        private boolean freed;

        ChunkMemory(AtomicLong bytes) {
            this.bytes = bytes;
        }

        /**
         * @return the address of a new block of {@code size} bytes, {@link #CHUNK_ALIGNMENT}-aligned, not zeroed,
         * counted in the stack's bytes: a free that comes after this returns finds them there
         */
        synchronized long allocate(long size) {
            if (freed) {
                // the owner thread grew its stack while another thread's close() freed it
                throw new IllegalStateException("the stack of this frame was freed: its stack allocator is closed");
            }
            long address = NativeFunctions.libc().alignedAlloc(CHUNK_ALIGNMENT, size);
            if (address == 0) {
                throw new OutOfMemoryError("cannot allocate a stack chunk of " + size + " bytes (aligned_alloc failed)");
            }
            addresses.add(address);
            bytes.addAndGet(size);
            return address;
        }

        /**
         * Frees every block a grace period from now; later calls do nothing. A caller that reads the stack's
         * bytes after this (to give them back to the budget) sees every block, as no block is added after it.
         */
        void freeAfterGrace() {
            synchronized (this) {
                if (freed) {
                    return;
                }
                freed = true;
            }
            VirtualMemory.afterGrace(this::freeAll);
        }

        private synchronized void freeAll() {
            addresses.forEach(NativeFunctions.libc()::free);
            addresses.clear();
        }
    }

    private final String name;
    private final long stackSize;
    private final Budget budget;
    private final DebugMode debug;
    private final ThreadStack[] stackTable = new ThreadStack[STACK_TABLE_SIZE];
    private final ThreadLocal<ThreadStack> localStack = new ThreadLocal<>();
    /**
     * One thread's stack, which {@link #pushFrame()} finds with one load and one comparison of threads instead of
     * the table lookup; null in FULL mode, whose pushes all take the slow path. Set by the slow path of a thread
     * only while it is empty or its thread has ended or its stack is freed, so that two threads pushing in turn do
     * not take it from each other (and write its cache line) on every push. Plain: a racing reader sees some
     * stack or null, and a stack's owner is never another thread (see there), so a thread never takes another's
     * stack for its own.
     */
    private ThreadStack lastStack;
    private final List<ThreadStack> stacks = new ArrayList<>();
    private long stacksCreated;
    private volatile boolean closed;
    /** Whether this is the process-wide default, which {@link #close()} refuses. */
    private boolean isDefault;
    /** Where the management view is registered; null if it is not. */
    private final ObjectName mbeanName;
    /**
     * The byte counts of the stacks a close left to their threads ({@link #retainUntilThreadEnds}), until a
     * cleaner frees each; counted by {@link #footprintBytes()} and {@link #stackCount()}. Not the stacks
     * themselves: those reach their threads, which must become unreachable for the cleaner to run. Guarded
     * by stacks.
     */
    private final List<AtomicLong> retained = new ArrayList<>();
    /**
     * The thread whose {@link #close()} is between taking the stacks and putting back those it could not free;
     * null when none is. One at a time: a close() that comes meanwhile waits for it (on stacks), so that it
     * returns only once the memory is freed, not while the other is still freeing it. Guarded by stacks.
     */
    private Thread closing;
    /** Whether the management view was unregistered, which happens once. Guarded by stacks. */
    private boolean unregistered;
    /**
     * The first failure of a sweep ({@link #freeDeadStacks}), later ones suppressed in it, for the next
     * {@link #close()} to throw; null if none. Guarded by stacks.
     */
    private Throwable sweepFailure;

    private StackAllocator(Builder b) {
        this.name = b.name != null ? b.name : "stack-" + NAMES.incrementAndGet();
        this.stackSize = b.stackSize;
        this.budget = b.budget;
        this.debug = b.debug;
        this.mbeanName = b.registerMBean ? AllocatorView.register(name, "stack", debug, budget, -1,
                new AllocatorView.Readings(() -> -1, () -> -1, this::footprintBytes, this::stackCount, () -> -1,
                        this::describe)) : null;
    }

    /** @return the management view's report: the stacks and their bytes */
    private String describe() {
        return "stack allocator '" + name + "' (debug " + debug.name().toLowerCase(java.util.Locale.ROOT) + "): "
                + stackCount() + " thread stacks, " + footprintBytes() + " bytes footprint, " + stackSize
                + " bytes per stack to start" + (closed ? ", closed" : "");
    }

    private static final class Default {
        /** The default stack, or null if the debug system properties were malformed when it was made. */
        static final StackAllocator INSTANCE;
        /** Why there is no default stack; null if there is one. */
        static final IllegalArgumentException FAILURE;

        static {
            // an exception out of a class initializer would surface as ExceptionInInitializerError, and every
            // later use as NoClassDefFoundError: keep the documented IllegalArgumentException instead
            StackAllocator instance = null;
            IllegalArgumentException failure = null;
            try {
                instance = builder().name("default").build();
                instance.isDefault = true;
            } catch (IllegalArgumentException e) {
                failure = e;
            }
            INSTANCE = instance;
            FAILURE = failure;
        }

        static StackAllocator instance() {
            StackAllocator instance = INSTANCE;
            if (instance == null) {
                throw new IllegalArgumentException(FAILURE.getMessage(), FAILURE);
            }
            return instance;
        }
    }

    /**
     * Pushes a frame on the current thread's stack of the process-wide default stack allocator
     * (64 KiB per thread, growing when needed, no budget, the default debug mode).
     *
     * @return the new innermost frame of this thread; close it (try-with-resources) to pop it
     * @throws IllegalArgumentException if the debug system properties were malformed at the first use (read
     *                                  once; every later call throws the same)
     */
    public static Frame push() {
        return Default.instance().pushFrame();
    }

    /**
     * @return the process-wide default stack allocator that {@link #push()} uses; it is never closed:
     * its {@link #close()} throws {@link UnsupportedOperationException}
     * @throws IllegalArgumentException if the debug system properties were malformed at the first use
     */
    public static StackAllocator defaultStack() {
        return Default.instance();
    }

    /**
     * @return a builder with the defaults: {@link #DEFAULT_STACK_SIZE}, no budget, {@link DebugMode#defaultMode()}
     * @throws IllegalArgumentException if the debug system properties are malformed
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Pushes a frame on the current thread's stack of this allocator, creating the stack on the
     * thread's first push. (Named apart from the static {@link #push()}, which uses the default
     * stack: Java allows no static and instance method of the same signature.)
     *
     * @return the new innermost frame of this thread; close it (try-with-resources) to pop it
     * @throws IllegalStateException   if this allocator is closed, or the thread has no stack yet and the budget is
     *                                 closed
     * @throws BudgetExceededException if the thread has no stack yet and the budget refuses one
     */
    public Frame pushFrame() {
        // The fast path: the cached stack is the current thread's and not freed (its owner is null then). It is
        // never set in FULL mode. (The comparison is written as the frame's checks write theirs, so that the
        // compiler folds those into this one.)
        ThreadStack s = lastStack;
        if (s == null || Thread.currentThread() != s.owner) {
            return pushFrameSlow();
        }
        return s.push();
    }

    private Frame pushFrameSlow() {
        if (closed) {
            throw Checks.closed(name);
        }
        ThreadStack s = stack();
        Frame frame = s.push();
        if (debug == DebugMode.FULL) {
            frame.own = Arena.ofConfined();
            frame.pushSite = AllocationTracker.site();
            s.openFrame(frame);
        }
        return frame;
    }

    /** @return the name used in messages */
    public String name() {
        return name;
    }

    /** @return the initial size of each thread's stack, in bytes */
    public long stackSize() {
        return stackSize;
    }

    /** @return the debug mode */
    public DebugMode debugMode() {
        return debug;
    }

    /**
     * @return bytes of native memory held by all threads' stacks, grown chunks included, and after
     * {@link #close()} those of the stacks it left to their threads (see there) until they are freed
     */
    public long footprintBytes() {
        synchronized (stacks) {
            long sum = 0;
            for (ThreadStack s : stacks) {
                sum += s.bytes.get();
            }
            for (AtomicLong bytes : retained) {
                sum += bytes.get();
            }
            return sum;
        }
    }

    /**
     * @return the number of thread stacks held (live threads, and ended ones not swept yet; after
     * {@link #close()}, those it left to their threads until they are freed)
     */
    public int stackCount() {
        synchronized (stacks) {
            return stacks.size() + retained.size();
        }
    }

    /**
     * Frees the stacks of every thread; frames still open are reported as a WARNING through
     * {@link System.Logger} and their segments become inaccessible. One exception, in
     * {@link DebugMode#FULL}: the segments of another live thread's frames are confined to that thread,
     * and only it can close them, so its stack stays allocated (and counted in the budget, in
     * {@link #footprintBytes()} and {@link #stackCount()}, and by the {@link AllocatorMXBean}, which stays
     * registered until then) until that thread ends; the thread can still use the segments of its open
     * frames and pop them, and can push no new frame. Closing twice does nothing. A close() called while
     * another thread's close() is running waits for it: it returns once the stacks are freed (or throws,
     * as below, saying what stays), never while the other one is still freeing them. What throws while one
     * stack is handled (the open-frame warning's log handler, the budget refusing a release, an {@link Error})
     * stops no other: every other stack is still freed (or kept for its thread, as above), and the first
     * failure is thrown after, the later ones suppressed in it; a stack it left allocated stays listed, and
     * a later {@code close()} frees it. The same holds for the sweeps that free the stacks of ended threads
     * before (see the class description): a stack a sweep freed is gone from the counts even if its budget
     * refused the release, and the first such failure is thrown by the next {@code close()}, first.
     *
     * @throws UnsupportedOperationException if this is the process-wide {@link #defaultStack()}, which
     *                                       every thread's {@link #push()} shares and which is never closed
     * @throws IllegalStateException         if a segment of a thread's stack is in use by a downcall now (its
     *                                       arena cannot close, as {@link Arena#close()} says): that stack stays
     *                                       allocated and charged, the other stacks are freed, the allocator
     *                                       refuses new frames from then on, and a later {@code close()}
     *                                       frees the rest
     */
    @Override
    public void close() {
        if (isDefault) {
            // closed, it would refuse every push() of every thread of the process, for good, and free the
            // stacks under frames other threads have open: the same refusal as Arena.global().close()
            throw new UnsupportedOperationException("the process-wide default stack allocator (StackAllocator.defaultStack()) "
                    + "is shared by every thread's StackAllocator.push() and cannot be closed; build an allocator of your"
                    + " own with StackAllocator.builder() to close it");
        }
        List<ThreadStack> all;
        boolean first;
        Throwable swept;
        synchronized (stacks) {
            Thread self = Thread.currentThread();
            if (closing == self) {
                return; // called back from inside this thread's close (by a log handler): it would wait for itself
            }
            // another close took the stacks and is freeing them: returning now, before they are freed, would tell
            // this caller that the memory is freed (its budget given back) while it is not yet
            awaitNoCloseLocked();
            // after a close that a downcall stopped, stacks holds the stacks it could not free
            if (closed && stacks.isEmpty()) {
                return;
            }
            first = !closed;
            closed = true;
            closing = self;
            all = new ArrayList<>(stacks);
            stacks.clear();
            swept = sweepFailure;
            sweepFailure = null;
            // the table references threads: a stack retained until its thread ends must not keep the thread
            java.util.Arrays.fill(stackTable, null);
            lastStack = null;
        }
        List<ThreadStack> inUse = new ArrayList<>();
        List<ThreadStack> notFreed = new ArrayList<>();
        // a sweep's failure came first
        Throwable failure = swept;
        try {
            Throwable freeing = freeOrRetain(all, first, inUse, notFreed);
            if (freeing != null) {
                failure = Failures.firstOrSuppressed(failure, freeing);
            }
        } finally {
            // kept where the next close() (and footprintBytes, stackCount) find them
            boolean last;
            synchronized (stacks) {
                stacks.addAll(inUse);
                stacks.addAll(notFreed);
                closing = null;
                stacks.notifyAll();
                last = lastHeldGoneLocked();
            }
            if (last) {
                PlatformMBeans.unregister(mbeanName);
            }
        }
        IllegalStateException downcalls = inUse.isEmpty() ? null : new IllegalStateException("stack allocator '" + name
                + "' closed while a downcall uses a segment of " + inUse.size() + " thread stacks: they stay allocated;"
                + " close() again once the calls have returned");
        if (failure != null) {
            if (downcalls != null) {
                failure.addSuppressed(downcalls);
            }
            if (!notFreed.isEmpty()) {
                failure.addSuppressed(new IllegalStateException("stack allocator '" + name + "': " + notFreed.size()
                        + " thread stacks stay allocated after this failure; a later close() frees them"));
            }
            Failures.throwIfAny(failure);
        }
        if (downcalls != null) {
            throw downcalls;
        }
    }

    /** Waits, holding stacks, until no close() is running; an interrupt is kept for later, not thrown. */
    private void awaitNoCloseLocked() {
        boolean interrupted = false;
        while (closing != null) {
            try {
                stacks.wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The management view goes once everything is freed: the allocator is closed, no close is between
     * taking the stacks and putting back the ones it could not free, none is left, and no stack is kept
     * for its thread. Holds stacks.
     *
     * @return whether the caller is to unregister the view now (true once at most)
     */
    private boolean lastHeldGoneLocked() {
        if (unregistered || !closed || closing != null || !stacks.isEmpty() || !retained.isEmpty()) {
            return false;
        }
        unregistered = true;
        return true;
    }

    /**
     * close()'s work on the stacks it took: frees each, or retains it for its thread, or adds it to inUse. What
     * throws for one stack (the warning's log handler, the budget refusing the release as an over-release, an
     * Error) does not stop the others: they are all freed or retained, and the first failure is returned (later
     * ones suppressed in it) for close() to throw after. A stack that such a failure left allocated goes to
     * notFreed, for a later close(). Earlier, the stacks after the one that threw were lost: neither freed nor
     * listed, their memory and budget charge kept for good, and a later close() did nothing.
     *
     * @return the first failure, or null if none
     */
    private Throwable freeOrRetain(List<ThreadStack> all, boolean first, List<ThreadStack> inUse,
                                   List<ThreadStack> notFreed) {
        Throwable failure = null;
        for (ThreadStack s : all) {
            // Throwable: a log handler may throw a checked exception (sneakily, or written in Kotlin), which went
            // past a catch of RuntimeException and Error and left the stacks after this one neither freed nor listed
            if (first && s.depth > 0) {
                try {
                    warnOpenFrames(s);
                } catch (Throwable e) {
                    failure = Failures.firstOrSuppressed(failure, e);
                }
            }
            try {
                freeOrRetain(s, inUse);
            } catch (Throwable e) {
                failure = Failures.firstOrSuppressed(failure, e);
                if (s.arena.scope().isAlive() && !isRetained(s)) {
                    notFreed.add(s);
                }
            }
        }
        return failure;
    }


    private boolean isRetained(ThreadStack s) {
        synchronized (stacks) {
            return retained.contains(s.bytes); // by identity: AtomicLong keeps Object's equals
        }
    }

    private void warnOpenFrames(ThreadStack s) {
        Frame innermost = s.openFrames != null ? s.openFrames[s.depth] : null;
        LOG.log(System.Logger.Level.WARNING, "stack allocator '" + name + "' closed while thread '" + s.thread.getName()
                + "' had " + s.depth + " open frames" + (innermost != null
                ? "; innermost pushed at" + AllocationTracker.format(AllocationTracker.ownFramesDropped(innermost.pushSite))
                : ""));
    }

    /** Frees one stack, or retains it for its thread, or adds it to inUse. */
    private void freeOrRetain(ThreadStack s, List<ThreadStack> inUse) {
        if (debug != DebugMode.FULL || !s.thread.isAlive()) {
            // OFF and SAMPLED segments are scoped to the stack's shared arena, which closes here; a
            // thread that has ended can no longer reach the segments of its confined frame scopes
            if (!free(s)) {
                inUse.add(s);
            }
        } else if (s.thread == Thread.currentThread()) {
            s.closeOpenFrameScopes();
            if (!free(s)) {
                inUse.add(s);
            }
        } else {
            // FULL mode, another live thread: its frames' segments live in scopes confined to it, which
            // no other thread can close, so the memory under them must stay until that thread ends
            retainUntilThreadEnds(s);
        }
    }

    @Override
    public String toString() {
        return "StackAllocator[" + name + ", " + stackSize + " bytes per thread]";
    }

    // ------------------------------------------------------------------ per-thread stacks

    private ThreadStack stack() {
        Thread t = Thread.currentThread();
        ThreadStack s = stackTable[(int) t.threadId() & (STACK_TABLE_SIZE - 1)];
        if (s != null && s.owner == t) {
            // FULL mode caches none: a test of the cache here would take the lock on every push
            if (debug != DebugMode.FULL && isFreeToCache(lastStack)) {
                synchronized (stacks) {
                    cacheLocked(s);
                }
            }
            return s;
        }
        return stackSlow(t);
    }

    /** Makes {@code s} the {@link #lastStack} if that is free (see there). Holds stacks. */
    private void cacheLocked(ThreadStack s) {
        // not after close, which cleared it: the stacks it freed are all marked, but a stack made later is not
        if (debug != DebugMode.FULL && !closed && !s.isFreed() && isFreeToCache(lastStack)) {
            lastStack = s;
        }
    }

    /** @return whether the {@link #lastStack} slot, holding {@code cached}, may be taken: empty, freed or of an ended thread */
    private static boolean isFreeToCache(ThreadStack cached) {
        return cached == null || cached.isFreed() || !cached.thread.isAlive();
    }

    private ThreadStack stackSlow(Thread t) {
        ThreadStack s = localStack.get();
        if (s == null || s.isFreed()) {
            s = newStack(t);
            localStack.set(s);
        }
        int slot = (int) t.threadId() & (STACK_TABLE_SIZE - 1);
        synchronized (stacks) {
            ThreadStack there = stackTable[slot];
            if (there == null || there.isFreed() || !there.thread.isAlive()) {
                stackTable[slot] = s;
            }
            cacheLocked(s);
        }
        return s;
    }

    private ThreadStack newStack(Thread t) {
        synchronized (stacks) {
            if (closed) {
                throw Checks.closed(name);
            }
            ThreadStack s = new ThreadStack(t);
            s.addChunk(stackSize);
            s.useChunk(0);
            stacks.add(s);
            if (++stacksCreated % SWEEP_EVERY_NEW_STACKS == 0) {
                freeDeadStacks();
            }
            return s;
        }
    }

    /**
     * Frees the stacks of ended threads. Holds stacks, and frees under it: a thread that takes the lock
     * after a sweep finds the budget given back, not yet to come (see {@link #reserve}).
     */
    private void freeDeadStacks() {
        for (int i = stacks.size() - 1; i >= 0; i--) {
            ThreadStack other = stacks.get(i);
            if (other.thread.isAlive()) {
                continue;
            }
            boolean gone;
            try {
                gone = free(other);
            } catch (Throwable e) {
                // As in close(): what throws for one stack (the budget refusing its release as an over-release, an
                // Error) stops no other, and a stack whose memory is freed leaves the list whether or not its bytes
                // went back. It threw out of the push or growth of whichever thread swept, which is not at fault,
                // and left the stack listed with its arena closed: counted for good, and taken by every later free
                // for one a downcall holds. The failure is close()'s to throw.
                sweepFailure = Failures.firstOrSuppressed(sweepFailure, e);
                gone = !other.arena.scope().isAlive();
            }
            // a stack that a downcall still uses stays listed, for the next sweep
            if (gone) {
                stacks.set(i, stacks.getLast());
                stacks.removeLast();
            }
        }
    }

    /**
     * Charges the budget for a chunk. When it refuses, the stacks of ended threads are freed and the
     * charge is tried once more: they hold budget until the next sweep, which comes only with a new
     * stack, and a refused stack is none, so once ended threads held the whole budget every later
     * thread's first push (and every growth) would be refused for good.
     */
    private void reserve(long size) {
        try {
            budget.reserve(size);
        } catch (BudgetExceededException e) {
            synchronized (stacks) {
                // tried again even if none is dead now: another thread's sweep may have freed some since
                freeDeadStacks();
                budget.reserve(size);
            }
        }
    }

    /**
     * Frees a stack's memory and gives its bytes back to the budget, and refuses further frames on it.
     *
     * @return false if a downcall uses a segment of the stack now (one handed to another thread, which may
     * outlive the stack's thread): its arena cannot close ({@link Arena#close()} throws), so nothing is freed
     * under the native code, and the stack stays allocated and charged until a later try
     */
    private boolean free(ThreadStack s) {
        s.markFreed();
        try {
            s.arena.close();
        } catch (IllegalStateException e) {
            return false;
        }
        s.memory.freeAfterGrace();
        long bytes = s.bytes.get();
        if (budget != null && bytes > 0) {
            budget.release(bytes);
        }
        return true;
    }

    /**
     * Refuses further frames on a stack whose memory cannot be freed yet, and frees it (and returns its
     * bytes to the budget) once its thread has ended and is collected; counted as held until then.
     */
    private void retainUntilThreadEnds(ThreadStack s) {
        s.markFreed();
        // the action must not reach the thread, or it would never run: it holds the allocator, which holds
        // no stack of a thread it retains (close took them all), only their byte counts
        Arena arena = s.arena;
        ChunkMemory memory = s.memory;
        Budget charged = budget;
        AtomicLong chunkBytes = s.bytes;
        StackAllocator allocator = this;
        synchronized (stacks) {
            retained.add(chunkBytes);
        }
        try {
            RetainedStacks.CLEANER.register(s.thread, () -> {
                arena.close();
                memory.freeAfterGrace();
                try {
                    // read when the memory goes: the thread may have grown its stack after close
                    long bytes = chunkBytes.get();
                    if (charged != null && bytes > 0) {
                        charged.release(bytes);
                    }
                } finally {
                    // even if the budget refused the release: else the stack counted as held, and kept the bean, for good
                    allocator.retainedStackFreed(chunkBytes);
                }
            });
        } catch (RuntimeException | Error e) {
            // not retained after all (no cleaner will free it): close() keeps it listed for a later close
            synchronized (stacks) {
                retained.remove(chunkBytes);
            }
            throw e;
        }
    }

    /** Called by the cleaner once a retained stack is freed; the last one unregisters the management view. */
    private void retainedStackFreed(AtomicLong chunkBytes) {
        boolean last;
        synchronized (stacks) {
            retained.remove(chunkBytes); // by identity: AtomicLong keeps Object's equals
            last = lastHeldGoneLocked();
        }
        if (last) {
            PlatformMBeans.unregister(mbeanName);
        }
    }

    /** Holds the cleaner's thread, made only if a closed allocator ever has to retain a stack. */
    private static final class RetainedStacks {
        static final Cleaner CLEANER = Cleaner.create();
    }

    /** One thread's stack: chunks of native memory seen through one shared arena, and the stack pointer. */
    private final class ThreadStack {
        final Thread thread;
        /** The scope of every segment the stack hands out; closing it makes them all inaccessible. */
        final Arena arena = Arena.ofShared();
        /** The chunks' memory, which {@link #arena} only views: freed a grace period after {@link #arena} closes. */
        final ChunkMemory memory;
        MemorySegment[] chunks = new MemorySegment[2];
        int chunkCount;
        int chunkIndex;
        /** {@code chunks[chunkIndex]} and its size, kept so that allocation reads two fields, not the array. */
        MemorySegment chunk;
        long limit;
        long offset;
        int depth;
        /** Pushes so far; each frame's number, so a frame knows whether it is still open. */
        long pushes;
        /** The number of the innermost open frame, 0 when none: one comparison tells a frame it may allocate. */
        long top;
        /**
         * The number of the open frame at each depth below the innermost one (index 0 unused): written when a
         * frame is pushed on it. The entry at the innermost depth may be stale; {@link #top} holds that frame's.
         */
        long[] seqAtDepth = new long[16];
        /** FULL mode only: the open frames, whose scopes an out-of-order close must close. */
        Frame[] openFrames;
        /** Bytes of its chunks; an object of its own, so that a cleaner can read it without the thread. */
        final AtomicLong bytes = new AtomicLong();
        /**
         * {@link #thread} while the stack may be used; null once it is freed (or retained for its thread) by the
         * allocator's close or a sweep, which may run on another thread. One field for both, so that the check
         * every push and allocation makes, the current thread against this one, also refuses a freed stack.
         * Deliberately not volatile: a volatile read on every push and allocation cost about 1 ns of 8. If the
         * owner thread has not seen the null yet, what it allocates lies in the stack's arena, which close()
         * closes, so every access through it throws IllegalStateException all the same; nothing reads freed
         * memory. Only the owner thread writes it non-null (in the constructor, which runs on it), so another
         * thread reads it as that thread or null, never as itself.
         */
        Thread owner;

        ThreadStack(Thread thread) {
            this.thread = thread;
            this.owner = thread;
            this.memory = new ChunkMemory(bytes);
        }

        boolean isFreed() {
            return owner == null;
        }

        void markFreed() {
            owner = null;
        }

        /** Pushes a frame on this stack, which belongs to the current thread; FULL mode's part is the caller's. */
        Frame push() {
            int parentDepth = depth;
            // the number of the frame below is kept only once it has a frame on it: the outermost frame's push,
            // the common case, stores no array element (see isOpen)
            if (parentDepth > 0) {
                if (parentDepth >= seqAtDepth.length) {
                    seqAtDepth = java.util.Arrays.copyOf(seqAtDepth, parentDepth * 2);
                }
                seqAtDepth[parentDepth] = top;
            }
            long seq = ++pushes;
            int frameDepth = parentDepth + 1;
            depth = frameDepth;
            // the frame is not stored anywhere (outside FULL mode), so escape analysis can remove it
            Frame frame = new Frame(this, chunkIndex, offset, frameDepth, seq, top);
            top = seq;
            return frame;
        }

        void useChunk(int index) {
            chunkIndex = index;
            chunk = chunks[index];
            limit = chunk.byteSize();
        }

        /** FULL mode, on the owner thread: closes the scopes of the open frames, innermost first. */
        void closeOpenFrameScopes() {
            if (openFrames == null) {
                return;
            }
            for (int d = depth; d >= 1; d--) {
                Frame frame = openFrames[d];
                if (frame != null) {
                    frame.closeScope();
                }
            }
        }

        void openFrame(Frame frame) {
            if (openFrames == null) {
                openFrames = new Frame[16];
            }
            if (frame.depth >= openFrames.length) {
                openFrames = java.util.Arrays.copyOf(openFrames, frame.depth * 2);
            }
            openFrames[frame.depth] = frame;
        }

        MemorySegment addChunk(long size) {
            if (budget != null) {
                reserve(size);
            }
            long address;
            try {
                address = memory.allocate(size);
            } catch (RuntimeException | Error e) {
                if (budget != null) {
                    budget.release(size);
                }
                throw e;
            }
            // counted in bytes from here: a close() that frees the stack now gives this chunk's charge back
            // with the others', also when the scope below is closed already (then this throws, and the block
            // goes with the stack's other blocks)
            MemorySegment chunk = inScope(address, size, arena);
            if (chunkCount == chunks.length) {
                chunks = java.util.Arrays.copyOf(chunks, chunkCount * 2);
            }
            chunks[chunkCount++] = chunk;
            return chunk;
        }

        /** Moves the stack pointer to a chunk that fits {@code size} bytes at {@code alignment}. @return the new offset */
        long grow(long size, long alignment) {
            long need = size + Math.max(0, alignment - CHUNK_ALIGNMENT);
            if (need < 0) {
                // before a chunk is added and charged: the sum overflowed, no chunk could hold it
                throw new OutOfMemoryError("stack allocator '" + name + "' cannot allocate " + size
                        + " bytes aligned to " + alignment + ": more than a chunk can hold");
            }
            for (int i = chunkIndex + 1; i < chunkCount; i++) {
                if (chunks[i].byteSize() >= need) {
                    useChunk(i);
                    return 0;
                }
            }
            long chunkSize = Math.max(stackSize, need);
            addChunk(chunkSize);
            // keep chunks in the order frames use them: the new one right after the current one
            MemorySegment added = chunks[chunkCount - 1];
            System.arraycopy(chunks, chunkIndex + 1, chunks, chunkIndex + 2, chunkCount - 1 - (chunkIndex + 1));
            chunks[chunkIndex + 1] = added;
            useChunk(chunkIndex + 1);
            return 0;
        }
    }

    /**
     * A frame of a thread's stack: an {@link Arena} whose allocations bump the stack pointer and are
     * all freed by {@link #close()}. Confined to the thread that pushed it.
     */
    public static final class Frame implements Arena {
        /** The scope of a closed frame whose segments keep the stack's scope (OFF and SAMPLED): closed at once. */
        private static final MemorySegment.Scope CLOSED_SCOPE = closedScope();

        private final StackAllocator.ThreadStack stack;
        private final int savedChunk;
        private final long savedOffset;
        private final int depth;
        private final long seq;
        /** The number of the frame this one was pushed on, the thread's innermost again once this one closes. */
        private final long parentSeq;
        private Arena own;
        private Throwable pushSite;

        private Frame(StackAllocator.ThreadStack stack, int savedChunk, long savedOffset, int depth, long seq,
                      long parentSeq) {
            this.stack = stack;
            this.savedChunk = savedChunk;
            this.savedOffset = savedOffset;
            this.depth = depth;
            this.seq = seq;
            this.parentSeq = parentSeq;
        }

        private static MemorySegment.Scope closedScope() {
            Arena arena = Arena.ofConfined();
            arena.close();
            return arena.scope();
        }

        /** Open: not closed, and not popped by the close of a frame outside it. Owner thread only. */
        private boolean isOpen() {
            StackAllocator.ThreadStack s = stack;
            return s.top == seq || depth < s.depth && s.seqAtDepth[depth] == seq;
        }

        /** @return 1 for the outermost frame of a thread, 2 for a frame inside it, ... */
        public int depth() {
            return depth;
        }

        /**
         * Allocates zeroed memory in this frame.
         *
         * @param byteSize      the size in bytes, at least 0
         * @param byteAlignment the alignment in bytes, a power of two
         * @return a segment of exactly {@code byteSize} zero bytes, valid until this frame is closed
         * @throws IllegalArgumentException if the size is negative or the alignment not a positive power of two
         * @throws IllegalStateException    if this frame is closed, or is not the thread's innermost open frame,
         *                                  or its stack allocator is closed, or the stack must grow and its budget
         *                                  is closed
         * @throws WrongThreadException     if called from a thread other than the one that pushed the frame
         * @throws BudgetExceededException  if the stack must grow and its budget refuses
         * @throws OutOfMemoryError         if the stack must grow and the system has no memory for it, or
         *                                  the size and alignment are more than any chunk can hold
         */
        @Override
        public MemorySegment allocate(long byteSize, long byteAlignment) {
            return Zeroing.zero(bump(byteSize, byteAlignment));
        }

        /**
         * Allocates memory in this frame without zeroing it.
         *
         * @param byteSize the size in bytes, at least 0
         * @return a segment of exactly {@code byteSize} bytes, 16-byte aligned, with undefined contents
         * @throws IllegalArgumentException if the size is negative
         * @throws IllegalStateException    if this frame is closed, or is not the thread's innermost open frame,
         *                                  or its stack allocator is closed, or the stack must grow and its budget
         *                                  is closed
         * @throws WrongThreadException     if called from a thread other than the one that pushed the frame
         * @throws BudgetExceededException  if the stack must grow and its budget refuses
         * @throws OutOfMemoryError         if the stack must grow and the system has no memory for it, or
         *                                  the size and alignment are more than any chunk can hold
         */
        public MemorySegment allocateUninitialized(long byteSize) {
            return bump(byteSize, 16);
        }

        /**
         * Allocates memory in this frame without zeroing it.
         *
         * @param byteSize      the size in bytes, at least 0
         * @param byteAlignment the alignment in bytes, a power of two
         * @return a segment of exactly {@code byteSize} bytes with undefined contents
         * @throws IllegalArgumentException if the size is negative or the alignment not a positive power of two
         * @throws IllegalStateException    if this frame is closed, or is not the thread's innermost open frame,
         *                                  or its stack allocator is closed, or the stack must grow and its budget
         *                                  is closed
         * @throws WrongThreadException     if called from a thread other than the one that pushed the frame
         * @throws BudgetExceededException  if the stack must grow and its budget refuses
         * @throws OutOfMemoryError         if the stack must grow and the system has no memory for it, or
         *                                  the size and alignment are more than any chunk can hold
         */
        public MemorySegment allocateUninitialized(long byteSize, long byteAlignment) {
            return bump(byteSize, byteAlignment);
        }

        // reinterpret is restricted: in FULL mode the slice is re-scoped to this frame's own arena, which closes first.
        @SuppressWarnings("restricted")
        private MemorySegment bump(long byteSize, long byteAlignment) {
            StackAllocator.ThreadStack s = stack;
            // one comparison for the wrong thread and a freed stack (owner null), told apart after
            if (Thread.currentThread() != s.owner) {
                throw Thread.currentThread() != s.thread ? wrongThread() : notInnermost();
            }
            if (s.top != seq) {
                throw notInnermost();
            }
            Checks.sizeAndAlignment(byteSize, byteAlignment);
            MemorySegment chunk = s.chunk;
            long start = byteAlignment <= CHUNK_ALIGNMENT ? (s.offset + byteAlignment - 1) & -byteAlignment
                    : ((chunk.address() + s.offset + byteAlignment - 1) & -byteAlignment) - chunk.address();
            // past the limit, or overflowed (negative): one unsigned comparison
            if (Long.compareUnsigned(start + byteSize, s.limit) > 0) {
                s.offset = s.grow(byteSize, byteAlignment);
                chunk = s.chunk;
                start = ((chunk.address() + byteAlignment - 1) & -byteAlignment) - chunk.address();
            }
            s.offset = start + byteSize;
            MemorySegment segment = chunk.asSlice(start, byteSize);
            return own == null ? segment : segment.reinterpret(own, null);
        }

        private WrongThreadException wrongThread() {
            return new WrongThreadException("frame " + depth + " belongs to thread '" + stack.thread.getName()
                    + "'; it was used from thread '" + Thread.currentThread().getName() + "'");
        }

        private IllegalStateException notInnermost() {
            if (stack.isFreed()) {
                return new IllegalStateException("the stack of this frame was freed: its stack allocator is closed");
            }
            if (!isOpen()) {
                return new IllegalStateException("frame " + depth + " is closed");
            }
            return new IllegalStateException("frame " + depth + " is not the innermost open frame (frame " + stack.depth
                    + " is); allocate from the innermost frame");
        }

        /**
         * The scope of this frame's segments while the frame is open: its own in {@link DebugMode#FULL}, else its
         * stack's. Once the frame is closed (or popped by the close of a frame outside it) the scope is not alive,
         * as {@link Arena#close()} promises, in every mode: in {@link DebugMode#OFF} and {@link DebugMode#SAMPLED}
         * it is then a closed scope of no segment, since the frame's segments keep the stack's scope and still
         * reach its memory (see the class description). Read on the frame's thread, it tells a closed frame at once.
         *
         * @return the frame's scope, alive exactly while the frame is open and its stack allocator is not closed
         */
        @Override
        public MemorySegment.Scope scope() {
            if (own != null) {
                return own.scope();
            }
            return isOpen() ? stack.arena.scope() : CLOSED_SCOPE;
        }

        /**
         * Pops this frame: everything allocated in it is freed. If frames inside it are still open, they
         * are closed first and {@link IllegalStateException} is thrown after, naming them. Closing twice
         * does nothing.
         *
         * @throws WrongThreadException  if called from a thread other than the one that pushed the frame
         * @throws IllegalStateException if frames inside this one were still open (they are closed now); or, in
         *                               {@link DebugMode#FULL}, if a native call (a downcall whose upcall closes the
         *                               frame) is using a segment of this frame or of a frame inside it: then the
         *                               frame stays open, its memory not handed to the next frame, and closes once
         *                               the call has returned
         */
        @Override
        public void close() {
            StackAllocator.ThreadStack s = stack;
            // the owner's comparison first, written as bump's, so that the compiler folds it into that one; a frame
            // of a freed stack (owner null) may still be popped on its thread
            if (Thread.currentThread() != s.owner && Thread.currentThread() != s.thread) {
                throw wrongThread();
            }
            // the innermost frame (the common case) is open without the depth and array checks
            if (s.top != seq && !isOpen()) {
                return;
            }
            int innerOpen = s.depth - depth;
            if (innerOpen > 0 && s.openFrames != null) {
                for (int d = s.depth; d > depth; d--) {
                    Frame inner = s.openFrames[d];
                    // null once the allocator's close() on this thread has closed and forgotten the frame
                    if (inner != null) {
                        inner.closeScope();
                    }
                }
            }
            // FULL mode: the scope first. A native call working on a segment of this frame holds it, and its close
            // is refused (IllegalStateException): the frame must then stay as it was, its memory not handed on to
            // the next frame while the call still uses it (a close from the call's upcall, on this thread)
            closeScope();
            if (s.chunkIndex != savedChunk) {
                s.useChunk(savedChunk);
            }
            s.offset = savedOffset;
            s.depth = depth - 1;
            s.top = parentSeq;
            if (innerOpen > 0) {
                throw new IllegalStateException("frame " + depth + " was closed while " + innerOpen
                        + " frames inside it were open; they were closed with it (close frames in LIFO order)");
            }
        }

        private void closeScope() {
            // alive unless the allocator's close() closed it already: popping the frame after that is fine
            if (own != null) {
                if (own.scope().isAlive()) {
                    try {
                        own.close();
                    } catch (IllegalStateException inUse) {
                        throw new IllegalStateException("frame " + depth + " cannot be closed while a native call uses"
                                + " one of its segments; it stays open: close it once the call has returned", inUse);
                    }
                }
                if (stack.openFrames != null) {
                    stack.openFrames[depth] = null;
                }
            }
        }

        // ---- allocateFrom without zeroing: the value overwrites the memory right away

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(String str, Charset charset) {
            return AllocateFrom.string(this::bump, str, charset);
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfByte layout, byte value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfChar layout, char value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfShort layout, short value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfInt layout, int value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfFloat layout, float value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfLong layout, long value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout.OfDouble layout, double value) {
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(AddressLayout layout, MemorySegment value) {
            AllocateFrom.storableAddress(value); // before the bump: a refused value must not keep the frame's bytes
            MemorySegment seg = bump(layout.byteSize(), layout.byteAlignment());
            seg.set(layout, 0, value);
            return seg;
        }

        /** {@inheritDoc} Allocates without zeroing. */
        @Override
        public MemorySegment allocateFrom(ValueLayout elementLayout, MemorySegment source, ValueLayout sourceElementLayout,
                                          long sourceOffset, long elementCount) {
            // checked before the bump: a refused call neither keeps the frame's bytes nor grows the stack (a chunk
            // charged to the budget until the thread ends); a copy that fails all the same gives them back at close
            return AllocateFrom.copy(this::bump, null, elementLayout, source, sourceElementLayout, sourceOffset,
                    elementCount);
        }

        @Override
        public String toString() {
            return "StackAllocator.Frame[depth " + depth + "]";
        }
    }

    /** Configures a {@link StackAllocator}. Not thread-safe; build once. */
    public static final class Builder {
        private long stackSize = DEFAULT_STACK_SIZE;
        private Budget budget;
        private DebugMode debug = DebugMode.defaultMode();
        private String name;
        private boolean registerMBean = true;

        private Builder() {
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
         * @param bytes the initial size of each thread's stack, and the least a growth adds; 1 KiB to 1 GiB
         * @return this builder
         * @throws IllegalArgumentException if {@code bytes} is out of range
         */
        public Builder stackSize(long bytes) {
            if (bytes < 1024 || bytes > (1L << 30)) {
                throw new IllegalArgumentException("stack size must be from 1 KiB to 1 GiB, was " + bytes + " bytes");
            }
            this.stackSize = bytes;
            return this;
        }

        /**
         * @param budget charged each thread's stack and every chunk it grows by; refusals throw
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
         * @param mode {@link DebugMode#FULL} gives each frame its own scope (use after pop throws) and
         *             records where frames left open were pushed; the other modes record nothing
         * @return this builder
         * @throws NullPointerException if {@code mode} is null
         */
        public Builder debug(DebugMode mode) {
            this.debug = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * @param name used in messages
         * @return this builder
         * @throws NullPointerException     if {@code name} is null
         * @throws IllegalArgumentException if {@code name} is blank
         */
        public Builder name(String name) {
            this.name = Checks.name(name);
            return this;
        }

        /** @return a new stack allocator; threads get their stacks on first push */
        public StackAllocator build() {
            return new StackAllocator(this);
        }
    }
}
