package dev.offheap.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link OffHeapCache#readQuietly}: a read in place that the statistics, the policy and access expiry do not see. */
class ReadQuietlyTest {

    private final AtomicLong nanos = new AtomicLong();

    private CacheBuilder<Long, byte[]> builder() {
        return OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays()).capacity(1L << 20).concurrencyLevel(1)
                .recordStats(true).clock(nanos::get);
    }

    @Test
    void readsTheValueInPlaceAndCountsNothing() {
        try (OffHeapCache<Long, byte[]> cache = builder().build()) {
            cache.put(1L, new byte[] {10, 20, 30});
            Byte third = cache.readQuietly(1L, segment -> segment.get(ValueLayout.JAVA_BYTE, 2));
            assertThat(third).isEqualTo((byte) 30);
            List<String> called = new ArrayList<>();
            Boolean absent = cache.readQuietly(2L, segment -> called.add("absent"));
            assertThat(absent).isNull();
            assertThat(called).as("the reader is not called for an absent key").isEmpty();
            CacheStats stats = cache.stats();
            assertThat(stats.hitCount()).isZero();
            assertThat(stats.missCount()).isZero();
            cache.read(1L, MemorySegment::byteSize);
            assertThat(cache.stats().hitCount()).as("read() counts, as a control").isEqualTo(1);
        }
    }

    @Test
    void theSegmentIsReadOnlyAndDiesWithTheCall() {
        try (OffHeapCache<Long, byte[]> cache = builder().build()) {
            cache.put(1L, new byte[16]);
            AtomicReference<MemorySegment> kept = new AtomicReference<>();
            cache.readQuietly(1L, segment -> {
                kept.set(segment);
                assertThat(segment.isReadOnly()).isTrue();
                return null;
            });
            assertThatThrownBy(() -> kept.get().get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void doesNotMoveTheAccessDeadline() {
        try (OffHeapCache<Long, byte[]> cache = builder().expireAfterAccess(Duration.ofSeconds(10)).build()) {
            cache.put(1L, new byte[8]);
            cache.put(2L, new byte[8]);
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
            assertThat(cache.readQuietly(1L, MemorySegment::byteSize)).isEqualTo(8L);
            assertThat(cache.read(2L, MemorySegment::byteSize)).as("a read, as a control").isEqualTo(8L);
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
            assertThat(cache.readQuietly(1L, MemorySegment::byteSize)).as("expired: the quiet read did not renew it")
                    .isNull();
            assertThat(cache.readQuietly(2L, MemorySegment::byteSize)).as("renewed by the read").isEqualTo(8L);
        }
    }

    /**
     * A full cache evicts its coldest entry; a read of that entry saves it (LRU's second chance, W-TinyLFU's
     * frequency), a quiet read does not.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void doesNotSaveAnEntryFromEviction(boolean quiet) {
        List<Long> evicted = new ArrayList<>();
        try (OffHeapCache<Long, byte[]> cache = lruRecordingEvictions(evicted)) {
            long key = fillUntilTheFirstEviction(cache, evicted);
            long coldest = evicted.getFirst() + 1;
            assertThat(cache.containsKey(coldest)).isTrue();
            if (quiet) {
                cache.readQuietly(coldest, MemorySegment::byteSize);
            } else {
                cache.read(coldest, MemorySegment::byteSize);
            }
            cache.put(key, new byte[1000]);
            assertThat(evicted).hasSizeGreaterThan(1);
            assertThat(evicted.get(1) == coldest).as("the entry after the first evicted one went next (quiet %s)", quiet)
                    .isEqualTo(quiet);
        }
    }

    /**
     * Reads in place run under the segment's read lock, where the buffer of recorded reads cannot be
     * replayed; a buffer that fills there must be replayed once the lock is released, or every later read
     * in place is lost to the policy until some write comes. Here up to 200 reads in place (more than a
     * stripe of the buffer holds) come before the read of the coldest entry, with no write in between.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 40, 200})
    void readsInPlaceReachThePolicyAfterManyReadsWithoutWrites(int readsBefore) {
        List<Long> evicted = new ArrayList<>();
        try (OffHeapCache<Long, byte[]> cache = lruRecordingEvictions(evicted)) {
            long key = fillUntilTheFirstEviction(cache, evicted);
            long coldest = evicted.getFirst() + 1;
            long newest = key - 1;
            for (int i = 0; i < readsBefore; i++) {
                assertThat(cache.read(newest - i % 20, MemorySegment::byteSize)).isEqualTo(1000L);
            }
            cache.read(coldest, MemorySegment::byteSize);
            cache.put(key, new byte[1000]);
            assertThat(evicted).hasSizeGreaterThan(1);
            assertThat(evicted.get(1)).as("the coldest entry was read, so another one went next (after %d reads)",
                    readsBefore).isNotEqualTo(coldest);
        }
    }

    /** @return an LRU cache that adds the key of every entry evicted for size to {@code evicted} */
    private OffHeapCache<Long, byte[]> lruRecordingEvictions(List<Long> evicted) {
        return builder().evictionPolicy(EvictionPolicy.LRU).removalListener((key, value, cause) -> {
            if (cause == RemovalCause.SIZE) {
                evicted.add(key);
            }
        }).build();
    }

    /** Puts 1000-byte values under keys 0, 1, 2, ... until one is evicted. @return the next key to put */
    private static long fillUntilTheFirstEviction(OffHeapCache<Long, byte[]> cache, List<Long> evicted) {
        long key = 0;
        while (evicted.isEmpty()) {
            cache.put(key++, new byte[1000]);
        }
        return key;
    }

    @Test
    void badInput() {
        OffHeapCache<Long, byte[]> cache = builder().build();
        assertThatThrownBy(() -> cache.readQuietly(null, MemorySegment::byteSize))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> cache.readQuietly(1L, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("reader");
        cache.close();
        assertThatThrownBy(() -> cache.readQuietly(1L, MemorySegment::byteSize)).isInstanceOf(IllegalStateException.class);
    }
}
