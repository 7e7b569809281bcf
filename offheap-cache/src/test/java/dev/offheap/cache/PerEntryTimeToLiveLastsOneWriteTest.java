package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link OffHeapCache#put(Object, Object, Duration)}'s time to live belongs to that write, as its javadoc
 * says: reads keep it, and a later write without one (here a compute that keeps the value, and a put)
 * gives the entry the builder's expiry again.
 */
class PerEntryTimeToLiveLastsOneWriteTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private OffHeapCache<Long, String> cache() {
        return OffHeapCache.builder(Serializer.longs(), Serializer.strings()).capacity(1 << 20).clock(nanos::get)
                .expireAfterAccess(Duration.ofSeconds(100)).build();
    }

    @Test
    void readsKeepTheTimeToLive() {
        try (OffHeapCache<Long, String> cache = cache()) {
            cache.put(1L, "short", Duration.ofSeconds(2));
            nanos.addAndGet(Duration.ofMillis(1500).toNanos());
            assertThat(cache.getIfPresent(1L)).isEqualTo("short");
            nanos.addAndGet(Duration.ofMillis(600).toNanos());
            assertThat(cache.getIfPresent(1L)).as("a read does not renew a time to live").isNull();
        }
    }

    @Test
    void aLaterWriteWithoutOneGivesTheBuildersExpiryAgain() {
        try (OffHeapCache<Long, String> cache = cache()) {
            cache.put(1L, "short", Duration.ofSeconds(2));
            cache.compute(1L, (k, v) -> v);
            cache.put(2L, "short", Duration.ofSeconds(2));
            cache.put(2L, "again");
            nanos.addAndGet(Duration.ofSeconds(50).toNanos());
            assertThat(cache.getIfPresent(1L)).isEqualTo("short");
            assertThat(cache.getIfPresent(2L)).isEqualTo("again");
            nanos.addAndGet(Duration.ofSeconds(101).toNanos());
            assertThat(cache.getIfPresent(1L)).as("expireAfterAccess, from the last read").isNull();
            assertThat(cache.getIfPresent(2L)).isNull();
        }
    }
}
