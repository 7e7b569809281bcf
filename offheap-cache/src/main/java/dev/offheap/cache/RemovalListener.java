package dev.offheap.cache;

/**
 * Told about entries that leave the cache. Called on the thread that caused the removal, after the
 * cache's locks are released; an exception it throws is logged and otherwise ignored.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface RemovalListener<K, V> {
    /**
     * @param key   the key
     * @param value the value (deserialized for the listener)
     * @param cause why it left
     */
    void onRemoval(K key, V value, RemovalCause cause);
}
