package dev.offheap.jcache.internal;

import java.io.Serial;
import javax.cache.Cache;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.EventType;

/** A JCache entry event: a copy of the key and values at the time of the change. */
final class JCacheEntryEvent<K, V> extends CacheEntryEvent<K, V> {
    @Serial
    private static final long serialVersionUID = 1L;

    @SuppressWarnings("serial") // keys and values of a by-value cache are Serializable or built-in types
    private final K key;
    @SuppressWarnings("serial")
    private final V value;
    @SuppressWarnings("serial")
    private final V oldValue;
    private final boolean oldValueAvailable;

    JCacheEntryEvent(Cache<K, V> source, EventType type, K key, V value, V oldValue, boolean oldValueAvailable) {
        super(source, type);
        this.key = key;
        this.value = value;
        this.oldValue = oldValue;
        this.oldValueAvailable = oldValueAvailable;
    }

    /** The same event as a listener that did not ask for old values sees it. */
    @SuppressWarnings("unchecked") // the source is the Cache<K, V> given to the constructor
    JCacheEntryEvent<K, V> withoutOldValue() {
        if (!oldValueAvailable) {
            return this;
        }
        // JCache 1.1: a removed or expired entry's event carries its value only as the old value.
        boolean valueIsOld = getEventType() == EventType.REMOVED || getEventType() == EventType.EXPIRED;
        return new JCacheEntryEvent<>((Cache<K, V>) getSource(), getEventType(), key, valueIsOld ? null : value,
                null, false);
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
    public V getOldValue() {
        return oldValue;
    }

    @Override
    public boolean isOldValueAvailable() {
        return oldValueAvailable;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return Unwrapping.unwrap(this, type, "a cache entry event");
    }

    @Override
    public String toString() {
        return getEventType() + " " + key + "=" + value + (oldValueAvailable ? " (was " + oldValue + ")" : "");
    }
}
