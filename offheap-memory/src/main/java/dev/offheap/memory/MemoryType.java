package dev.offheap.memory;

/** Where a {@link MemoryManager}'s pages live. */
public enum MemoryType {
    /**
     * On the Java heap: each page is a {@code byte[]} seen through {@link java.lang.foreign.MemorySegment#ofArray(byte[])}.
     * The collector owns these bytes; a released page's array is dropped rather than reused, because
     * the JDK cannot revoke a heap segment (see {@link MemoryManager} on safety). Nor can it confine one:
     * {@link PageAccess#CONFINED} does not apply, any thread may use and release a heap page.
     * A {@code byte[]} segment guarantees no alignment, so its accessors take only unaligned layouts
     * ({@code JAVA_LONG_UNALIGNED}, not {@code JAVA_LONG}, which throws {@link IllegalArgumentException}):
     * code written for NATIVE or MAPPED pages with aligned layouts fails on HEAP pages.
     */
    HEAP,
    /** Native memory outside the heap, invisible to the collector. The default. */
    NATIVE,
    /**
     * A memory-mapped file, on disk or in {@code /dev/shm}: the pages are slices of the mapping and
     * their bytes stay in the file after the manager closes, and when the process ends or is killed without
     * closing it (the system drops the lock with the process); a manager built on an existing file hands out
     * pages that hold the file's bytes. The manager's lock on the file keeps other
     * managers out, not other programs: a file truncated under a live manager makes every access to a page
     * past its new end throw {@link InternalError} (the JDK's answer to the fault; the library's helpers in
     * {@link Segments} do the same, none crashes the JVM).
     */
    MAPPED
}
