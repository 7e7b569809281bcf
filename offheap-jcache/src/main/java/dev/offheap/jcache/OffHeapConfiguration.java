package dev.offheap.jcache;

import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.Serializer;

import java.io.Serial;
import java.time.Duration;
import java.util.Objects;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableConfiguration;

/**
 * A JCache configuration with the off-heap cache's own settings: the capacity in bytes and the eviction
 * policy. Pass it to {@link javax.cache.CacheManager#createCache(String, javax.cache.configuration.Configuration)}
 * like any {@link MutableConfiguration}. A configuration that sets no capacity (a plain JCache one, or
 * this one before {@link #setCapacityBytes(long)}) gets the cache manager's default: its property
 * {@value #CAPACITY_PROPERTY}, else the system property of that name, else {@link #DEFAULT_CAPACITY_BYTES}.
 * The eviction policy defaults to {@link EvictionPolicy#W_TINY_LFU}. Keys and values are serialized by
 * the built-in serializer of their configured type ({@code String}, {@code Long}, {@code Integer},
 * {@code byte[]}) or else by Java serialization, unless a serializer factory is set
 * ({@link #setKeySerializerFactory(Factory)}, {@link #setValueSerializerFactory(Factory)}). The configuration a cache reports
 * ({@code cache.getConfiguration(OffHeapConfiguration.class)}) holds the capacity it really got; it is a copy,
 * so changing it does not change the cache.
 *
 * <p>The capacity counts every byte the cache uses outside the heap: serialized keys and values, the
 * expiry time stored with each value, entry headers, hash table and frequency sketch. When the cache is
 * full, the eviction policy picks entries to drop (JCache reports them only in its eviction statistics).
 *
 * <p>Expired entries are dropped when an operation finds them, and otherwise hold their bytes until they
 * are evicted. {@link #setCleanUpInterval(Duration)} sweeps them out in the background instead, with
 * their EXPIRED events; {@link ExpiryCleanUp#cleanUp()} does one sweep on demand.
 *
 * <p>Threading: like {@link MutableConfiguration}, not thread-safe; configure it in one thread, then hand
 * it to the cache manager, which copies it.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class OffHeapConfiguration<K, V> extends MutableConfiguration<K, V> {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The capacity of a cache when neither its configuration nor its manager sets one: 64 MiB. */
    public static final long DEFAULT_CAPACITY_BYTES = 64L << 20;

    /**
     * The cache manager property (or, failing that, system property) that sets the capacity in bytes of
     * caches whose configuration does not: a positive decimal number of bytes, as text
     * ({@code Properties.setProperty}). A bad value, or one that is not a {@code String}, makes
     * {@code createCache} of such a cache throw an {@code IllegalArgumentException} naming the property.
     */
    public static final String CAPACITY_PROPERTY = "dev.offheap.jcache.capacityBytes";

    /** Zero: not set, the manager's default applies. */
    private long capacityBytes;
    private EvictionPolicy evictionPolicy = EvictionPolicy.W_TINY_LFU;
    private Factory<? extends Serializer<K>> keySerializerFactory;
    private Factory<? extends Serializer<V>> valueSerializerFactory;
    /** Null: no background sweep of expired entries. */
    private Duration cleanUpInterval;

    /** A configuration with JCache's defaults and the default capacity and eviction policy. */
    public OffHeapConfiguration() {
    }

    /**
     * Copies a JCache configuration; if it is an {@code OffHeapConfiguration}, its own settings too.
     *
     * @param configuration the configuration to copy
     * @throws NullPointerException if {@code configuration} is null
     */
    public OffHeapConfiguration(CompleteConfiguration<K, V> configuration) {
        super(Objects.requireNonNull(configuration, "configuration"));
        if (configuration instanceof OffHeapConfiguration<K, V> offHeap) {
            this.capacityBytes = offHeap.capacityBytes;
            this.evictionPolicy = offHeap.evictionPolicy;
            this.keySerializerFactory = offHeap.keySerializerFactory;
            this.valueSerializerFactory = offHeap.valueSerializerFactory;
            this.cleanUpInterval = offHeap.cleanUpInterval;
        }
    }

    /**
     * @return the capacity in bytes, everything the cache stores outside the heap included; 0 if not set
     *         (the cache manager's default then applies)
     */
    public long getCapacityBytes() {
        return capacityBytes;
    }

    /**
     * Sets the capacity.
     *
     * @param bytes the most native memory the cache may use, in bytes; positive
     * @return this configuration
     * @throws IllegalArgumentException if {@code bytes} is zero or negative
     */
    public OffHeapConfiguration<K, V> setCapacityBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("capacityBytes must be positive, got " + bytes + " bytes");
        }
        this.capacityBytes = bytes;
        return this;
    }

    /** @return which entries leave when the cache is full */
    public EvictionPolicy getEvictionPolicy() {
        return evictionPolicy;
    }

    /**
     * Sets the eviction policy.
     *
     * @param policy which entries leave when the cache is full
     * @return this configuration
     * @throws NullPointerException if {@code policy} is null
     */
    public OffHeapConfiguration<K, V> setEvictionPolicy(EvictionPolicy policy) {
        this.evictionPolicy = Objects.requireNonNull(policy, "evictionPolicy");
        return this;
    }

    /** @return the factory of the key serializer, or null for the one the key type selects */
    public Factory<? extends Serializer<K>> getKeySerializerFactory() {
        return keySerializerFactory;
    }

    /**
     * Sets how keys become bytes, instead of the serializer the key type selects. Each cache made from this
     * configuration calls {@code factory.create()} once and uses the serializer from many threads: it must be
     * thread-safe. Keys are equal in the cache when their serialized bytes are equal.
     *
     * @param factory makes the key serializer; null to go back to the one the key type selects
     * @return this configuration
     */
    public OffHeapConfiguration<K, V> setKeySerializerFactory(Factory<? extends Serializer<K>> factory) {
        this.keySerializerFactory = factory;
        return this;
    }

    /** @return the factory of the value serializer, or null for the one the value type selects */
    public Factory<? extends Serializer<V>> getValueSerializerFactory() {
        return valueSerializerFactory;
    }

    /**
     * Sets how values become bytes, instead of the serializer the value type selects. Each cache made from
     * this configuration calls {@code factory.create()} once and uses the serializer from many threads: it
     * must be thread-safe.
     *
     * @param factory makes the value serializer; null to go back to the one the value type selects
     * @return this configuration
     */
    public OffHeapConfiguration<K, V> setValueSerializerFactory(Factory<? extends Serializer<V>> factory) {
        this.valueSerializerFactory = factory;
        return this;
    }

    /** @return the time between two background sweeps of expired entries, or null if there are none */
    public Duration getCleanUpInterval() {
        return cleanUpInterval;
    }

    /**
     * Sweeps expired entries out in the background: every {@code interval} after the end of the previous
     * sweep, {@link ExpiryCleanUp#cleanUp()} runs on a daemon thread that all such caches share, until the
     * cache is closed. A sweep returns at once while no entry can have expired yet; otherwise it reads the
     * expiry time of every entry in place and removes the expired ones, each with its EXPIRED event, while
     * other operations go on (at a million 100-byte entries on this project's 2-core build machine: 0.4 s
     * with none expired, 0.7-0.9 s with all expired). Without it (the default) an expired entry that no
     * operation touches holds its bytes until it is evicted.
     *
     * @param interval the time between sweeps, positive; null for none
     * @return this configuration
     * @throws IllegalArgumentException if {@code interval} is zero or negative
     */
    public OffHeapConfiguration<K, V> setCleanUpInterval(Duration interval) {
        if (interval != null && (interval.isZero() || interval.isNegative())) {
            throw new IllegalArgumentException("cleanUpInterval must be positive, got " + interval);
        }
        this.cleanUpInterval = interval;
        return this;
    }

    /**
     * Equal to another configuration with equal JCache settings; to another {@code OffHeapConfiguration}
     * only if capacity, eviction policy, serializer factories and clean-up interval are equal too (so a plain {@link MutableConfiguration} copied
     * into one stays equal to it, as JCache's own copies are).
     */
    @Override
    public boolean equals(Object other) {
        if (!super.equals(other)) {
            return false;
        }
        return !(other instanceof OffHeapConfiguration<?, ?> that)
                || (capacityBytes == that.capacityBytes && evictionPolicy == that.evictionPolicy
                && Objects.equals(keySerializerFactory, that.keySerializerFactory)
                && Objects.equals(valueSerializerFactory, that.valueSerializerFactory)
                && Objects.equals(cleanUpInterval, that.cleanUpInterval));
    }

    /** @return the JCache settings' hash: equal configurations, by {@link #equals(Object)}, hash equally */
    @Override
    public int hashCode() {
        return super.hashCode();
    }
}
