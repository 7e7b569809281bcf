package dev.offheap.cli.compare;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.function.LongFunction;

/**
 * The off-heap variants: this project's {@link OffHeapCache}, bounded by bytes. Descriptions go in with
 * the same Latin-1 copy as in the OHC variant (encode to a byte array, copy). Hits either are read in
 * place ({@link OffHeapCache#read}, the {@code off-heap} variant: no copy, no garbage) or come out as
 * OHC's do (copy out, make a string: the {@code off-heap-copy} variant), so {@code off-heap-copy} and
 * {@code ohc} differ by their caches, not by their serializers. Thread-safe.
 */
public final class OffHeapOfferCache implements OfferCache {
    /** One byte per character; descriptions are ASCII, so nothing is lost. */
    static final Serializer<String> LATIN1 = new Serializer<>() {
        @Override
        public int serializedSize(String value) {
            return value.length();
        }

        @Override
        public void write(String value, MemorySegment target) {
            byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
            MemorySegment.copy(bytes, 0, target, ValueLayout.JAVA_BYTE, 0, bytes.length);
        }

        @Override
        public String read(MemorySegment source) {
            return new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
        }
    };

    private final OffHeapCache<Long, String> cache;
    private final long capacity;
    private final boolean inPlace;

    /**
     * @param maxEntries entries to size the capacity for, 1 or more
     * @param valueSize value bytes, 1 or more
     * @param inPlace whether {@link #fetch(long, LongFunction)} reads hits in place ({@link OffHeapCache#read})
     *                instead of copying them into a new string
     * @throws IllegalArgumentException if a size is not positive
     */
    public OffHeapOfferCache(int maxEntries, int valueSize, boolean inPlace) {
        this.inPlace = inPlace;
        if (maxEntries <= 0 || valueSize <= 0) {
            throw new IllegalArgumentException("max entries (" + maxEntries + ") and value size (" + valueSize
                    + " bytes) must be positive");
        }
        this.capacity = OfferCache.offHeapCapacity(maxEntries, valueSize);
        this.cache = OffHeapCache.builder(Serializer.longs(), LATIN1)
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
    public long fetch(long id, LongFunction<String> loader) {
        if (inPlace) {
            Long sum = cache.read(id, OfferCache::touch);
            if (sum != null) {
                return sum;
            }
        }
        return OfferCache.touch(get(id, loader));
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
        return "offheap-cache, capacity " + capacity + " bytes" + (inPlace ? ", hits read in place" : "");
    }

    @Override
    public void close() {
        cache.close();
    }
}
