package dev.offheap.cache;

/**
 * Told about entries that leave the cache. Called on the thread that caused the removal, after the
 * cache's locks are released.
 *
 * <p>An exception it throws is logged and otherwise ignored. An {@link Error} it throws (or any other
 * throwable that is not an {@link Exception}) stops nothing either: the call that removed the entries does
 * all its work, telling the listener of every other removal (an operation on many entries, such as
 * {@link OffHeapCache#invalidateAll()}, {@link OffHeapCache#cleanUp()}, {@link OffHeapCache#putAll},
 * {@link OffHeapCache#getAll} or the bulk methods of {@link OffHeapCache#asMap()}, removes and stores all its
 * entries), and then throws the listener's first Error to its caller, the later ones suppressed in it. A
 * call that fails for a reason of its own throws that failure, the listener's Errors suppressed in it. A
 * {@linkplain CacheBuilder#cleanUpInterval scheduled clean-up}, which has no caller, logs them and its
 * schedule goes on.
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
