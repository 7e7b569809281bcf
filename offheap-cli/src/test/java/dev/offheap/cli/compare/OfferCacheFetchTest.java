package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every variant's fetch reads the same bytes of the value, on a miss and on a hit, and gets the same checksum. */
class OfferCacheFetchTest {
    private static final int SIZE = 10_000;

    private static String description(long id) {
        StringBuilder sb = new StringBuilder(SIZE);
        for (int i = 0; i < SIZE; i++) {
            sb.append((char) ('a' + (id * 31 + i * 7) % 26));
        }
        return sb.toString();
    }

    @ParameterizedTest
    @EnumSource(Variant.class)
    void fetchGivesTheChecksumOfTheDescriptionOnMissAndHit(Variant variant) {
        AtomicInteger loads = new AtomicInteger();
        try (OfferCache cache = variant.create(20, SIZE)) {
            for (long id = 0; id < 5; id++) {
                long expected = OfferCache.touch(description(id));
                assertThat(cache.fetch(id, i -> {
                    loads.incrementAndGet();
                    return description(i);
                })).as("%s miss of %d", variant, id).isEqualTo(expected);
                assertThat(cache.fetch(id, i -> {
                    throw new AssertionError("a hit must not load");
                })).as("%s hit of %d", variant, id).isEqualTo(expected);
            }
        }
        assertThat(loads).hasValue(5);
    }

    @Test
    void touchOfBytesInPlaceEqualsTouchOfTheString() {
        for (long id : new long[] {0, 1, 99}) {
            String d = description(id);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment bytes = arena.allocate(d.length());
                MemorySegment.copy(d.getBytes(StandardCharsets.ISO_8859_1), 0, bytes, ValueLayout.JAVA_BYTE, 0, d.length());
                assertThat(OfferCache.touch(bytes)).isEqualTo(OfferCache.touch(d));
            }
        }
        // length plus one byte per 4 KiB: 'z' at 0 and 4096 of a 4097-byte value
        assertThat(OfferCache.touch("z".repeat(4097))).isEqualTo(4097 + 2 * 'z');
        assertThat(OfferCache.touch("")).isZero();
    }
}
