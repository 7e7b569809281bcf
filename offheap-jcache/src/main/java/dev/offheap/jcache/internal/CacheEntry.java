package dev.offheap.jcache.internal;

import java.util.Objects;
import javax.cache.Cache;

/** A copy of one entry, as the cache's iterator and a {@link javax.cache.integration.CacheWriter} see it. */
final class CacheEntry<K, V> implements Cache.Entry<K, V> {
    private final K key;
    private final V value;

    CacheEntry(K key, V value) {
        this.key = key;
        this.value = value;
    }

    @Override
    public K getKey() {
        return key;
    }

    @Override
    public V getValue() {
        return value;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return Unwrapping.unwrap(this, type, "a cache entry");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CacheEntry<?, ?> that && key.equals(that.key) && Objects.equals(value, that.value);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
