package dev.offheap.memory.alloc;

/**
 * The management view of an allocator, registered with the platform MBean server under
 * {@code dev.offheap:type=Allocator,name=<allocator name>} (a second live allocator of the same name
 * gets {@code <name>-2}, and so on) while the allocator is open, so that jConsole, VisualVM, JMX
 * exporters and {@code offheap inspect} show it. {@link PooledAllocator} and {@link StackAllocator}
 * register by default, {@link NativeAllocator} only when its builder asks (it is cheap enough to make
 * one per request, and a registration per request is not); each builder's {@code registerMBean(false)}
 * turns it off. The bean goes away when {@code close()} has freed everything: a close that a downcall
 * refused leaves it, and a {@link DebugMode#FULL} stack allocator's with it the stacks it left to other
 * live threads, until they are freed.
 *
 * <p>All sizes are in bytes. Every getter is a snapshot taken without stopping the allocator, safe from
 * any thread; a number the allocator does not keep is -1.
 */
public interface AllocatorMXBean {
    /**
     * @return the name the bean is registered under, unquoted: the allocator's name, as in its messages and
     *         reports, or it with the {@code -2}, {@code -3}... that set it apart from other open allocators of
     *         that name
     */
    String getName();

    /** @return which allocator: {@code pooled}, {@code malloc}, {@code mimalloc} or {@code stack} */
    String getKind();

    /** @return the debug mode: {@code OFF}, {@code SAMPLED} or {@code FULL} */
    String getDebugMode();

    /** @return bytes of live allocations, as requested; -1 for a stack allocator, whose frames are not counted */
    long getAllocatedBytes();

    /** @return live allocations; -1 for a stack allocator */
    long getLiveAllocations();

    /**
     * @return native bytes the allocator holds: for a pooled allocator its spans, caches and free units not
     * yet given back; for a native allocator the requested bytes of its live allocations (the C allocator's
     * own overhead is not visible); for a stack allocator its threads' stacks
     */
    long getFootprintBytes();

    /**
     * @return the most native memory the allocator can hold of its own (a pooled allocator's address range); -1 for
     * no such cap. Pages a pooled allocator takes from a memory manager for large blocks are not in it, so its
     * footprint can exceed this.
     */
    long getCapacityBytes();

    /** @return threads with a cache (pooled) or a stack (stack) not yet swept; 0 for a native allocator */
    long getThreadCount();

    /** @return the path of the budget the allocator draws from, or the empty string for none */
    String getBudgetPath();

    /** @return the limit of that budget; -1 for none */
    long getBudgetLimitBytes();

    /** @return the bytes that budget counts as used now, what other users of it hold included; -1 for none */
    long getBudgetUsedBytes();

    /**
     * @return double frees, frees of foreign segments and other misuse recorded so far; recorded in the
     * debug modes (the pooled allocator records some in {@code OFF} too), so 0 says nothing in {@code OFF};
     * -1 for a stack allocator, which throws at a misuse and records none
     */
    long getProblemsSeen();

    /**
     * @return the allocator's report as text (see {@link AllocationReport#toString()}): totals and, in a
     * debug mode, the live allocations grouped by allocation site and thread (the groups with the most bytes,
     * {@link AllocationReport#MAX_LEAK_GROUPS_IN_TEXT} at most), and the problems kept (a
     * stack allocator's: its thread stacks and their bytes, since it tracks no allocation). In
     * {@code FULL} mode with many live allocations this walks all of them: an operation, not an attribute,
     * so that monitoring tools that poll attributes never pay for it
     */
    String report();
}
