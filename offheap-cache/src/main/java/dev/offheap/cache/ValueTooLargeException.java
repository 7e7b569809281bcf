package dev.offheap.cache;

/** An entry is larger than the cache's maximum entry size; nothing was stored. */
public final class ValueTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final long entryBytes;
    private final long limitBytes;

    /**
     * @param entryBytes the size of the rejected entry (key, value and header)
     * @param limitBytes the largest entry the cache accepts
     */
    public ValueTooLargeException(long entryBytes, long limitBytes) {
        super("an entry of " + entryBytes + " bytes is larger than this cache's limit of " + limitBytes
                + " bytes per entry (CacheBuilder.maxEntryBytes; by default, and always under JCache, a sixteenth"
                + " of the cache's capacity)");
        this.entryBytes = entryBytes;
        this.limitBytes = limitBytes;
    }

    /** @return the size of the rejected entry in bytes */
    public long entryBytes() {
        return entryBytes;
    }

    /** @return the limit in bytes */
    public long limitBytes() {
        return limitBytes;
    }
}
