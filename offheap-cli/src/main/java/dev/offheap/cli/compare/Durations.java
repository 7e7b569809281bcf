package dev.offheap.cli.compare;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints the durations of the command line: {@code 200us}, {@code 5ms}, {@code 30s}, {@code 2m}.
 * Thread-safe: stateless.
 */
public final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|min|h)");

    private Durations() {
    }

    /**
     * @param text a number with a unit: ns, us (or µs), ms, s, m (or min), h; e.g. {@code 200us}
     * @return the duration, rounded to nanoseconds
     * @throws IllegalArgumentException if the text is not a number with one of these units, or is negative
     */
    public static Duration parse(String text) {
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a duration such as 200us, 50ms, 30s or 2m, got '" + text + "'");
        }
        long nanosPerUnit = switch (m.group(2)) {
            case "ns" -> 1;
            case "us", "µs" -> 1_000;
            case "ms" -> 1_000_000;
            case "s" -> 1_000_000_000;
            case "m", "min" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
        // in decimal, not in a double: a double's 53 bits lost nanoseconds from about 48 days on, and format's
        // exact text of such a duration read back as another one
        BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(nanosPerUnit))
                .setScale(0, RoundingMode.HALF_UP);
        if (nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("duration too long: '" + text + "'");
        }
        return Duration.ofNanos(nanos.longValueExact());
    }

    /**
     * @param d a duration
     * @return it exactly, in the largest unit that needs no fraction below a second, e.g. {@code 200us},
     *         {@code 1.5s}, {@code 999.9s}: {@link #parse} reads it back as the same duration
     */
    public static String format(Duration d) {
        long ns = d.toNanos();
        if (ns % 1_000_000_000L == 0 && ns >= 1_000_000_000L) {
            return ns / 1_000_000_000L + "s";
        }
        if (ns >= 1_000_000_000L) {
            // exact, in plain digits: three significant digits wrote 999.9 s as "1.00e+03s" and 59.99 s as "60.0s"
            return BigDecimal.valueOf(ns, 9).stripTrailingZeros().toPlainString() + "s";
        }
        if (ns % 1_000_000 == 0 && ns > 0) {
            return ns / 1_000_000 + "ms";
        }
        if (ns % 1_000 == 0 && ns > 0) {
            return ns / 1_000 + "us";
        }
        return ns + "ns";
    }
}
