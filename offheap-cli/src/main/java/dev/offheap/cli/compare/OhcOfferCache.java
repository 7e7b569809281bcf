package dev.offheap.cli.compare;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * The OHC variant: the off-heap cache the seed used (OHC 0.7.4, from Apache Cassandra), bounded by
 * bytes. A miss loads and then puts, so two threads missing the same id at once both load it (OHC's
 * {@code getWithLoader} would hand the load to an executor thread instead). Thread-safe.
 */
public final class OhcOfferCache implements OfferCache {
    private static final CacheSerializer<Long> KEYS = new CacheSerializer<>() {
        @Override
        public void serialize(Long value, ByteBuffer buf) {
            buf.putLong(value);
        }

        @Override
        public Long deserialize(ByteBuffer buf) {
            return buf.getLong();
        }

        @Override
        public int serializedSize(Long value) {
            return Long.BYTES;
        }
    };

    /** Descriptions are ASCII: one byte per character, no length prefix needed beyond OHC's own. */
    private static final CacheSerializer<String> VALUES = new CacheSerializer<>() {
        @Override
        public void serialize(String value, ByteBuffer buf) {
            buf.put(value.getBytes(StandardCharsets.ISO_8859_1));
        }

        @Override
        public String deserialize(ByteBuffer buf) {
            byte[] bytes = new byte[buf.remaining()];
            buf.get(bytes);
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }

        @Override
        public int serializedSize(String value) {
            return value.length();
        }
    };

    private final OHCache<Long, String> cache;
    private final long capacity;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param maxEntries entries to size the capacity for, 1 or more
     * @param valueSize value bytes, 1 or more
     * @throws IllegalArgumentException if a size is not positive
     */
    public OhcOfferCache(int maxEntries, int valueSize) {
        if (maxEntries <= 0 || valueSize <= 0) {
            throw new IllegalArgumentException("max entries (" + maxEntries + ") and value size (" + valueSize
                    + " bytes) must be positive");
        }
        this.capacity = OfferCache.offHeapCapacity(maxEntries, valueSize);
        OHCacheBuilder<Long, String> builder = OHCacheBuilder.<Long, String>newBuilder()
                .keySerializer(KEYS).valueSerializer(VALUES).capacity(capacity);
        // OHC splits the capacity between its segments and refuses entries larger than one segment's
        // share; small test configurations need fewer segments to cache anything.
        int segments = Integer.highestOneBit((int) Math.max(1, Math.min(2L * Runtime.getRuntime().availableProcessors(),
                capacity / (4L * (valueSize + Long.BYTES + ENTRY_OVERHEAD)))));
        this.cache = builder.segmentCount(segments).build();
    }

    @Override
    public String get(long id, OfferLoader loader) {
        String value = cache.get(id);
        if (value == null) {
            value = loader.load(id);
            cache.put(id, value);
        }
        return value;
    }

    @Override
    public long entries() {
        return cache.size();
    }

    @Override
    public long nativeBytes() {
        return cache.memUsed();
    }

    @Override
    public String describe() {
        return "OHC" + CaffeineOfferCache.version(OHCache.class) + ", capacity " + capacity + " bytes";
    }

    @Override
    public void close() {
        // OHC's own close is not idempotent: a second one fails with a NullPointerException on the freed maps
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            cache.close();
        } catch (IOException e) {
            // OHC's close frees native memory and declares IOException only through Closeable
            throw new IllegalStateException("closing OHC failed: " + e, e);
        }
    }
}
