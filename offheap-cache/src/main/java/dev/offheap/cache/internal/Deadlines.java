package dev.offheap.cache.internal;

/**
 * Expiry deadlines as the 4-byte field of an entry header: milliseconds since the cache was built, or,
 * once that no longer fits in 30 bits (after about 12 days), whole seconds. 0 means "never".
 * Deadlines are therefore exact to the millisecond for the cache's first 12 days, to the second for the
 * next 34 years, and saturate after that.
 */
final class Deadlines {
    static final int NEVER = 0;
    private static final long MILLIS_LIMIT = 1L << 30;
    private static final long SECONDS_ORIGIN = MILLIS_LIMIT / 1000;

    private Deadlines() {
    }

    /** @param millis a deadline in ms since the cache was built, at least 0 @return its encoding, never 0 */
    static int encode(long millis) {
        if (millis < 1) {
            return 1;
        }
        if (millis < MILLIS_LIMIT) {
            return (int) millis;
        }
        long seconds = (millis + 999) / 1000;
        long encoded = MILLIS_LIMIT + (seconds - SECONDS_ORIGIN);
        return (int) Math.min(encoded, Integer.MAX_VALUE);
    }

    /** @param encoded a non-zero encoding @return the deadline in ms since the cache was built */
    static long decode(int encoded) {
        return encoded < MILLIS_LIMIT ? encoded : (encoded - MILLIS_LIMIT + SECONDS_ORIGIN) * 1000;
    }

    /** @return whether the encoded deadline has passed at {@code nowMillis} */
    static boolean passed(int encoded, long nowMillis) {
        return encoded != NEVER && decode(encoded) <= nowMillis;
    }
}
