/**
 * Variable-size native allocation for code that does not think in pages: I/O buffers, strings and
 * structs handed to native functions, the entries of data structures. Every allocator is a
 * {@link java.lang.foreign.Arena}, so it works wherever FFM code takes one.
 *
 * <h2>The allocators</h2>
 * <ul>
 *   <li>{@link dev.offheap.memory.alloc.NativeAllocator}: {@code malloc}/{@code calloc}/{@code free}
 *       (or mimalloc) through {@link java.lang.foreign.Linker}, with a record of live allocations so that
 *       close frees what is left and bad frees are refused instead of corrupting the C heap.</li>
 *   <li>{@link dev.offheap.memory.alloc.PooledAllocator}: size classes and per-thread caches over one
 *       reserved address range; the general-purpose allocator, and the fast one.</li>
 *   <li>{@link dev.offheap.memory.alloc.StackAllocator}: per-thread stacks of frames, LWJGL
 *       {@code MemoryStack} style; the fastest for memory that lives within a method call.</li>
 * </ul>
 *
 * <h2>Why they are built this way</h2>
 * Seed 004 (the FFM allocation shootout) measured where allocation time goes: a new arena scope per
 * allocation costs tens of nanoseconds, reserving memory through a global counter costs as much as
 * {@code malloc} itself, and zeroing is a large part of the rest. Hence:
 * <ol>
 *   <li><b>No scope per allocation on the fast path.</b> Pooled and stack segments are slices of a
 *       segment the allocator owns; {@code close()} closes that one scope, which makes every segment
 *       inaccessible at once. A scope per allocation (so that a use after free throws) is what
 *       {@link dev.offheap.memory.alloc.DebugMode#FULL} adds, at its cost.</li>
 *   <li><b>No shared write on the fast path.</b> A pooled allocation pops a block from the calling
 *       thread's cache and a free pushes onto the freeing thread's cache; only batches move to and from
 *       the central pools, under a per-size-class lock. Byte and allocation counters are per thread
 *       too, summed when read. A budget is charged per 64 KiB unit of memory held, not per allocation.</li>
 *   <li><b>Zeroing only where promised.</b> {@code allocate} zeroes, as {@code Arena} requires;
 *       {@code allocateUninitialized} (the counterpart of {@code malloc}) and the {@code allocateFrom}
 *       family (whose contents are overwritten at once) do not. The JDK's default
 *       {@code allocateFrom} implementations call {@code allocate}; every allocator here overrides them.</li>
 *   <li><b>Debugging is a mode, not a wrapper</b>: a sampled mode costs a per-thread counter decrement
 *       on the fast path and tracks 1 allocation in N from separate spans, so the untracked free path
 *       needs no map lookup to know a block is untracked.</li>
 *   <li><b>Memory goes back.</b> The pooled allocator returns empty spans to its range and their pages
 *       to the system on {@code trim()}, when idle, and before a budget refuses; caches of ended
 *       threads are swept. Pages are given back with {@code madvise}, never unmapped before close, so a
 *       stale segment cannot fault the JVM.</li>
 * </ol>
 *
 * <h2>Safety model</h2>
 * Bad input gets a specific exception: a negative size or an alignment that is not a power of two
 * {@link java.lang.IllegalArgumentException}; a foreign segment, or a slice of an allocation,
 * {@link java.lang.IllegalArgumentException}; a double free {@link java.lang.IllegalStateException}
 * where detected (always in FULL mode, with both stack traces); over a budget
 * {@link dev.offheap.memory.BudgetExceededException}; a closed allocator
 * {@link java.lang.IllegalStateException}. Closing an allocator reports live allocations and frees
 * them; after close every segment it handed out throws on access. What a use after free reads in the
 * cheaper modes is described on each allocator. {@code docs/alloc.md} has the whole story.
 */
package dev.offheap.memory.alloc;
