package dev.offheap.memory;

/**
 * Which threads may use a page, and so what releasing it costs. The JDK revokes access to memory
 * by closing the scope of the segments that reach it; how cheaply it can do that depends on who
 * may touch the segment.
 */
public enum PageAccess {
    /**
     * Only the thread that allocated a page may read, write or release it (anything else gets
     * {@link WrongThreadException}). Revoking it on release costs a few nanoseconds. The default, and
     * the right choice when one thread (a task, a sorter, a request) works on its own pages. A
     * {@link SpillCallback} runs on the thread whose request failed, so it can release only the pages
     * that thread allocated: owners that spill for other threads need {@link #SHARED} pages.
     * {@link MemoryType#HEAP} pages are not confined: the JDK cannot confine a heap segment, so any
     * thread may use and release them.
     */
    CONFINED,
    /**
     * Any thread may read, write and release the page. Revoking it on release closes a shared scope,
     * which makes every thread of the JVM pass a handshake: tens of microseconds per page. Use it for
     * pages handed between threads, and release them in batches ({@link MemoryManager#release(java.util.Collection)}).
     */
    SHARED
}
