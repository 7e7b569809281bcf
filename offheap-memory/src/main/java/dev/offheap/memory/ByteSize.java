package dev.offheap.memory;

import java.util.Locale;

/**
 * Parses and formats sizes in bytes, the way configuration and messages write them.
 *
 * <p>Parsing accepts a non-negative integer with an optional binary suffix, case-insensitive:
 * {@code b}, {@code k}/{@code kb}/{@code kib}, {@code m}/{@code mb}/{@code mib},
 * {@code g}/{@code gb}/{@code gib}, {@code t}/{@code tb}/{@code tib}. All suffixes are powers of
 * 1024 ({@code 32k} is 32768 bytes), as Flink's and the JVM's memory options read them.
 * Underscores may separate digits, one or several, as in a Java literal ({@code 1_000m},
 * {@code 1__024k}); an underscore anywhere else ({@code _12}, {@code 12_}, {@code 12m_b}) is refused.
 * Spaces may separate number and unit ({@code 512 m}). Digits and units are ASCII: other scripts'
 * digits (such as fullwidth {@code １２}) are refused.
 *
 * <p>Stateless and thread-safe.
 */
public final class ByteSize {
    private ByteSize() {
    }

    /**
     * Parses a size such as {@code 512m}, {@code 32 KiB} or {@code 1073741824}.
     *
     * @param text the size; not null
     * @return the size in bytes, at least 0
     * @throws NullPointerException     if {@code text} is null
     * @throws IllegalArgumentException if {@code text} is not a size (including one with a character
     *                                  that is not ASCII or an underscore that is not between two
     *                                  digits), is negative, or overflows a long; the message quotes
     *                                  {@code text}. Only the one for a well-written size that overflows a
     *                                  long has a cause (the failure that found the overflow), so that a
     *                                  caller can tell "too large" from "not a size"
     */
    public static long parse(String text) {
        if (text == null) {
            throw new NullPointerException("size text is null");
        }
        // ASCII only: Character.isDigit and Long.parseLong take other scripts' digits ("１２" was 12), and
        // toLowerCase turns the Kelvin sign into 'k'; a size that only looks like one is a mistake to report
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c > 0x7F) {
                throw new IllegalArgumentException("not a size in bytes: '" + text + "' has the character '" + c
                        + "' (U+" + String.format(Locale.ROOT, "%04X", (int) c)
                        + ") at index " + i + "; sizes are written in ASCII digits and units, such as 64m, 32k, 1g");
            }
        }
        // as in a Java literal: removing every underscore read "_12", "12_" and "12 m_i_b" as sizes
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '_') {
                int end = i;
                while (end < text.length() && text.charAt(end) == '_') {
                    end++;
                }
                if (i == 0 || !isAsciiDigit(text.charAt(i - 1)) || end == text.length()
                        || !isAsciiDigit(text.charAt(end))) {
                    throw new IllegalArgumentException("not a size in bytes: '" + text + "' has an underscore at index "
                            + i + " that is not between two digits; underscores may only separate digits, as in 1_000m");
                }
                i = end - 1;
            }
        }
        String s = text.trim().toLowerCase(Locale.ROOT);
        int unitStart = 0;
        while (unitStart < s.length() && (isAsciiDigit(s.charAt(unitStart)) || s.charAt(unitStart) == '_')) {
            unitStart++;
        }
        if (unitStart == 0) {
            throw new IllegalArgumentException("not a size in bytes: '" + text
                    + "' (expected a non-negative integer with an optional unit such as 64m, 32k, 1g)");
        }
        String unit = s.substring(unitStart).trim();
        long multiplier = switch (unit) {
            case "", "b" -> 1L;
            case "k", "kb", "kib" -> 1L << 10;
            case "m", "mb", "mib" -> 1L << 20;
            case "g", "gb", "gib" -> 1L << 30;
            case "t", "tb", "tib" -> 1L << 40;
            default -> throw new IllegalArgumentException("unknown size unit '" + unit + "' in '" + text
                    + "' (use b, k, m, g or t; all are powers of 1024)");
        };
        long number;
        try {
            number = Long.parseLong(s.substring(0, unitStart).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' does not fit in a long", e);
        }
        try {
            return Math.multiplyExact(number, multiplier);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("size '" + text + "' does not fit in a long", e);
        }
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Formats a byte count for people: {@code 1536} becomes {@code "1.5 KiB"}, {@code 100} stays
     * {@code "100 B"}. Negative values keep their sign.
     *
     * @param bytes the count
     * @return a short text with a binary unit
     */
    public static String format(long bytes) {
        long abs = bytes == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(bytes);
        if (abs < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = abs;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        String number = formatUnitValue(value);
        if (Double.parseDouble(number) >= 1024 && unit < units.length - 1) {
            // 1048575 bytes is 1023.999 KiB: shown rounded it would read "1024 KiB", so say "1.0 MiB"
            unit++;
            number = formatUnitValue(value / 1024);
        }
        return (bytes < 0 ? "-" : "") + number + " " + units[unit];
    }

    private static String formatUnitValue(double value) {
        if (value < 100) {
            String oneDecimal = String.format(Locale.ROOT, "%.1f", value);
            if (Double.parseDouble(oneDecimal) < 100) {
                return oneDecimal;
            }
            // 99.95 up to 100 rounds to "100.0": written like the 100 it shows, "100", not with a decimal
        }
        return String.format(Locale.ROOT, "%.0f", value);
    }
}
