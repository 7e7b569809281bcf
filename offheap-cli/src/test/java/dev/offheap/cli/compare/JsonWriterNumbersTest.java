package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonWriter#write} takes any {@link Number}, as its javadoc says, and writes its value. Every number
 * but a Double or Float was written as its {@code longValue()}: a BigDecimal 2.5 became 2, a DoubleAdder
 * holding 0.25 became 0 and a BigInteger past a long lost its high bits (2^64 + 1 became 1), all silently.
 */
class JsonWriterNumbersTest {
    @Test
    void everyKindOfNumberIsWrittenWithItsValue() {
        DoubleAdder quarter = new DoubleAdder();
        quarter.add(0.25);
        String json = JsonWriter.write(List.of(new BigDecimal("2.5"), new BigInteger("18446744073709551617"), quarter,
                Long.MAX_VALUE, 42, (short) -7, new AtomicLong(123_456_789_012L), new BigDecimal("1E+3")));
        assertThat(json).isEqualTo("""
                [
                  2.5,
                  18446744073709551617,
                  0.25,
                  9223372036854775807,
                  42,
                  -7,
                  123456789012,
                  1E+3
                ]
                """);
        // and it is JSON
        assertThat((List<?>) Json.parse(json)).hasSize(8);
    }
}
