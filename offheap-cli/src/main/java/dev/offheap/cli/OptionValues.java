package dev.offheap.cli;

import dev.offheap.cli.compare.Durations;
import java.time.Duration;
import java.util.List;

/**
 * The parsing steps every subcommand's options share, each failing with a {@link UsageException}
 * whose message names the option, so that {@code bench}, {@code compare} and {@code serve} report bad
 * input the same way.
 */
public final class OptionValues {
    private OptionValues() {
    }

    /**
     * @param argv the command line
     * @param i the index of the option's value
     * @param option the option, for the message
     * @return the value
     * @throws UsageException if there is none (the end of the line, or another option)
     */
    public static String next(List<String> argv, int i, String option) throws UsageException {
        if (i >= argv.size() || argv.get(i).startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return argv.get(i);
    }

    /**
     * @param argv the command line
     * @param i the index of the option's value
     * @param option the option, for the message
     * @return the value, not blank
     * @throws UsageException if there is none, or it is blank
     */
    public static String nextNonEmpty(List<String> argv, int i, String option) throws UsageException {
        return nonEmpty(option, next(argv, i, option));
    }

    /**
     * @param option a flag
     * @param value what followed {@code =}, or null
     * @throws UsageException if a value was given
     */
    public static void noValue(String option, String value) throws UsageException {
        if (value != null) {
            throw new UsageException(option + " takes no value");
        }
    }

    /**
     * @param option the option, for the message
     * @param value its value
     * @return the value
     * @throws UsageException if it is blank
     */
    public static String nonEmpty(String option, String value) throws UsageException {
        if (value.isBlank()) {
            throw new UsageException(option + " needs a non-empty value");
        }
        return value;
    }

    /**
     * @param option the option, for the message
     * @param text a whole number, underscores allowed ({@code 100_000})
     * @param min the smallest accepted
     * @param max the largest accepted
     * @return the number
     * @throws UsageException if it is not a whole number from min to max
     */
    public static long count(String option, String text, long min, long max) throws UsageException {
        long n;
        try {
            n = Long.parseLong(text.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": expected a whole number from " + min + " to " + max + ", got '"
                    + text + "'");
        }
        if (n < min || n > max) {
            throw new UsageException(option + ": expected a whole number from " + min + " to " + max + ", got " + n);
        }
        return n;
    }

    /**
     * @param option the option, for the message
     * @param text a duration as {@link Durations#parse(String)} reads it ({@code 200us}, {@code 5s})
     * @param zeroAllowed whether 0 is accepted
     * @return the duration
     * @throws UsageException if it cannot be read, or is 0 where that is not allowed
     */
    public static Duration duration(String option, String text, boolean zeroAllowed) throws UsageException {
        Duration d;
        try {
            d = Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + ": " + e.getMessage());
        }
        if (!zeroAllowed && d.isZero()) {
            throw new UsageException(option + ": must be longer than 0, got '" + text + "'");
        }
        return d;
    }
}
