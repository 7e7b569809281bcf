package dev.offheap.jcache.internal;

import java.util.Objects;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.processor.MutableEntry;

/**
 * The entry an {@link javax.cache.processor.EntryProcessor} works on. It records what the processor did;
 * the cache applies the net effect afterwards, atomically with the read.
 */
final class ProcessorEntry<K, V> implements MutableEntry<K, V> {
    /** The net effect of the processor on the entry. */
    enum Operation {
        /** Nothing, or a create undone by a remove. */
        NONE,
        /** Read an existing value. */
        ACCESS,
        /** Set a value where there was none. */
        CREATE,
        /** Loaded a value through read-through. */
        LOAD,
        /** Replaced an existing value. */
        UPDATE,
        /** Removed the entry. */
        REMOVE
    }

    private final K key;
    private final Expirable<V> existing;
    private final CacheLoader<K, V> readThrough;
    /** The cache's configured value type, which {@link #setValue} and loads check as the cache's operations do. */
    private final Class<V> valueType;
    /** The cache's name, for messages. */
    private final String cacheName;
    private V value;
    private Operation operation = Operation.NONE;

    /**
     * @param key         the key
     * @param existing    the live entry before the processor ran, or null; decoded only if read
     * @param readThrough the loader if the cache reads through, else null
     * @param valueType   the cache's configured value type
     * @param cacheName   the cache's name, for messages
     */
    ProcessorEntry(K key, Expirable<V> existing, CacheLoader<K, V> readThrough, Class<V> valueType, String cacheName) {
        this.key = key;
        this.existing = existing;
        this.readThrough = readThrough;
        this.valueType = valueType;
        this.cacheName = cacheName;
    }

    Operation operation() {
        return operation;
    }

    /** @return the value the processor left (for CREATE, LOAD, UPDATE) */
    V value() {
        return value;
    }

    @Override
    public K getKey() {
        return key;
    }

    @Override
    public V getValue() {
        if (operation == Operation.NONE) {
            // a copy: a processor may change it in place, and the entry's old value (its UPDATED or
            // REMOVED event's) must stay the stored one
            value = existing == null ? null : existing.copyOfValue();
            if (value != null) {
                operation = Operation.ACCESS;
            }
        }
        if (value == null && operation == Operation.NONE && readThrough != null) {
            V loaded;
            try {
                loaded = readThrough.load(key);
            } catch (CacheLoaderException e) {
                throw e;
            } catch (Exception e) {
                throw new CacheLoaderException("loading key " + key + " failed: " + e, e);
            }
            value = OffHeapJCache.checkLoaded("value", key, loaded, valueType, cacheName);
            if (value != null) {
                operation = Operation.LOAD;
            }
        }
        return value;
    }

    @Override
    public boolean exists() {
        return operation == Operation.NONE ? existing != null : value != null;
    }

    @Override
    public void remove() {
        operation = operation == Operation.CREATE || operation == Operation.LOAD ? Operation.NONE : Operation.REMOVE;
        value = null;
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException if {@code newValue} is null
     * @throws ClassCastException   if {@code newValue} is not of the cache's configured value type (a processor
     *                              called through a raw {@code Cache}); the entry is left as it was
     */
    @Override
    public void setValue(V newValue) {
        Objects.requireNonNull(newValue, "value");
        if (!valueType.isInstance(newValue)) {
            // stored, a Java-serialized value of another type made every later get of the key throw
            throw new ClassCastException("cache '" + cacheName + "' has values of " + valueType.getName()
                    + ", the entry processor set a " + newValue.getClass().getName());
        }
        operation = existing == null ? Operation.CREATE : Operation.UPDATE;
        value = newValue;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return Unwrapping.unwrap(this, type, "an entry processor's entry");
    }
}
