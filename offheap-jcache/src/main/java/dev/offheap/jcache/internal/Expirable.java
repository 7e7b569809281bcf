package dev.offheap.jcache.internal;

/**
 * What the off-heap cache stores per JCache entry: the value and the wall-clock time at which it expires.
 *
 * @param value           the value
 * @param expiresAtMillis when it expires, in {@link System#currentTimeMillis()} milliseconds;
 *                        {@link Long#MAX_VALUE} for never
 * @param <V>             value type
 */
record Expirable<V>(V value, long expiresAtMillis) {
    static final long NEVER = Long.MAX_VALUE;

    boolean isExpiredAt(long nowMillis) {
        return expiresAtMillis <= nowMillis;
    }

    Expirable<V> withExpiry(long newExpiresAtMillis) {
        return new Expirable<>(value, newExpiresAtMillis);
    }
}
