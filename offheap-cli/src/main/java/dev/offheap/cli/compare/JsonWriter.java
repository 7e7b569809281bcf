package dev.offheap.cli.compare;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes JSON from maps, lists, strings, numbers, booleans and null, indented. NaN and infinities,
 * which JSON cannot hold, become null. Thread-safe: stateless.
 */
public final class JsonWriter {
    private JsonWriter() {
    }

    /**
     * @param value a Map with String keys, a List, a CharSequence, a Number, a Boolean or null, nested
     * @return the JSON text, two-space indented, ending with a newline
     * @throws IllegalArgumentException if a value has another type
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 0);
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object value, int indent) {
        switch (value) {
            case null -> sb.append("null");
            case Map<?, ?> map -> {
                if (map.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                sb.append("{\n");
                int i = 0;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    sb.append("  ".repeat(indent + 1));
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(": ");
                    write(sb, e.getValue(), indent + 1);
                    sb.append(++i < map.size() ? ",\n" : "\n");
                }
                sb.append("  ".repeat(indent)).append('}');
            }
            case List<?> list -> {
                if (list.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                sb.append("[\n");
                for (int i = 0; i < list.size(); i++) {
                    sb.append("  ".repeat(indent + 1));
                    write(sb, list.get(i), indent + 1);
                    sb.append(i + 1 < list.size() ? ",\n" : "\n");
                }
                sb.append("  ".repeat(indent)).append(']');
            }
            case CharSequence s -> string(sb, s.toString());
            case Boolean b -> sb.append(b);
            case Double d -> number(sb, d);
            case Float f -> number(sb, f.doubleValue());
            // whole numbers exactly; longValue() of any other Number cut off its fraction (2.5 became 2) or, for
            // a BigInteger, its high bits
            case Long _, Integer _, Short _, Byte _, AtomicLong _, AtomicInteger _, LongAdder _, LongAccumulator _ ->
                    sb.append(((Number) value).longValue());
            case BigInteger b -> sb.append(b);
            // BigDecimal's text (2.5, 1E+3) is a JSON number
            case BigDecimal b -> sb.append(b);
            case Number n -> number(sb, n.doubleValue());
            default -> throw new IllegalArgumentException("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    private static void number(StringBuilder sb, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            sb.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            sb.append((long) d);
        } else {
            // the shortest text that reads back as the same double (valid JSON: 0.5, 1.2345678E7): six
            // significant digits changed what the parent read from a variant JVM, and a throughput of
            // 1,234,567.8 requests/s came out of the round trip as 1,234,570
            sb.append(Double.toString(d));
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
