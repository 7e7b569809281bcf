package dev.offheap.memory;

import java.util.List;
import java.util.Map;

/**
 * The management view of a {@link MemoryManager}, registered with the platform MBean server under
 * {@code dev.offheap:type=MemoryManager,name=<manager name>} while the manager is open, so that
 * jConsole, VisualVM and JMX exporters show it; a second open manager of the same name gets
 * {@code <manager name>-2}, and so on (the name is quoted in the ObjectName where it holds a
 * character that an unquoted value may not). All sizes are in bytes; every getter is a cheap
 * snapshot, safe from any thread.
 */
public interface MemoryManagerMXBean {
    /**
     * @return the name the bean is registered under, unquoted: the manager's {@linkplain MemoryManager#name()
     *         name}, or it with the {@code -2}, {@code -3}... that set it apart from other open managers of
     *         that name
     */
    String getName();

    /** @return where the pages live: HEAP, NATIVE or MAPPED */
    String getMemoryType();

    /** @return the page size in bytes */
    int getPageSize();

    /** @return the managed memory in bytes */
    long getTotalBytes();

    /** @return the number of pages the manager can hand out */
    int getTotalPages();

    /** @return the pages held by owners now */
    int getUsedPages();

    /** @return the pages that could be allocated now (total minus used, reserved bytes and quarantined pages) */
    int getFreePages();

    /** @return bytes reserved by owners outside pages */
    long getReservedBytes();

    /**
     * @return bytes in use: pages held by owners, quarantined pages (released but not yet reusable, see
     * {@link MemoryManager#quarantinedPages()}) and reservations; free pages cached per thread are not counted
     */
    long getUsedBytes();

    /**
     * @return the highest bytes reserved from the manager's budget so far: pages held, reservations and the
     * free pages threads cached at that moment (see {@link MemoryManager#peakUsedBytes()})
     */
    long getPeakUsedBytes();

    /** @return native or mapped bytes actually obtained from the system so far */
    long getAllocatedBytes();

    /** @return requests refused after spilling */
    long getAllocationFailures();

    /** @return spill callbacks invoked */
    long getSpillCount();

    /** @return bytes given back by spill callbacks */
    long getSpilledBytes();

    /** @return pages released while confined to another live thread, held back until that thread ends */
    int getQuarantinedPages();

    /**
     * @return bytes used per owner (pages plus reservations), keyed by the owner's text (its identity string,
     *         see {@link java.util.Objects#toIdentityString(Object)}, where its {@code toString()} returns null);
     *         owners that hold nothing are not listed
     */
    Map<String, Long> getUsageByOwner();

    /**
     * The open {@linkplain Budget#child children} of the manager's {@linkplain MemoryManager#budget() budget}: they
     * draw on the manager's memory as its owners do, so that fewer pages are free than {@link #getUsageByOwner()}
     * explains. A JMX client sees the list as an array of {@code CompositeData} with the items of
     * {@link ChildBudgetUsage}. Their own children are counted in theirs and not listed.
     *
     * @return one entry per open child, the one that holds the most bytes ({@link ChildBudgetUsage#reservedBytes()})
     *         first; empty where the manager's budget has none, or the manager is closed
     */
    List<ChildBudgetUsage> getChildBudgets();

    /**
     * What one child of the manager's budget takes of the manager's memory, in bytes, as it was when read.
     *
     * @param name          the child's {@linkplain Budget#name() name} (names need not be unique)
     * @param usedBytes     what is reserved through the child now, its own children's included ({@link Budget#used()})
     * @param reservedBytes what the child holds of the manager's memory: its up-front reservation, or its use where
     *                      that is more ({@link Budget#reserved()}); the manager has that much less to give
     * @param limitBytes    the most the child may use ({@link Budget#limit()})
     */
    record ChildBudgetUsage(String name, long usedBytes, long reservedBytes, long limitBytes) {
    }
}
