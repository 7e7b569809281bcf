package dev.offheap.memory;

import dev.offheap.memory.internal.Failures;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * Application-level accounting of memory: a limit in bytes, and the bytes reserved against it,
 * arranged in a tree (process, then component, then request).
 *
 * <h2>What it counts</h2>
 * <ul>
 *   <li>{@link #used()}: bytes reserved through this budget now, by its own callers and by all of
 *       its children. This is what {@link #limit()} caps.</li>
 *   <li>{@link #reserved()}: bytes this budget holds from its parent: its up-front
 *       {@linkplain #child(String, long, long) reservation} plus whatever its use has drawn beyond
 *       it. For a root, equal to {@link #used()}.</li>
 *   <li>{@link #peak()}: the highest {@link #used()} seen since creation.</li>
 * </ul>
 * A child's reservation is taken from the parent when the child is created and guarantees the
 * child that many bytes; use within the reservation never touches the parent, so a request-level
 * budget with a sensible reservation reserves and releases with one atomic update.
 *
 * <h2>Cost and threading</h2>
 * Every method is thread-safe. {@link #tryReserve}, {@link #reserve} and {@link #release} are
 * lock-free: a compare-and-set on this budget and, past the reservation, on each ancestor. Only the
 * failure path is slow: it walks the children to name the biggest users in the exception.
 * A failed request leaves every budget on the path as it was.
 *
 * <h2>Closing</h2>
 * {@link #close()} closes the children first, then returns everything this budget holds to its
 * parent. If bytes were still reserved, that is a leak: it is reported (who holds how much) to the
 * leak reporter, which by default logs a warning through {@link System.Logger}. After close,
 * reserving throws {@link IllegalStateException}, and releasing is ignored because the bytes were
 * already returned. The budget of a {@link MemoryManager} ({@link MemoryManager#budget()}) is closed by
 * closing its manager: closing it, or a budget above it, closes the manager, as
 * {@link MemoryManager#close()} does.
 *
 * <pre>{@code
 * try (Budget process = Budget.root("process", ByteSize.parse("4g"));
 *      Budget cache = process.child("cache", ByteSize.parse("1g"))) {
 *     cache.reserve(64 << 20);      // throws BudgetExceededException past 1 GiB
 *     ...
 *     cache.release(64 << 20);
 * }
 * }</pre>
 */
public final class Budget implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Budget.class.getName());
    private static final int USERS_NAMED_IN_MESSAGES = 5;

    private static final VarHandle USED;
    private static final VarHandle PEAK;
    private static final VarHandle DIRECT;
    private static final VarHandle CLOSED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            USED = lookup.findVarHandle(Budget.class, "used", long.class);
            PEAK = lookup.findVarHandle(Budget.class, "peak", long.class);
            DIRECT = lookup.findVarHandle(Budget.class, "direct", long.class);
            CLOSED = lookup.findVarHandle(Budget.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** In {@code used}: reserve and release keep {@code direct} too (the budget has had a child). */
    private static final long DIRECT_COUNTED = 1L << 62;
    /** In {@code used}: close has taken the count; set together with it, in one atomic step. */
    private static final long CLOSED_MARK = 1L << 61;
    private static final long MARKS = DIRECT_COUNTED | CLOSED_MARK;
    /**
     * Set below the closed mark by close: releases that come later subtract from it (one atomic add, no
     * loop) without ever borrowing from the mark, since they total at most what was in use at close.
     */
    private static final long CLOSED_CUSHION = 1L << 60;
    /**
     * The most bytes a budget has in use at once, whatever its limit: 2^60 - 1 (1 EiB). The count shares
     * its word with two marks of the budget's state, so that both change in one atomic step.
     */
    public static final long MAX_BYTES = CLOSED_CUSHION - 1;
    /** What {@link #take} returns for a success on a budget that counts direct reservations apart. */
    private static final Budget TAKEN_COUNTING_DIRECT = new Budget("taken", null, 0, 0, report -> { }, null);

    private final String name;
    private final String path;
    private final Budget parent;
    private final long limit;
    /** The most bytes this budget may have in use: its limit, or {@link #MAX_BYTES} if that is lower. */
    private final long ceiling;
    private final long reservation;
    private final Consumer<String> leakReporter;
    /**
     * The memory manager whose pages and reservations this budget counts ({@link MemoryManager#budget()}), or
     * null. Only the manager reserves and releases here: its free pages are whatever the count leaves, and bytes
     * released behind its back let it admit pages that do not exist.
     */
    private final MemoryManager manager;
    private final Set<Budget> children = ConcurrentHashMap.newKeySet();

    /**
     * Bytes in use (this budget's and its children's), and two marks in its top bits, so that an update
     * of the count and a change of state are one atomic step, ordered against each other:
     * {@link #DIRECT_COUNTED} (reserve and release keep {@code direct} too) and {@link #CLOSED_MARK}
     * (close has taken the count: no reserve may add to it any more). Read through {@link #bytes}.
     */
    @SuppressWarnings("unused") // accessed through USED
    private volatile long used;
    @SuppressWarnings("unused") // accessed through PEAK
    private volatile long peak;
    /**
     * Bytes reserved by this budget's own callers, not by its children: what {@link #release} may
     * give back, so that a caller can never release bytes a child holds. Only budgets that have had
     * a child keep it (a leaf's {@code used} is exactly that), so a leaf pays one atomic update per
     * reserve or release. {@link #enableDirectCount()} switches it on; see there why that is exact.
     */
    @SuppressWarnings("unused") // accessed through DIRECT
    private volatile long direct;
    @SuppressWarnings("unused") // accessed through CLOSED
    private volatile boolean closed;

    private Budget(String name, Budget parent, long limit, long reservation, Consumer<String> leakReporter,
                   MemoryManager manager) {
        this.name = name;
        this.manager = manager;
        this.parent = parent;
        this.path = parent == null ? name : parent.path + "/" + name;
        this.limit = limit;
        this.ceiling = Math.min(limit, MAX_BYTES);
        this.reservation = reservation;
        this.leakReporter = leakReporter;
    }

    /**
     * Creates a top-level budget whose leaks are logged as warnings.
     *
     * @param name       a short name that appears in messages, for example {@code "process"}
     * @param limitBytes the most bytes that may be reserved at once, at least 0 (any value: at most
     *                   {@link #MAX_BYTES} are ever in use)
     * @return the new budget
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or contains '/', or the limit is negative
     */
    public static Budget root(String name, long limitBytes) {
        return root(name, limitBytes, Budget::logLeak);
    }

    /**
     * Creates a top-level budget that hands leak reports to {@code leakReporter}; its children
     * inherit the reporter.
     *
     * @param name         a short name that appears in messages
     * @param limitBytes   the most bytes that may be reserved at once, at least 0
     * @param leakReporter receives one text per budget closed with bytes still reserved; called on the
     *                     closing thread
     * @return the new budget
     * @throws NullPointerException     if {@code name} or {@code leakReporter} is null
     * @throws IllegalArgumentException if {@code name} is blank or contains '/', or the limit is negative
     */
    public static Budget root(String name, long limitBytes, Consumer<String> leakReporter) {
        return root(name, limitBytes, leakReporter, null);
    }

    /** {@link #root(String, long, Consumer)} for the budget of {@code manager}, built by it: see {@link #manager}. */
    static Budget rootOfManager(MemoryManager manager, String name, long limitBytes, Consumer<String> leakReporter) {
        return root(name, limitBytes, leakReporter, Objects.requireNonNull(manager, "manager"));
    }

    private static Budget root(String name, long limitBytes, Consumer<String> leakReporter, MemoryManager manager) {
        checkName(name);
        Objects.requireNonNull(leakReporter, "leakReporter");
        checkNonNegative("limitBytes", limitBytes);
        return new Budget(name, null, limitBytes, 0, leakReporter, manager);
    }

    /**
     * Creates a child that draws from this budget, with no up-front reservation.
     *
     * @param name       a short name, unique or not, that appears in messages as {@code parent/name}
     * @param limitBytes the most bytes the child may reserve at once; it may exceed what this budget
     *                   has left, in which case this budget's limit is the one that refuses
     * @return the new child
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or contains '/', or the limit is negative
     * @throws IllegalStateException    if this budget is closed
     */
    public Budget child(String name, long limitBytes) {
        return child(name, limitBytes, 0);
    }

    /**
     * Creates a child that draws from this budget and holds {@code reservationBytes} of it from the
     * start, so that its use up to the reservation can never be refused by an ancestor and costs
     * no update of the ancestors.
     *
     * @param name             a short name that appears in messages as {@code parent/name}
     * @param limitBytes       the most bytes the child may reserve at once
     * @param reservationBytes bytes taken from this budget now, at most {@code limitBytes}
     * @return the new child
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if the name is blank or contains '/', a size is negative, or the
     *                                  reservation exceeds the limit
     * @throws BudgetExceededException  if this budget cannot give the reservation
     * @throws IllegalStateException    if this budget is closed
     */
    public Budget child(String name, long limitBytes, long reservationBytes) {
        return child(name, limitBytes, reservationBytes, null);
    }

    /** {@link #child(String, long, long)} for the budget of {@code manager}, built by it: see {@link #manager}. */
    Budget childOfManager(MemoryManager manager, String name, long limitBytes, long reservationBytes) {
        return child(name, limitBytes, reservationBytes, Objects.requireNonNull(manager, "manager"));
    }

    private Budget child(String name, long limitBytes, long reservationBytes, MemoryManager manager) {
        checkName(name);
        checkNonNegative("limitBytes", limitBytes);
        checkNonNegative("reservationBytes", reservationBytes);
        if (reservationBytes > limitBytes) {
            throw new IllegalArgumentException("reservation of " + reservationBytes
                    + " bytes exceeds the child's limit of " + limitBytes + " bytes");
        }
        Budget child = new Budget(name, this, limitBytes, reservationBytes, leakReporter, manager);
        enableDirectCount();
        if (reservationBytes > 0) {
            // the child's, not a direct reservation: it stays out of this budget's direct count
            Budget refusing = take(reservationBytes);
            if (refusing != null && refusing != TAKEN_COUNTING_DIRECT) {
                throw refusing.exceeded(reservationBytes, child.path + " (its reservation)");
            }
        } else {
            ensureOpen();
        }
        children.add(child);
        if (closed) {
            // a close() that began before the add may have copied the children without this one, and returned
            // its reservation upwards with everything else: left open, it would spend bytes nobody above counts.
            // Closed as its owner would (a manager being built has nothing to close yet); it holds nothing
            children.remove(child);
            child.close(true);
            ensureOpen(); // throws
        }
        return child;
    }

    /**
     * Reserves {@code bytes}, or throws if that would take this budget or an ancestor past its limit.
     *
     * @param bytes the amount, at least 0
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws BudgetExceededException  if this budget or an ancestor would exceed its limit; nothing is reserved
     * @throws IllegalStateException    if this budget is closed
     * @throws UnsupportedOperationException if this is a memory manager's budget ({@link MemoryManager#budget()}):
     *                                  only the manager reserves there ({@link MemoryManager#reserve(Object, long)}
     *                                  accounts memory outside pages; a {@linkplain #child(String, long) child}
     *                                  of it may reserve); nothing is reserved
     */
    public void reserve(long bytes) {
        refuseOutsideManager("reserve", bytes);
        checkNonNegative("bytes", bytes);
        Budget refusing = take(bytes);
        if (refusing != null) {
            if (refusing != TAKEN_COUNTING_DIRECT) {
                throw refusing.exceeded(bytes, path);
            }
            DIRECT.getAndAdd(this, bytes);
        }
    }

    /**
     * Reserves {@code bytes} if this budget and all ancestors have room.
     *
     * @param bytes the amount, at least 0
     * @return true if reserved, false if some budget on the path would exceed its limit (nothing reserved)
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws IllegalStateException    if this budget is closed
     * @throws UnsupportedOperationException if this is a memory manager's budget ({@link MemoryManager#budget()}),
     *                                  as for {@link #reserve(long)}; nothing is reserved
     */
    public boolean tryReserve(long bytes) {
        refuseOutsideManager("reserve", bytes);
        return tryReserveForManager(bytes);
    }

    /** {@link #tryReserve(long)} for the manager this budget counts for, or anyone if none. */
    boolean tryReserveForManager(long bytes) {
        checkNonNegative("bytes", bytes);
        Budget refusing = take(bytes);
        if (refusing != null) {
            if (refusing != TAKEN_COUNTING_DIRECT) {
                return false;
            }
            DIRECT.getAndAdd(this, bytes);
        }
        return true;
    }

    /**
     * Returns {@code bytes} reserved earlier. After {@link #close()} this does nothing, because
     * close already returned everything.
     *
     * @param bytes the amount, at least 0 and at most what was reserved through this budget and not
     *              yet released (bytes its children hold are theirs to release)
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws IllegalStateException    if more is released than was reserved directly (nothing changes)
     * @throws UnsupportedOperationException if this is a memory manager's budget ({@link MemoryManager#budget()}):
     *                                  only the manager releases there (bytes released behind its back would let
     *                                  it admit pages that do not exist); nothing changes
     */
    public void release(long bytes) {
        refuseOutsideManager("release", bytes);
        releaseForManager(bytes);
    }

    /** {@link #release(long)} for the manager this budget counts for, or anyone if none. */
    void releaseForManager(long bytes) {
        checkNonNegative("bytes", bytes);
        if (bytes == 0 || closed) {
            return;
        }
        long current;
        while (((current = (long) USED.getVolatile(this)) & DIRECT_COUNTED) == 0) {
            // No child has ever drawn from this budget: everything used was reserved directly.
            if ((current & CLOSED_MARK) != 0) {
                return; // closed meanwhile: close returned everything
            }
            if (bytes > current) {
                throw overRelease(bytes, current);
            }
            if (USED.weakCompareAndSet(this, current, current - bytes)) {
                chargeParentForDecrease(bytes, current);
                return;
            }
        }
        long direct;
        do {
            direct = (long) DIRECT.getVolatile(this);
            if (bytes > direct) {
                if (closed) {
                    return; // closed meanwhile, which took the direct count with everything else
                }
                throw overRelease(bytes, direct);
            }
        } while (!DIRECT.weakCompareAndSet(this, direct, direct - bytes));
        subtract(bytes);
    }

    /** Refuses a reserve or release of a memory manager's budget from outside the manager: see {@link #manager}. */
    private void refuseOutsideManager(String what, long bytes) {
        if (manager != null) {
            throw new UnsupportedOperationException("budget '" + path + "' counts the pages and reservations of memory"
                    + " manager '" + manager.name() + "': only the manager may " + what + " there, not a caller ("
                    + what + " of " + bytes + " bytes refused); reserve through the manager's reserve(owner, bytes),"
                    + " or make a child of this budget");
        }
    }

    private IllegalStateException overRelease(long bytes, long reservedDirectly) {
        long used = used();
        return new IllegalStateException("budget '" + path + "': release of " + bytes
                + " bytes but only " + reservedDirectly + " bytes are reserved directly"
                + (used > reservedDirectly ? " (its children hold the other " + (used - reservedDirectly) + ")" : ""));
    }

    /**
     * Starts counting direct reservations apart from the children's, before the first child takes
     * anything. Exact without a lock on the fast paths: the mark is set by a compare-and-set of the
     * count, so every reserve and release of the count is ordered before it (and is in the initial
     * {@code direct}, which is the count it replaced) or after it (and sees the mark, and keeps
     * {@code direct} itself). An earlier version set a flag and then read the count, and a reserve in
     * between was counted twice: an over-release of that much was then accepted, and used() went negative.
     */
    private void enableDirectCount() {
        synchronized (children) {
            long current;
            do {
                current = (long) USED.getVolatile(this);
                if ((current & MARKS) != 0) {
                    return; // counting already, or closed
                }
                // only this thread writes direct until the mark is set: nobody else reads or adds to it before
                DIRECT.setVolatile(this, current);
            } while (!USED.compareAndSet(this, current, current | DIRECT_COUNTED));
        }
    }

    /** @return the bytes reserved through this budget itself and not yet released, excluding its children's */
    public long reservedDirectly() {
        return (rawUsed() & DIRECT_COUNTED) != 0 ? (long) DIRECT.getVolatile(this) : used();
    }

    private long rawUsed() {
        return (long) USED.getVolatile(this);
    }

    /** @return the byte count of a value of {@code used}, without its marks */
    private static long bytes(long used) {
        return used & ~MARKS;
    }

    /** @return the limit in bytes */
    public long limit() {
        return limit;
    }

    /** @return the bytes reserved now through this budget and its children */
    public long used() {
        long raw = rawUsed();
        return (raw & CLOSED_MARK) != 0 ? 0 : bytes(raw);
    }

    /**
     * @return the bytes this budget holds from its parent (its reservation plus what it drew beyond it);
     * 0 once closed, since close gave everything back
     */
    public long reserved() {
        if (parent == null) {
            return used();
        }
        // the reservation too went back at close: reporting it still held told the parent's usage report
        // and callers that a closed child cost bytes it no longer had
        return closed ? 0 : Math.max(reservation, used());
    }

    /** @return the reservation given at creation, in bytes (0 for a root) */
    public long reservation() {
        return reservation;
    }

    /** @return the highest {@link #used()} seen, in bytes */
    public long peak() {
        return (long) PEAK.getVolatile(this);
    }

    /**
     * @return bytes that could be reserved now as far as this budget's own limit goes; an ancestor
     * may still refuse. 0 once closed, since reserving then throws
     */
    public long available() {
        // used() reads 0 once closed: without the check a closed budget offered its whole limit, inviting
        // callers (a memory manager's freePages, a spill's "bytes needed") to reserve into it
        return closed ? 0 : Math.max(0, ceiling - used());
    }

    /** @return the short name */
    public String name() {
        return name;
    }

    /** @return the names from the root down to this budget, separated by {@code /} */
    public String path() {
        return path;
    }

    /** @return the parent, or null for a root */
    public Budget parent() {
        return parent;
    }

    /** @return a snapshot of the open children, in no particular order */
    public List<Budget> children() {
        return List.copyOf(children);
    }

    /** @return whether {@link #close()} has been called */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Describes the use of this budget and its children, one line per budget, indented by depth.
     *
     * @return a multi-line report; never null
     */
    public String usageReport() {
        StringBuilder sb = new StringBuilder();
        appendUsage(sb, 0);
        return sb.toString();
    }

    /**
     * Closes the children, then returns everything this budget holds to its parent. Bytes still
     * reserved are reported as a leak to the leak reporter. A reporter that throws (a test's reporter
     * that fails on leaks) gets its exception out of this method, after the budget and its children
     * are closed and their bytes returned all the same. Closing twice does nothing.
     *
     * <p>A memory manager's budget ({@link MemoryManager#budget()}), whether closed itself or as a child of
     * the budget being closed, closes its manager: {@link MemoryManager#close()} runs on this thread, revokes
     * the pages (keeping those confined to other live threads until they end, as it says), reports the owners
     * that still held memory to the manager's leak reporter, and closes the budget. A manager left open over a
     * closed budget went on handing out nothing and releasing nothing, its pages still usable.
     *
     * @throws RuntimeException what the leak reporter threw for this budget or one of its children (the
     *                          first; later ones are suppressed in it; an {@link Error}, or a checked exception
     *                          that a reporter in another language or with a "sneaky throw" threw, is rethrown
     *                          as is), or what the close of a memory manager under it threw
     */
    @Override
    public void close() {
        if (manager != null) {
            manager.close(); // which closes this budget, once the pages it counts are revoked
            return;
        }
        close(false);
    }

    /**
     * Closes as {@link #close()} does, but the bytes reserved through this budget itself are not reported:
     * its owner accounts for them (a memory manager reports the owners of its pages itself). The manager's
     * own way to close its budget: {@link #close()} would close the manager. They go back
     * to the parent with everything else, in the same step that closes the count, so a release racing this
     * can neither over-release nor be lost: before the step it is counted, after it it does nothing.
     */
    void closeReturningDirect() {
        close(true);
    }

    private void close(boolean directReturnedByOwner) {
        if (!CLOSED.compareAndSet(this, false, true)) {
            return;
        }
        // The owner's case counts what the children hold, each child's reserved(), not used() - reservedDirectly():
        // a reserve racing this close (one that read the budget open) landed between those two reads, and
        // its bytes were reported as held by children, on budgets without any
        long stillUsed = directReturnedByOwner ? heldByChildren() : used();
        Throwable failure = null;
        if (stillUsed > 0) {
            // before the children close: the report names the biggest of them
            try {
                leakReporter.accept("budget '" + path + "' closed with " + ByteSize.format(stillUsed) + " ("
                        + stillUsed + " bytes) still reserved:\n" + usageReport().stripTrailing());
            } catch (Throwable e) {
                // Throwable: a Consumer may still throw a checked exception (one written in Kotlin, or a
                // sneaky throw); let through, it ended close here, with the children open and the bytes kept
                failure = e;
            }
        }
        for (Budget child : List.copyOf(children)) {
            try {
                child.close();
            } catch (Throwable e) {
                failure = Failures.firstOrSuppressed(failure, e);
            }
        }
        // the count and the closed mark in one step: a reserve ordered before it is in usedAtClose (and goes
        // back to the parent with it); one after it finds the mark and gives back what it took from the parent
        long usedAtClose = bytes((long) USED.getAndSet(this, CLOSED_MARK | CLOSED_CUSHION));
        DIRECT.getAndSet(this, 0L);
        if (parent != null) {
            parent.children.remove(this);
            parent.subtract(Math.max(reservation, usedAtClose));
        }
        Failures.throwIfAny(failure);
    }

    /** @return the bytes the open children hold from this budget: the sum of their {@link #reserved()} */
    private long heldByChildren() {
        long held = 0;
        for (Budget child : children) {
            held += child.reserved();
        }
        return held;
    }


    @Override
    public String toString() {
        return "Budget[" + path + ": used " + used() + " of " + limit + " bytes, peak " + peak() + "]";
    }

    // ---------------------------------------------------------------- internals

    /*
     * Accounting scheme. A budget counts `used`; its parent is charged its reservation (when the child
     * is created) plus f(used) = max(0, used - reservation). A change of `used` from u to v is made by
     * one compare-and-set from exactly u, and charges the parent f(v) - f(u): before the compare-and-set
     * when it grows (undone if the compare-and-set loses to another thread), after it when it shrinks.
     * So the parent is charged exactly for the transitions that happened, is never charged less than
     * f(used), and no counter ever reads above its limit. Within the reservation a request costs one
     * compare-and-set on this budget alone.
     */

    /** Reserves {@code bytes}; returns null on success, else the budget that refused (nothing kept). */
    private Budget take(long bytes) {
        ensureOpen();
        if (bytes == 0) {
            return null;
        }
        while (true) {
            long current = (long) USED.getVolatile(this);
            // with the closed mark kept in, a closed budget's next count is above any ceiling: one test for both
            long next = (current & ~DIRECT_COUNTED) + bytes;
            if (next > ceiling || next < 0) {
                if ((current & CLOSED_MARK) != 0) {
                    ensureOpen(); // closed since the check above: throws
                }
                return this;
            }
            long toParent = parent == null ? 0 : Math.min(bytes, next - reservation);
            if (toParent > 0) {
                Budget refusing = parent.take(toParent);
                if (refusing != null && refusing != TAKEN_COUNTING_DIRECT) {
                    return refusing;
                }
            }
            // the marks stay as they are: the count below them cannot carry into them (next is at most ceiling)
            if (USED.compareAndSet(this, current, current + bytes)) {
                raisePeak(next);
                return (current & DIRECT_COUNTED) != 0 ? TAKEN_COUNTING_DIRECT : null;
            }
            if (toParent > 0) {
                parent.subtract(toParent);
            }
        }
    }

    /** Takes {@code bytes} away here, then the parent's share of the change. */
    private void subtract(long bytes) {
        long before = (long) USED.getAndAdd(this, -bytes);
        if ((before & CLOSED_MARK) == 0) {
            chargeParentForDecrease(bytes, bytes(before));
        }
        // else: close returned everything to the parent, these bytes too (they came off its cushion)
    }

    /** Gives the parent its share of this budget's decrease by {@code bytes} from {@code usedBefore}. */
    private void chargeParentForDecrease(long bytes, long usedBefore) {
        if (parent != null) {
            long toParent = Math.min(bytes, usedBefore - reservation);
            if (toParent > 0) {
                parent.subtract(toParent);
            }
        }
    }

    private void raisePeak(long candidate) {
        long current;
        do {
            current = (long) PEAK.getVolatile(this);
            if (candidate <= current) {
                return;
            }
        } while (!PEAK.weakCompareAndSet(this, current, candidate));
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("budget '" + path + "' is closed");
        }
    }

    /** The slow, detailed failure path: names the request, the limit, the use and the biggest users. */
    private BudgetExceededException exceeded(long requested, String requestedAt) {
        long usedNow = used();
        StringBuilder sb = new StringBuilder()
                .append("budget '").append(path).append("' cannot reserve ")
                .append(ByteSize.format(requested)).append(" (").append(requested).append(" bytes)");
        if (!requestedAt.equals(path)) {
            sb.append(" requested at '").append(requestedAt).append('\'');
        }
        sb.append(": limit ").append(ByteSize.format(limit))
                .append(", used ").append(ByteSize.format(usedNow))
                .append(", available ").append(ByteSize.format(Math.max(0, ceiling - usedNow)));
        sb.append("; biggest users: ");
        int named = 0;
        for (Map.Entry<Budget, Long> child : largestFirst(children, Budget::reserved)) {
            if (named == USERS_NAMED_IN_MESSAGES || child.getValue() == 0) {
                break;
            }
            sb.append(named == 0 ? "" : ", ").append(child.getKey().name).append(' ')
                    .append(ByteSize.format(child.getValue()));
            named++;
        }
        if (named == 0) {
            sb.append("none among children");
        }
        sb.append("; reserved directly: ").append(ByteSize.format(reservedDirectly()));
        return new BudgetExceededException(sb.toString(), path, requested, limit, usedNow);
    }

    private void appendUsage(StringBuilder sb, int depth) {
        sb.append("  ".repeat(depth)).append(name).append(": used ").append(ByteSize.format(used()))
                .append(" of ").append(ByteSize.format(limit)).append(", peak ").append(ByteSize.format(peak()));
        if (reservation > 0) {
            sb.append(", reservation ").append(ByteSize.format(reservation));
        }
        sb.append('\n');
        for (Map.Entry<Budget, Long> child : largestFirst(children, Budget::used)) {
            child.getKey().appendUsage(sb, depth + 1);
        }
    }

    /**
     * The items with their sizes in bytes, largest first (budgets here, a manager's owners in
     * {@link MemoryManager}). Each size is read once, before sorting: other threads change the live values
     * while the sort runs, and a comparator that reads them is inconsistent, which the JDK's merge sort
     * (from 32 elements) may detect and throw IllegalArgumentException for.
     */
    static <T> List<Map.Entry<T, Long>> largestFirst(Collection<T> items, ToLongFunction<T> size) {
        List<Map.Entry<T, Long>> sized = new ArrayList<>(items.size());
        for (T item : items) {
            sized.add(Map.entry(item, size.applyAsLong(item)));
        }
        sized.sort(Map.Entry.<T, Long>comparingByValue().reversed());
        return sized;
    }

    private static void logLeak(String report) {
        LOG.log(System.Logger.Level.WARNING, report);
    }

    private static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank() || name.indexOf('/') >= 0) {
            throw new IllegalArgumentException("budget name must be non-blank and without '/': '" + name + "'");
        }
    }

    private static void checkNonNegative(String what, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must be at least 0, was " + value);
        }
    }
}
