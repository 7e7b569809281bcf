package dev.offheap.cache.internal;

/**
 * Expiry deadlines as the 4-byte field of an entry header, in milliseconds since the cache was built (the
 * clock reading {@link OffHeapCacheImpl} counts from). 0 means "never".
 *
 * <p>Codes below 2<sup>30</sup> are deadlines in exact milliseconds (the cache's first 12 days). Above,
 * a code is a small floating-point number: 4 bits of binary exponent {@code e} and 26 bits of mantissa
 * {@code m}, for the deadline {@code (2^26 + m) << (e + 4)} ms, so each doubling of the time since the
 * build doubles the step (16 ms from 12 days on, 256 ms from a year, 16 s from 34 years, 131 s from 146
 * years). The codes reach past 2<sup>45</sup> ms (1,100 years), further than any clock reading the cache
 * takes can (a difference of nanosecond readings, at most 2<sup>63</sup> - 1 ns, 292 years), so no
 * deadline that a clock can reach saturates; one further still is encoded as the last code, which no
 * reading reaches: it never passes.
 *
 * <p>Encoding rounds up (an entry never expires before its deadline, and at most 2<sup>-26</sup> of the
 * time since the build after it), and codes order as the deadlines do, so that codes can be compared and
 * raised as ints.
 */
final class Deadlines {
    static final int NEVER = 0;
    private static final long MILLIS_LIMIT = 1L << 30;
    private static final int MANTISSA_BITS = 26;
    /** The step of the first exponent is 2^SHIFT ms: the mantissa's 2^26 steps then start at 2^30 ms. */
    private static final int SHIFT = 30 - MANTISSA_BITS;

    private Deadlines() {
    }

    /**
     * @param millis a deadline in ms since the cache was built; below 1 it counts as 1 (a deadline is
     *               never 0, the code for "never")
     * @return its encoding, never 0: the code of the earliest encodable deadline at or after {@code millis}
     */
    static int encode(long millis) {
        if (millis < 1) {
            return 1;
        }
        if (millis < MILLIS_LIMIT) {
            return (int) millis;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(millis) - 30; // millis lies in [2^(30+e), 2^(31+e))
        if (exponent > 15) {
            return Integer.MAX_VALUE;
        }
        int shift = exponent + SHIFT;
        // rounded up; a mantissa that rounds up to 2^26 is the next exponent's first code, as it should be
        long steps = ((millis - 1) >>> shift) + 1;
        long code = MILLIS_LIMIT + ((long) exponent << MANTISSA_BITS) + (steps - (1L << MANTISSA_BITS));
        return (int) Math.min(code, Integer.MAX_VALUE);
    }

    /** @param encoded a non-zero encoding @return the deadline in ms since the cache was built */
    static long decode(int encoded) {
        if (encoded < MILLIS_LIMIT) {
            return encoded;
        }
        int rest = encoded - (int) MILLIS_LIMIT;
        int exponent = rest >>> MANTISSA_BITS;
        long mantissa = rest & ((1L << MANTISSA_BITS) - 1);
        return ((1L << MANTISSA_BITS) + mantissa) << (exponent + SHIFT);
    }

    /** @return whether the encoded deadline has passed at {@code nowMillis} */
    static boolean passed(int encoded, long nowMillis) {
        return encoded != NEVER && decode(encoded) <= nowMillis;
    }
}
