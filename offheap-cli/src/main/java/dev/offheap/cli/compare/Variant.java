package dev.offheap.cli.compare;

import dev.offheap.bench.baseline.ThirdPartyForks;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The caches {@code offheap compare} measures, each in its own JVM. */
public enum Variant {
    /** Caffeine on the heap, bounded by entries: the seed's on-heap variant. */
    ON_HEAP("on-heap", "Caffeine, values on the heap", List.of()),
    /**
     * This project's off-heap cache as its documentation says to serve large values: misses are loaded into
     * native memory (the store writes the description into a buffer its thread reuses) and every request
     * reads the cached bytes in place ({@code OffHeapCache.readOrLoad}): no copy of a value on the heap.
     */
    OFF_HEAP("off-heap", "offheap-cache, values loaded into native memory and read in place", List.of()),
    /**
     * This project's off-heap cache used as a drop-in for an on-heap one, as the seed's service used OHC:
     * string values, loaded as strings and copied into a new string on every hit. Shows what the copies cost.
     */
    OFF_HEAP_COPY("off-heap-copy", "offheap-cache, string values, hits copied into a new string", List.of()),
    /**
     * OHC, the seed's off-heap variant. It allocates and accesses memory with the JDK's unsupported {@code Unsafe} class, whose
     * memory-access methods JDK 25 warns about on first use (JEP 471/498); its JVM alone allows them
     * explicitly, which also keeps the warning out of its output.
     */
    OHC("ohc", "OHC 0.7.4, values in native memory", List.of(ThirdPartyForks.UNSAFE_MEMORY_ACCESS_ALLOWED));

    private final String label;
    private final String description;
    private final List<String> jvmOptions;

    Variant(String label, String description, List<String> jvmOptions) {
        this.label = label;
        this.description = description;
        this.jvmOptions = jvmOptions;
    }

    /** @return the name on the command line and in reports */
    public String label() {
        return label;
    }

    /** @return one line for help and reports */
    public String description() {
        return description;
    }

    /** @return JVM options this variant's JVM needs beyond the common ones */
    public List<String> jvmOptions() {
        return jvmOptions;
    }

    /**
     * Builds this variant's cache.
     *
     * @param maxEntries the most entries (off-heap variants: the capacity for this many values)
     * @param valueSize the value size in bytes
     * @return the cache
     */
    public OfferCache create(int maxEntries, int valueSize) {
        return switch (this) {
            case ON_HEAP -> new CaffeineOfferCache(maxEntries);
            case OFF_HEAP -> new OffHeapOfferCache(maxEntries, valueSize, true);
            case OFF_HEAP_COPY -> new OffHeapOfferCache(maxEntries, valueSize, false);
            case OHC -> new OhcOfferCache(maxEntries, valueSize);
        };
    }

    /**
     * The native memory this variant's cache may hold at most, beyond its JVM's heap: nothing for
     * {@code on-heap}; the capacity of the off-heap caches ({@link OfferCache#offHeapCapacity(int, int)}); and
     * for {@code off-heap} also a value-sized load buffer per request thread ({@link #loadBufferBytes}). The
     * JVM's own native memory (metaspace, code cache, thread stacks, the collector's structures) is not
     * counted. Pure arithmetic: thread-safe.
     *
     * @param maxEntries the setting's max entries, 1 or more
     * @param valueSize the setting's value size in bytes, 1 or more
     * @param threads the request threads, 1 or more
     * @return the bytes
     */
    public long nativeBytes(int maxEntries, int valueSize, int threads) {
        return this == ON_HEAP ? 0 : OfferCache.offHeapCapacity(maxEntries, valueSize) + loadBufferBytes(valueSize, threads);
    }

    /**
     * @param valueSize the setting's value size in bytes
     * @param threads the request threads
     * @return the native memory of this variant's load buffers, in bytes: {@code threads x valueSize} for
     *         {@code off-heap}, whose misses the store writes into its request thread's buffer; 0 for the others
     */
    public long loadBufferBytes(int valueSize, int threads) {
        return this == OFF_HEAP ? (long) valueSize * threads : 0;
    }

    /**
     * @param label a variant's label
     * @return the variant, if there is one of that label
     */
    public static Optional<Variant> byLabel(String label) {
        return Arrays.stream(values()).filter(v -> v.label.equals(label)).findFirst();
    }

    /**
     * @return the variants {@code offheap compare} runs by default: all of them, on-heap first, so that every
     *         off-heap variant has its baseline in the same run
     */
    public static List<Variant> defaults() {
        return List.of(ON_HEAP, OFF_HEAP, OFF_HEAP_COPY, OHC);
    }

    /** @return the labels, comma-separated, for messages */
    public static String labels() {
        return String.join(", ", Arrays.stream(values()).map(Variant::label).toList());
    }
}
