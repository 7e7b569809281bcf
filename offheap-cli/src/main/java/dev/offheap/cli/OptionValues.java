package dev.offheap.cli;

import dev.offheap.cli.compare.Durations;
import dev.offheap.memory.ByteSize;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The parsing steps every subcommand's options share, each failing with a {@link UsageException}
 * whose message names the option, so that {@code bench}, {@code compare} and {@code serve} report bad
 * input the same way.
 */
public final class OptionValues {
    /**
     * The longest duration an option accepts: 365 days. Anything longer is a slip of the keyboard, and
     * durations near {@code Long.MAX_VALUE} nanoseconds (about 292 years) overflow the arithmetic of the
     * deadlines they set.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(365);

    private OptionValues() {
    }

    /**
     * Notes that an option was given, so that a second occurrence fails instead of silently replacing the
     * first (the last one winning would run with a value the user may not have meant).
     *
     * @param seen the options given so far on this command line, by canonical name, each with the
     *             spelling it was given as; updated
     * @param canonical the option's canonical name, e.g. {@code --requests}
     * @param given how the command line spelled it this time: the canonical name or an alias, e.g. {@code -n}
     * @throws UsageException if the option was given before, under any of its names
     */
    public static void once(Map<String, String> seen, String canonical, String given) throws UsageException {
        String first = seen.putIfAbsent(canonical, given);
        if (first == null) {
            return;
        }
        // name the aliases, so that "--requests given twice" is clear for "-n 100 --requests 200" too
        LinkedHashSet<String> aliases = new LinkedHashSet<>(List.of(first, given));
        aliases.remove(canonical);
        throw new UsageException(canonical + " given twice" + (aliases.isEmpty() ? ""
                : " (" + String.join(" and ", aliases) + (aliases.size() == 1 ? " is " : " are ") + canonical + ")"));
    }

    /**
     * Splits a comma-separated list, such as {@code 100000,200000}.
     *
     * @param option the option, for the message
     * @param text the list
     * @return the items, trimmed
     * @throws UsageException if an item is blank ({@code 1,,2}, {@code ,1}, {@code 1,})
     */
    public static List<String> items(String option, String text) throws UsageException {
        // -1 keeps trailing empty strings, so that "1," fails as ",1" does
        List<String> parts = List.of(text.split(",", -1));
        if (parts.stream().anyMatch(String::isBlank)) {
            throw new UsageException(option + ": empty item in the list '" + text + "'");
        }
        return parts.stream().map(String::trim).toList();
    }

    /**
     * A command-line argument split at its first {@code =} when it is an option with its value inline, long
     * ({@code --count=3}) or short ({@code -c=3}).
     *
     * @param option the option ({@code --count} of {@code --count=3}, {@code -c} of {@code -c=3}), or the whole
     *               argument
     * @param inline the value after {@code =} ({@code 3}), possibly empty; null when none was inline
     */
    public record Split(String option, String inline) {
    }

