package dev.offheap.memory;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Pages of a {@link MemoryManager} allocated together by {@link MemoryManager#allocateGroup(Object, int)}
 * and released together by {@link #close()}: the way to hold many pages when heap or release time
 * matters (a sort buffer, a hash table's pages, a batch of network buffers).
 *
 * <p>Its pages share one scope. {@link #page(int)} makes a segment of that scope over a page when it is
 * asked for; nothing per page is kept on the heap but the page's number (4 bytes), where
 * {@link MemoryManager#allocatePages} keeps a segment, a scope and a lease per page. Closing the group
 * closes the scope: every segment {@link #page(int)} returned throws {@link IllegalStateException} from
 * then on, whichever thread kept it, and the pages go back to the manager, to be handed to other owners.
 * {@link MemoryManager#releaseAll(Object)} and {@link MemoryManager#close()} release a group's pages
 * as they release single pages. A page of a group cannot be released on its own
 * ({@link MemoryManager#release(MemorySegment)} throws {@link IllegalArgumentException}).
 *
 * <p>Threads: with {@link PageAccess#CONFINED} (native or mapped memory) only the thread that allocated
 * the group may get its pages, use them and close it; any other gets {@link WrongThreadException}.
 * With {@link PageAccess#SHARED}, and for {@link MemoryType#HEAP} pages, any thread may. Closing a
 * SHARED group costs one JVM-wide handshake, however many pages it has.
 */
public final class PageGroup implements AutoCloseable {
    private static final int OPEN = 0;
    /** A close() is revoking the scope; it may still be refused (a native call holds a page). */
    private static final int CLOSING = 1;
    private static final int RELEASED = 2;
    /**
     * Released by {@link MemoryManager#releaseAll} or the manager's close (or its pages, quarantined by a
     * releaseAll, taken back once its thread ended), not by {@link #close()}. Above RELEASED, so that one
     * comparison tells a group that refuses its pages.
     */
    private static final int REVOKED = 3;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(PageGroup.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MemoryManager manager;
    final int[] slots;
    final MemoryManager.Lease lease;
    /** The pages' segments when they are on the heap (a heap segment has no scope to share); else null. */
    final MemorySegment[] heapPages;
    /**
     * OPEN, CLOSING or RELEASED, moved by {@link #close()}; or REVOKED, set by the manager when it revokes the
     * group. A field with a VarHandle, not an atomic object: one object less per group. Released or revoked,
     * the group refuses {@link #page(int)} even where its scope stays open: a confined group released from
     * another thread after its own thread ended, whose scope the JDK cannot close from there (page(i) threw
     * WrongThreadException after such a close(), and after such a releaseAll or manager close the group said
     * it was alive and page(i) handed out segments over pages that had gone back to the manager).
     */
    private volatile int state;

    PageGroup(MemoryManager manager, int[] slots, MemoryManager.Lease lease, MemorySegment[] heapPages) {
        this.manager = manager;
        this.slots = slots;
        this.lease = lease;
        this.heapPages = heapPages;
    }

    /** @return the number of pages in the group */
    public int size() {
        return slots.length;
    }

    /** @return the size of each page, in bytes: the manager's {@link MemoryManager#pageSize()} */
    public int pageSize() {
        return manager.pageSize();
    }

    /** @return the bytes of all pages together: {@code size() * pageSize()} */
    public long byteSize() {
        return (long) slots.length * manager.pageSize();
    }

    /**
     * A segment over page {@code index} of the group, in the group's scope. Each call may return a new
     * segment object over the same memory; keeping it costs heap, asking again costs a few nanoseconds.
     * The page's content is the group's: what was written through one segment is read through another.
     *
     * @param index which page, from 0 to {@code size() - 1}
     * @return a segment of {@link #pageSize()} bytes, valid until the group is released
     * @throws IndexOutOfBoundsException if {@code index} is negative or not below {@link #size()}
     * @throws IllegalStateException     if the group was released: closed, or revoked by
     *                                   {@link MemoryManager#releaseAll} or the manager's close (a CONFINED
     *                                   group that those ran on another thread for, while its own thread
     *                                   lives, is kept for that thread instead: see {@link #isAlive()})
     * @throws WrongThreadException      if the group is confined to another thread (see the class description)
     */
    public MemorySegment page(int index) {
        return manager.groupPage(this, index);
    }

    /**
     * @return whether the group can still be used: false once it was closed, or revoked by
     *         {@link MemoryManager#releaseAll} or the manager's close. A CONFINED group that another thread
     *         released that way while the group's thread lives cannot be revoked from there: it stays
     *         alive for its own thread (its pages quarantined, or kept after the manager's close, as single
     *         pages are; see {@link MemoryManager}) until that thread closes it or ends. A SHARED group
     *         that a native call holds when the manager closes is kept alive the same way, until it is
     *         closed once the call returned, or is no longer reachable.
     */
    public boolean isAlive() {
        if (state >= RELEASED) {
            return false;
        }
        return lease.arena != null ? lease.arena.scope().isAlive() : manager.isGroupLeased(this);
    }

    /**
     * Releases every page of the group: from now on every access through a segment of the group throws
     * {@link IllegalStateException}, and the pages may be handed to other owners. After the manager's
     * close it only ends a group that close kept alive (see {@link #isAlive()}): its segments throw from
     * then on, and its memory, which the closed manager hands to no one, is freed when nothing can reach
     * the group's scope any more (for a CONFINED group, once its thread ended); for any other group, and
     * when called again, it does nothing. A CONFINED group's close from another thread does nothing then.
     *
     * @throws IllegalStateException if, before the manager's close, the group was already closed, or is
     *                               being closed by another thread, or its pages were released by
     *                               {@link MemoryManager#releaseAll} (nothing changes then); or if a native
     *                               call holds one of its pages (its scope is acquired), before or after the
     *                               manager's close: the group stays allocated, close it once the call returned
     * @throws WrongThreadException  if, before the manager's close, the group is confined to another live
     *                               thread; it stays allocated
     */
    @Override
    public void close() {
        manager.releaseGroup(this);
    }

    /** @return whether the group was released: closed, or revoked by the manager; one comparison */
    boolean isReleased() {
        return state >= RELEASED;
    }

    /** @return whether the manager revoked the group (releaseAll), rather than {@link #close()} */
    boolean wasRevoked() {
        return state == REVOKED;
    }

    /**
     * Marks the group released by the manager (releaseAll, the manager's close, or the quarantined pages of
     * an ended thread taken back), once its scope is revoked or can no longer be reached. Nothing changes
     * if a {@link #close()} began before: that close releases it.
     */
    void revoked() {
        STATE.compareAndSet(this, OPEN, REVOKED);
    }

    /** @return true if this call began closing the group, false if another close began before */
    boolean beginClose() {
        return STATE.compareAndSet(this, OPEN, CLOSING);
    }

    /** Reopens the group when its close was refused before anything changed. */
    void closeRefused() {
        state = OPEN;
    }

    /** Marks the group released, once its scope is revoked (or can no longer be reached). */
    void closed() {
        state = RELEASED;
    }

    @Override
    public String toString() {
        return "PageGroup[" + slots.length + " pages of " + ByteSize.format(manager.pageSize()) + " from memory manager '"
                + manager.name() + "'" + (isAlive() ? "" : ", released") + "]";
    }
}
