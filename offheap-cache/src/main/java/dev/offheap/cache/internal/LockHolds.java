package dev.offheap.cache.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The segment locks a thread holds while user code runs, and the detection of deadlocks among threads that
 * wait for a segment lock while holding one.
 *
 * <p>Two calls run the caller's code under a segment's lock: a zero-copy reader ({@code read} and
 * friends) holds the segment's read lock while its function runs, and {@code compute} holds the write lock
 * while its function and the serializers run. Inside them the caller's own cache is refused (the call
 * could wait for that lock forever), but other caches may be used, and two threads that do it crosswise
 * (one copying from a reader of A into B while another copies from a reader of B into A, or two computes
 * that each write the other's cache) would wait for each other forever: each holds what the other waits
 * for, and no lock of one cache knows the other.
 *
 * <p>Waits for another thread's load of a key take part too. A thread inside a reader of B that waits
 * for another thread's load of a key of A, whose loader writes B, waits for a thread that waits for its
 * lock; so does a loader that needs a lock held by a thread that waits for its load. So a thread that is
 * loading counts as holding something as well: others may wait for it.
 *
 * <p>So a thread that holds such a lock (or is loading) and has to wait for a lock or for another thread's
 * load does not block without end: it publishes what it holds and what it waits for, waits in slices of
 * {@link #CHECK_MILLIS}, and between slices looks for a cycle of such waits that leads back to itself. A cycle seen twice in a row, made of
 * the same waits (a waiter makes a new one each time it starts waiting), is a deadlock: its waiter with
 * the highest thread id gets an {@link IllegalStateException} naming the caches and threads, which unwinds
 * its reader, compute or load and releases what the others wait for; they go on. Threads that hold nothing
 * and load nothing (every call not made from inside a reader, compute or loader) wait as before, and no
 * thread pays anything for this before it would block.
 *
 * <p>Thread-safety: the holds are the current thread's ({@link #current}); the published waits are
 * immutable and read by every waiter.
 */
final class LockHolds {
    /** How long a waiter that holds locks blocks before it looks for a deadlock again. */
    static final long CHECK_MILLIS = 10;

    private static final ThreadLocal<LockHolds> CURRENT = ThreadLocal.withInitial(LockHolds::new);
    /** The waits of the threads that hold a segment lock while they wait for another, by thread. */
    private static final ConcurrentHashMap<Thread, Wait> WAITS = new ConcurrentHashMap<>();

    /** Gives every shard of the process a number of its own ({@link #reserveIds}). */
    private static final AtomicLong NEXT_ID = new AtomicLong(1);

    // The holds are shard numbers and modes, not references: a push and a pop run on every zero-copy
    // read, and a reference stored into these long-lived arrays would pay the collector's write barrier
    // each time. Zero-copy reads of 1,000,000 x 100 B entries with these holds: median 1.035M a second
    // against 1.063M for the code before (eight single-fork JMH runs of each, alternating; both spread
    // over 0.92-1.38M from fork to fork).
    private long[] shards = new long[4];
    private boolean[] writes = new boolean[4];
    private int depth;
    /** How many loads this thread runs now that other threads may wait for ({@link #startLoad}). */
    private int loads;

    private LockHolds() {
    }

    /** @return the current thread's holds */
    static LockHolds current() {
        return CURRENT.get();
    }

    /**
     * @param count how many shards a cache has
     * @return the first of {@code count} consecutive shard numbers no other shard of the process has
     */
    static long reserveIds(int count) {
        return NEXT_ID.getAndAdd(count);
    }

    /**
     * Records that the current thread runs user code holding a shard's lock; undone by {@link #pop}.
     *
     * @param shardId the shard's number ({@link Shard#id})
     */
    void push(long shardId, boolean write) {
        if (depth == shards.length) {
            shards = Arrays.copyOf(shards, depth * 2);
            writes = Arrays.copyOf(writes, depth * 2);
        }
        shards[depth] = shardId;
        writes[depth] = write;
        depth++;
    }

    /** Undoes the last {@link #push}. */
    void pop() {
        depth--;
    }

    /** Records that the current thread runs a load other threads may wait for; undone by {@link #endLoad}. */
    void startLoad() {
        loads++;
    }

    /** Undoes the last {@link #startLoad}. */
    void endLoad() {
        loads--;
    }

    /** @return whether others may wait for this thread: it holds a segment's lock or runs a load */
    private boolean waitedFor() {
        return depth != 0 || loads != 0;
    }

    /** @return whether the current thread is inside a reader of the cache whose shards are numbered so */
    boolean holdsReadOf(long firstShardId, int shardCount) {
        return holds(firstShardId, shardCount, false);
    }

    /** @return whether the current thread is inside a compute of the cache whose shards are numbered so */
    boolean holdsWriteOf(long firstShardId, int shardCount) {
        return holds(firstShardId, shardCount, true);
    }

    private boolean holds(long firstShardId, int shardCount, boolean write) {
        for (int i = 0; i < depth; i++) {
            if (shards[i] - firstShardId >= 0 && shards[i] - firstShardId < shardCount && writes[i] == write) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes {@code shard}'s lock for a thread that may hold others: blocks until it is free like the lock's
     * own methods if the thread holds none, else as the class describes. Not interruptible, as the lock's
     * own methods are not: an interrupt is kept for later.
     *
     * @return the lock's stamp
     * @throws IllegalStateException if waiting would deadlock and this thread is the one chosen to give up
     */
    static long lock(Shard shard, boolean write) {
        LockHolds holds = CURRENT.get();
        if (!holds.waitedFor()) {
            return write ? shard.lock.writeLock() : shard.lock.readLock();
        }
        return holds.await(shard, write);
    }

    /**
     * Waits for another thread's load: blocks until it ends, like {@code result.get()}, if the current thread
     * holds no lock and runs no load, else as the class describes.
     *
     * @param result    the load's outcome
     * @param loader    the thread that runs the load
     * @param cacheName the name of the load's cache, for the message of a deadlock
     * @return the loaded value
     * @throws ExecutionException    if the load failed
     * @throws InterruptedException  if the current thread is interrupted while it waits
     * @throws IllegalStateException if waiting would deadlock and this thread is the one chosen to give up
     */
    static <V> V awaitLoad(CompletableFuture<V> result, Thread loader, String cacheName)
            throws ExecutionException, InterruptedException {
        LockHolds holds = CURRENT.get();
        if (!holds.waitedFor()) {
            return result.get();
        }
        Thread self = Thread.currentThread();
        Wait wait = holds.newWait(NO_SHARD, false, loader, result, cacheName);
        WAITS.put(self, wait);
        List<Wait> cycleBefore = null;
        try {
            while (true) {
                try {
                    return result.get(CHECK_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    cycleBefore = giveUpIfDeadlocked(self, wait, cycleBefore);
                }
            }
        } finally {
            WAITS.remove(self, wait);
        }
    }

    private Wait newWait(long awaited, boolean write, Thread awaitedLoader, CompletableFuture<?> awaitedLoad,
                         String cacheName) {
        return new Wait(Thread.currentThread(), Arrays.copyOf(shards, depth), Arrays.copyOf(writes, depth), loads != 0,
                awaited, write, awaitedLoader, awaitedLoad, cacheName);
    }

    /**
     * Looks for a cycle through {@code wait}; throws if it is the same cycle as the last look found and this
     * thread is the one to give up.
     *
     * @return the cycle found now, or null, for the next look
     */
    private static List<Wait> giveUpIfDeadlocked(Thread self, Wait wait, List<Wait> cycleBefore) {
        List<Wait> cycle = cycleFrom(wait);
        if (cycle != null && sameWaits(cycle, cycleBefore) && chosen(self, cycle)) {
            throw new IllegalStateException(describe(cycle));
        }
        return cycle;
    }

    private long await(Shard shard, boolean write) {
        Thread self = Thread.currentThread();
        Wait wait = newWait(shard.id, write, null, null, shard.cacheName);
        WAITS.put(self, wait);
        boolean interrupted = false;
        List<Wait> cycleBefore = null;
        try {
            while (true) {
                // a read first tries past the writers queued for the lock: the timed tryReadLock queues behind
                // them, and a writer queued behind a held read lock waits for that read, which no published
                // wait shows (a read waits only for a held write, as blocks() has it): with the read's own
                // thread holding what that reader waits for, the three waited forever, no cycle in sight
                if (!write) {
                    long stamp = shard.lock.tryReadLock();
                    if (stamp != 0) {
                        return stamp;
                    }
                }
                try {
                    long stamp = write ? shard.lock.tryWriteLock(CHECK_MILLIS, TimeUnit.MILLISECONDS)
                            : shard.lock.tryReadLock(CHECK_MILLIS, TimeUnit.MILLISECONDS);
                    if (stamp != 0) {
                        return stamp;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                cycleBefore = giveUpIfDeadlocked(self, wait, cycleBefore);
            }
        } finally {
            WAITS.remove(self, wait);
            if (interrupted) {
                self.interrupt();
            }
        }
    }

    /**
     * @return the waits of a cycle that starts with {@code start}, in order (each holding what the one before
     *         it waits for), or null if none is published
     */
    private static List<Wait> cycleFrom(Wait start) {
        // one pass over the published waits indexes them by the shards they hold, so that the search looks
        // only at the holders of what a wait waits for: every waiter searches every slice, and a search
        // that looked at every wait for each wait it entered cost the square of the waiters each time
        // (130 waiters kept a deadlock beside them unbroken for seconds on two busy cores)
        Map<Long, List<Wait>> holders = new HashMap<>();
        for (Wait wait : WAITS.values()) {
            for (long shard : wait.held) {
                holders.computeIfAbsent(shard, k -> new ArrayList<>(2)).add(wait);
            }
        }
        List<Wait> path = new ArrayList<>();
        path.add(start);
        return extend(path, start, holders, new HashSet<>()) ? path : null;
    }

    /** A wait's {@code awaited} when it waits for a load, not a shard: no shard has this number. */
    private static final long NO_SHARD = 0;

    /**
     * Depth first over the waits that block the last of {@code path}; true once one of them is its start.
     * Each wait is entered once a search: whether start can be reached from it does not depend on the path
     * that led there, so a second walk from it finds nothing the first did not. (Walking every path took
     * exponentially long among many waiters, say chains of readers that each wait for the next cache.)
     *
     * @param holders the published waits by the shards they hold
     * @param entered the waits entered so far in this search
     */
    private static boolean extend(List<Wait> path, Wait start, Map<Long, List<Wait>> holders, Set<Wait> entered) {
        Wait last = path.getLast();
        List<Wait> blockers;
        if (last.awaitedLoader != null) {
            // a load ends when its thread does not wait: only a published wait of that thread can block it.
            // A load that has ended blocks nothing, though its waiter, not yet run since, still publishes the
            // wait: its loader's wait now is one of a later load (or lock), and following it found a cycle
            // that was none (the loader, waiting for the lock that waiter releases once it runs, gave up)
            Wait loaderWait = last.awaitedLoad.isDone() ? null : WAITS.get(last.awaitedLoader);
            blockers = loaderWait == null || !loaderWait.loading ? List.of() : List.of(loaderWait);
        } else {
            blockers = holders.getOrDefault(last.awaited, List.of());
        }
        for (Wait other : blockers) {
            if (other == last || (last.awaitedLoader == null && !other.blocks(last))) {
                continue;
            }
            if (other == start) {
                return true;
            }
            if (entered.add(other)) {
                path.add(other);
                if (extend(path, start, holders, entered)) {
                    return true;
                }
                path.removeLast();
            }
        }
        return false;
    }

    private static boolean sameWaits(List<Wait> cycle, List<Wait> before) {
        if (before == null || before.size() != cycle.size()) {
            return false;
        }
        for (Wait wait : cycle) {
            if (!before.contains(wait)) {
                return false;
            }
        }
        return true;
    }

    /** One waiter of a cycle gives up, the same one whichever of them looks: the highest thread id. */
    private static boolean chosen(Thread self, List<Wait> cycle) {
        for (Wait wait : cycle) {
            if (wait.thread.threadId() > self.threadId()) {
                return false;
            }
        }
        return true;
    }

    private static String describe(List<Wait> cycle) {
        StringBuilder message = new StringBuilder("deadlock among caches used from inside read()'s or compute's"
                + " function, which hold a segment's lock while they run, or from inside a loader: ");
        // each wait of the cycle holds what the one before it waits for (the first, what the last waits for)
        for (int i = 0; i < cycle.size(); i++) {
            Wait wait = cycle.get(i);
            Wait blocked = cycle.get(i == 0 ? cycle.size() - 1 : i - 1);
            message.append(i == 0 ? "" : "; ").append("thread '").append(wait.thread.getName()).append('\'');
            if (blocked.awaitedLoader != null) {
                message.append(" loads a key of cache '").append(blocked.cacheName).append('\'');
            } else {
                message.append(" holds ").append(wait.modeHeldOf(blocked) ? "a compute of" : "a reader of")
                        .append(" cache '").append(blocked.cacheName).append('\'');
            }
            if (wait.awaitedLoader != null) {
                message.append(" and waits for the load of a key of cache '").append(wait.cacheName)
                        .append("' by thread '").append(wait.awaitedLoader.getName()).append('\'');
            } else {
                message.append(" and waits to ").append(wait.write ? "write" : "read").append(" cache '")
                        .append(wait.cacheName).append('\'');
            }
        }
        return message.append(". This thread gives up: use the other cache after the read, compute or load"
                + " returns").toString();
    }

    /**
     * A thread's wait for a lock or a load while holding locks or running a load, as published for the
     * other waiters; the arrays are copies no one changes.
     *
     * @param loading       whether the thread runs a load others may wait for
     * @param awaited       the shard waited for, {@link #NO_SHARD} for a load
     * @param awaitedLoader the thread whose load is waited for, null for a shard
     * @param awaitedLoad   the outcome of the load waited for, null for a shard
     * @param cacheName     the name of the cache waited for
     */
    private record Wait(Thread thread, long[] held, boolean[] heldWrites, boolean loading, long awaited,
                        boolean write, Thread awaitedLoader, CompletableFuture<?> awaitedLoad, String cacheName) {
        /** Whether this thread holds what {@code waiter} waits for in a mode that keeps it out. */
        boolean blocks(Wait waiter) {
            for (int i = 0; i < held.length; i++) {
                // readers share: a read waits only for a held write (await tries a read past queued writers)
                if (held[i] == waiter.awaited && (waiter.write || heldWrites[i])) {
                    return true;
                }
            }
            return false;
        }

        /** @return whether this thread holds for writing what {@code blocked} waits for (else for reading) */
        boolean modeHeldOf(Wait blocked) {
            for (int i = 0; i < held.length; i++) {
                if (held[i] == blocked.awaited && heldWrites[i]) {
                    return true;
                }
            }
            return false;
        }

        // identity, not the arrays' contents: a waiter makes a new Wait each time it starts waiting
        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }
}