    /**
     * @param arg an argument of the command line
     * @return {@code --name=value} as ({@code --name}, {@code value}), {@code -n=value} as ({@code -n},
     *         {@code value}); anything else as (arg, null)
     */
    public static Split split(String arg) {
        int equals = arg.indexOf('=');
        // a short option takes its value inline as a long one does: "-s=100" was an unknown option
        boolean option = arg.startsWith("--") || arg.startsWith("-") && equals > 1;
        return option && equals >= 0 ? new Split(arg.substring(0, equals), arg.substring(equals + 1))
                : new Split(arg, null);
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

    /** A whole number as {@link #wholeNumber(String)} reads it. */
    private static final Pattern WHOLE_NUMBER = Pattern.compile("-?[0-9]+(_+[0-9]+)*");

    /** What a message says of how a whole number is written, after the text it refused. */
    public static final String HOW_NUMBERS_ARE_WRITTEN = "ASCII digits; underscores may only separate digits, as in 100_000";

    /**
     * Reads a whole number the way sizes ({@link dev.offheap.memory.ByteSize#parse(String)}) read theirs: ASCII
     * digits, underscores only between two digits (one or several, as in a Java literal: {@code 100_000}), and
     * a minus sign in front of a negative one. Not {@code _5}, {@code 5_}, {@code +5} or another script's
     * digits, which {@link Long#parseLong(String)} takes. Stateless and thread-safe.
     *
     * @param text the text
     * @return the number
     * @throws NumberFormatException if the text is not so written or does not fit in a long
     */
    public static long wholeNumber(String text) {
        if (!writtenAsAWholeNumber(text)) {
            throw new NumberFormatException("not a whole number: '" + text + "'");
        }
        return Long.parseLong(text.replace("_", ""));
    }

    /**
     * @param text the text
     * @return whether it is written as {@link #wholeNumber(String)} reads numbers, whether or not it fits in a long
     */
    public static boolean writtenAsAWholeNumber(String text) {
        return WHOLE_NUMBER.matcher(text).matches();
    }

    /**
     * @param option the option, for the message
     * @param text a whole number as {@link #wholeNumber(String)} reads it ({@code 100_000})
     * @param min the smallest accepted
     * @param max the largest accepted
     * @return the number
     * @throws UsageException if it is not a whole number from min to max
     */
    public static long count(String option, String text, long min, long max) throws UsageException {
        long n;
        try {
            n = wholeNumber(text);
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": expected a whole number from " + min + " to " + max + ", got '"
                    + text + "'" + (writtenAsAWholeNumber(text) ? "" : " (" + HOW_NUMBERS_ARE_WRITTEN + ")"));
        }
        if (n < min || n > max) {
            throw new UsageException(option + ": expected a whole number from " + min + " to " + max + ", got " + n);
        }
        return n;
    }

    /**
     * Reads a size option, as compare and serve both do.
     *
     * @param option the option as given, for the message
     * @param text a size as {@link ByteSize#parse(String)} reads it ({@code 100000}, {@code 64k}, {@code 2g})
     * @param min the smallest accepted, in bytes
     * @param max the largest accepted, in bytes
     * @return the size in bytes
     * @throws UsageException if it is not a size (the message gives examples), is one too large for a 64-bit count,
     *         or is outside min to max (both messages name the range)
     */
    public static long size(String option, String text, long min, long max) throws UsageException {
        long n;
        try {
            n = ByteSize.parse(text);
        } catch (IllegalArgumentException e) {
            if (e.getCause() != null) {
                // written as a size, only too large for a long: calling it malformed did not say what was wrong
                throw new UsageException(option + ": expected a size from " + ByteSize.format(min) + " to "
                        + ByteSize.format(max) + ", got " + text + " (more bytes than a 64-bit count holds)");
            }
            throw new UsageException(option + ": expected a size in bytes such as 100000, 64k or 2g, got '" + text + "'");
        }
        if (n < min || n > max) {
            throw new UsageException(option + ": expected a size from " + ByteSize.format(min) + " to "
                    + ByteSize.format(max) + ", got " + text + " (" + n + " bytes)");
        }
        return n;
    }

    /**
     * A keyword value ({@code auto}, {@code zgc}, {@code memory}, a variant's name) as the options compare it: in
     * lower case, whatever case it was given in, as sizes read their units. Only ASCII letters are lowered, so
     * that no other character turns into one (the Kelvin sign into {@code k}). Stateless and thread-safe.
     *
     * @param text the value as given
     * @return the value with A-Z lowered
     */
    public static String keyword(String text) {
        char[] chars = text.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            if (chars[i] >= 'A' && chars[i] <= 'Z') {
                chars[i] = (char) (chars[i] + ('a' - 'A'));
            }
        }
        return new String(chars);
    }

    /**
     * @param option the option, for the message
     * @param text a duration as {@link Durations#parse(String)} reads it ({@code 200us}, {@code 5s})
     * @param zeroAllowed whether 0 is accepted
     * @return the duration
     * @throws UsageException if it cannot be read, is 0 where that is not allowed, or is longer than
     *         {@link #MAX_DURATION}
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
        if (d.compareTo(MAX_DURATION) > 0) {
            throw new UsageException(option + ": at most " + MAX_DURATION.toDays() + " days, got '" + text + "'");
        }
        return d;
    }
}
