package dev.offheap.cli;

import java.util.Locale;

/**
 * A count with its noun, as the commands' output lines write it: one in the singular ("1 thread"), any other
 * count in the plural ("0 threads", "1,024 threads"). Stateless and thread-safe.
 */
public final class Counts {
    private Counts() {
    }

    /**
     * @param n the count
     * @param one the noun for a count of one, e.g. {@code entry}
     * @param many the noun for any other count, e.g. {@code entries}
     * @return the count, its digits grouped by thousands with commas, and the noun: {@code 5,000 entries}
     */
    public static String of(long n, String one, String many) {
        return String.format(Locale.ROOT, "%,d %s", n, n == 1 ? one : many);
    }

    /**
     * {@link #of(long, String, String)} for a noun whose plural adds an s.
     *
     * @param n the count
     * @param one the noun for a count of one, e.g. {@code thread}
     * @return e.g. {@code 1 thread}, {@code 10 threads}
     */
    public static String of(long n, String one) {
        return of(n, one, one + "s");
    }
}
