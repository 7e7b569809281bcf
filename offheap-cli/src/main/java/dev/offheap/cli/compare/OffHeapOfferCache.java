package dev.offheap.cli.compare;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import java.util.function.LongFunction;

/** The off-heap variant: this project's {@link OffHeapCache}, bounded by bytes. Thread-safe. */
public final class OffHeapOfferCache implements OfferCache {
    private final OffHeapCache<Long, String> cache;
    private final long capacity;

    /**
     * @param maxEntries entries to size the capacity for, 1 or more
     * @param valueSize value bytes, 1 or more
     * @throws IllegalArgumentException if a size is not positive
     */
    public OffHeapOfferCache(int maxEntries, int valueSize) {
        if (maxEntries <= 0 || valueSize <= 0) {
            throw new IllegalArgumentException("max entries (" + maxEntries + ") and value size (" + valueSize
                    + " bytes) must be positive");
        }
        this.capacity = OfferCache.offHeapCapacity(maxEntries, valueSize);
        this.cache = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                .name("offheap-compare")
                .capacity(capacity)
                .maxEntryBytes(Math.min(capacity, (long) valueSize + Long.BYTES + 4L * ENTRY_OVERHEAD))
                .build();
    }

    @Override
    public String get(long id, LongFunction<String> loader) {
        return cache.get(id, loader::apply);
    }

    @Override
    public long entries() {
        return cache.size();
    }

    @Override
    public long nativeBytes() {
        return cache.stats().usedBytes();
    }

    @Override
    public String describe() {
        return "offheap-cache, capacity " + capacity + " bytes";
    }

    @Override
    public void close() {
        cache.close();
    }
}
