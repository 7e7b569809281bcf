package dev.offheap.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

/**
 * A cache of the smallest capacity is refused when the heap charge of its name leaves its segment no room, but it
 * was built where the room left was under an entry's header (a name some 375 characters long): a segment limit of
 * 8 or 16 bytes, so that every put, of the smallest entry too, threw ValueTooLargeException. A cache that is built
 * holds at least an entry whose key and value are empty.
 */
class ACacheItsNameLeavesNoRoomForAnEntryIsRefusedTest {
    @Test
    void everyCacheThatIsBuiltHoldsTheSmallestEntry() {
        int refusedAt = -1;
        for (int length = 1; length < 2_000 && refusedAt < 0; length++) {
            OffHeapCache<byte[], byte[]> cache;
            try {
                cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                        .capacity(OffHeapCacheImpl.MIN_CAPACITY).concurrencyLevel(1).name("n".repeat(length)).build();
            } catch (IllegalStateException refused) {
                assertThat(refused).hasMessageContaining("is too small for the cache's tables and its heap bookkeeping");
                refusedAt = length;
                continue;
            }
            try (cache) {
                int nameLength = length;
                assertThatCode(() -> cache.put(new byte[0], new byte[0]))
                        .as("a cache named with %s characters", nameLength).doesNotThrowAnyException();
                assertThat(cache.getIfPresent(new byte[0])).isEmpty();
            }
        }
        assertThat(refusedAt).as("a name long enough is refused").isPositive();
    }
}
