package dev.offheap.cli.compare;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/** The on-heap variant: a Caffeine cache bounded by entry count, as in the seed. Thread-safe. */
public final class CaffeineOfferCache implements OfferCache {
    private final Cache<Long, String> cache;
    private final int maxEntries;

    /**
     * @param maxEntries the most entries, 1 or more
     * @throws IllegalArgumentException if {@code maxEntries} is not positive
     */
    public CaffeineOfferCache(int maxEntries) {
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("max entries must be positive, got " + maxEntries);
        }
        this.maxEntries = maxEntries;
        this.cache = Caffeine.newBuilder().maximumSize(maxEntries).build();
    }

    @Override
    public String get(long id, OfferLoader loader) {
        return cache.get(id, loader::load);
    }

    @Override
    public long entries() {
        return cache.estimatedSize();
    }

    @Override
    public long nativeBytes() {
        return 0;
    }

    @Override
    public String describe() {
        return "Caffeine" + version(Caffeine.class) + ", maximumSize " + maxEntries;
    }

    @Override
    public void close() {
        cache.invalidateAll();
    }

    static String version(Class<?> c) {
        String v = c.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? "" : " " + v;
    }
}
