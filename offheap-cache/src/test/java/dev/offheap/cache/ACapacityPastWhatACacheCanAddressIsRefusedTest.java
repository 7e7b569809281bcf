package dev.offheap.cache;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A capacity past what a cache's segments can address (4,096 segments of 8 GiB) is refused when the cache is
 * built, with a message naming the limit. At {@code Long.MAX_VALUE} the segment count doubled until each
 * segment was small enough, to 2^30, and the build ran the heap out of memory on the table of segments.
 */
class ACapacityPastWhatACacheCanAddressIsRefusedTest {

    @ParameterizedTest
    @ValueSource(longs = {Long.MAX_VALUE, 1L << 50, (1L << 45) + 1})
    void aCapacityPastTheLimitIsRefusedNamingIt(long capacity) {
        CacheBuilder<Long, byte[]> builder = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(capacity);
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("capacity of " + capacity + " bytes is more than a cache can address")
                .hasMessageContaining("at most ");
    }
}
