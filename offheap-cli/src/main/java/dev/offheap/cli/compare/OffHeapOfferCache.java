package dev.offheap.cli.compare;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The off-heap variants: this project's {@link OffHeapCache}, bounded by bytes, used two ways.
 * <ul>
 * <li><b>Native end to end</b> (the {@code off-heap} variant, as docs/cache.md says to serve large values):
 *     values are {@link MemorySegment}s. A miss has the store write the description into a native buffer
 *     its thread reuses from load to load ({@link OfferLoader#loadInto}), the cache copies it in through
 *     native memory, and every request, hit or miss, reads the cached bytes in place
 *     ({@link OffHeapCache#readOrLoad}). No copy of a value ever lands on the heap.</li>
 * <li><b>Drop-in</b> (the {@code off-heap-copy} variant): values are strings, as in the Caffeine and OHC
 *     variants. A miss loads a string and the cache encodes it with the same Latin-1 copy as the OHC
 *     variant's serializer; a hit is copied out into a new string, as OHC's are. So {@code off-heap-copy}
 *     and {@code ohc} differ by their caches, not by their serializers.</li>
 * </ul>
 * Thread-safe.
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
            return latin1(source);
        }
    };

    private final OffHeapCache<Long, String> strings;
    private final OffHeapCache<Long, MemorySegment> segments;
    /** Each thread's load buffer, one value long; its memory goes when the thread's entry is collected. */
    private final ThreadLocal<MemorySegment> loadBuffers;
    private final long capacity;

    /**
     * @param maxEntries entries to size the capacity for, 1 or more
     * @param valueSize value bytes, 1 or more
     * @param nativeEndToEnd whether values are loaded into native memory and read in place (the
     *                       {@code off-heap} variant) rather than kept as strings and copied out
     *                       ({@code off-heap-copy})
     * @throws IllegalArgumentException if a size is not positive
     */
    public OffHeapOfferCache(int maxEntries, int valueSize, boolean nativeEndToEnd) {
        if (maxEntries <= 0 || valueSize <= 0) {
            throw new IllegalArgumentException("max entries (" + maxEntries + ") and value size (" + valueSize
                    + " bytes) must be positive");
        }
        this.capacity = OfferCache.offHeapCapacity(maxEntries, valueSize);
        long maxEntryBytes = Math.min(capacity, (long) valueSize + Long.BYTES + 4L * ENTRY_OVERHEAD);
        if (nativeEndToEnd) {
            this.strings = null;
            this.segments = OffHeapCache.builder(Serializer.longs(), Serializer.segments())
                    .name("offheap-compare").capacity(capacity).maxEntryBytes(maxEntryBytes).build();
            this.loadBuffers = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(valueSize));
        } else {
            this.strings = OffHeapCache.builder(Serializer.longs(), LATIN1)
                    .name("offheap-compare").capacity(capacity).maxEntryBytes(maxEntryBytes).build();
            this.segments = null;
            this.loadBuffers = null;
        }
    }

    @Override
    public String get(long id, OfferLoader loader) {
        if (strings != null) {
            return strings.get(id, loader::load);
        }
        return segments.readOrLoad(id, key -> MemorySegment.ofArray(loader.load(key).getBytes(StandardCharsets.ISO_8859_1)),
                OffHeapOfferCache::latin1);
    }

    @Override
    public long fetch(long id, OfferLoader loader) {
        if (strings != null) {
            return OfferCache.touch(strings.get(id, loader::load));
        }
        return segments.readOrLoad(id, key -> {
            MemorySegment buffer = loadBuffers.get();
            loader.loadInto(key, buffer);
            return buffer;
        }, OfferCache::touch);
    }

    private static String latin1(MemorySegment bytes) {
        return new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
    }

    @Override
    public long entries() {
        return strings != null ? strings.size() : segments.size();
    }

    @Override
    public long nativeBytes() {
        return (strings != null ? strings.stats() : segments.stats()).usedBytes();
    }

    @Override
    public String describe() {
        return "offheap-cache, capacity " + capacity + " bytes"
                + (strings != null ? ", string values, hits copied out"
                        : ", values loaded into native memory, hits and misses read in place");
    }

    /**
     * {@link #get(long, OfferLoader)} on the native variant loads a miss as a string and copies every value,
     * hit or miss, out of native memory into a new string: nothing is read in place.
     */
    @Override
    public String describeForGet() {
        return strings != null ? describe() : "offheap-cache, capacity " + capacity + " bytes"
                + ", values in native memory, every request copies its value out into a string";
    }

    @Override
    public void close() {
        if (strings != null) {
            strings.close();
        } else {
            segments.close();
        }
    }
}
