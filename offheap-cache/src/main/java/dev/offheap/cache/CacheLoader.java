package dev.offheap.cache;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Computes values of absent keys for {@link OffHeapCache#get(Object)} and {@link OffHeapCache#getAll}.
 * Called from the thread that asked; at most one load per key runs at a time. What a failed load throws,
 * to the caller that ran it and to those that waited for it, is said in one place:
 * {@link OffHeapCache#get(Object, java.util.function.Function)}. An {@link Error} passes to the caller that
 * ran the loader as it is; the callers that waited for the load get a {@link CacheLoadException} with it as
 * the cause.
 *
 * @param <K> key type
 * @param <V> value type
 */
@FunctionalInterface
public interface CacheLoader<K, V> {
    /**
     * @param key the key
     * @return its value; null means "no value", which the cache reports as a {@link CacheLoadException}
     * @throws Exception anything; the cache wraps it in a {@link CacheLoadException}. An
     *                   {@link InterruptedException} too, and the cache then sets the thread's interrupt
     *                   status again, as Caffeine does
     */
    V load(K key) throws Exception;

    /**
     * Loads many keys; by default one {@link #load(Object)} per key.
     *
     * @param keys the absent keys
     * @return their values; keys missing from the result are not cached. Its keys are matched to the asked
     *         ones by their serialized bytes, as the cache compares keys (so new {@code byte[]} keys of the
     *         same contents do); keys in it that were not asked for are cached too, as in Caffeine, but not
     *         returned by {@link OffHeapCache#getAll} (one that cannot be stored, its value over the entry
     *         limit or its key or value refused by a serializer, is skipped and logged). A value of an
     *         asked key that cannot be stored fails the {@code getAll} once the others are stored, as
     *         {@link OffHeapCache#getAll} says
     * @throws Exception anything; the cache wraps it in a {@link CacheLoadException}, setting the thread's
     *                   interrupt status again for an {@link InterruptedException}, as for {@link #load}
     */
    default Map<K, V> loadAll(Set<? extends K> keys) throws Exception {
        Map<K, V> result = new HashMap<>();
        for (K key : keys) {
            V value = load(key);
            if (value != null) {
                result.put(key, value);
            }
        }
        return result;
    }
}
