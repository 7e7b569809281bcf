package dev.offheap.memory;

/**
 * Called by a {@link MemoryManager} when another owner's request cannot be met: the owner that
 * registered it is asked to give memory back (write pages to disk, drop a cache, shrink a table).
 *
 * <p>The manager calls the callbacks of the owners that use the most memory first, on the thread
 * whose request failed, never while holding a lock of its own, and never for the owner that is
 * asking. A callback releases pages or reservations through the manager as usual; whatever it returns
 * is informational, the manager checks what was actually freed. It must not allocate from the same
 * manager. An exception it throws (a checked one too) is logged and treated as nothing freed; an {@link Error}
 * ends the request with that error (nothing allocated), counted as a spill with what the owner gave back; a callback
 * removed, or whose owner was released, while a spill runs is not called any more. Running on the
 * requester's thread, it can release {@link PageAccess#CONFINED} pages only if that thread allocated them
 * (a release of another live thread's confined page throws {@link WrongThreadException}, and
 * {@link MemoryManager#releaseAll} quarantines such pages, which frees nothing): owners that spill for
 * other threads use {@link PageAccess#SHARED} pages.
 */
@FunctionalInterface
public interface SpillCallback {
    /**
     * Asks for memory back.
     *
     * @param manager     the manager asking
     * @param bytesWanted how many bytes the failing request still needs
     * @return the bytes this call released (informational)
     */
    long spill(MemoryManager manager, long bytesWanted);
}
