package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deadlines are kept in whole milliseconds; an entry written part of the way into a millisecond must still
 * live its whole duration on the builder's clock, as in Caffeine (expired once {@code now - written >=
 * duration}). Counting from the millisecond the write fell in made it expire up to a millisecond early.
 */
class ExpiryNeverBeforeTimeToLiveTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private void advanceNanos(long n) {
        nanos.addAndGet(n);
    }

    private CacheBuilder<String, String> builder() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).clock(nanos::get);
    }

    @Test
    void anEntryWrittenMidMillisecondLivesItsWholeExpireAfterWrite() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(1)).build()) {
            advanceNanos(600_000); // 0.6 ms after the build
            cache.put("a", "1");
            advanceNanos(999_500_000L); // 999.5 ms old
            assertThat(cache.getIfPresent("a")).as("999.5 ms into a 1 s expireAfterWrite").isEqualTo("1");
            assertThat(cache.containsKey("a")).isTrue();
            advanceNanos(1_000_000L); // 1000.5 ms old
            assertThat(cache.getIfPresent("a")).isNull();
        }
    }

    @Test
    void anEntryWrittenMidMillisecondLivesItsWholeTimeToLive() {
        try (OffHeapCache<String, String> cache = builder().build()) {
            advanceNanos(600_000);
            cache.put("a", "1", Duration.ofMillis(10));
            advanceNanos(9_900_000L); // 9.9 ms old
            assertThat(cache.getIfPresent("a")).as("9.9 ms into a 10 ms time to live").isEqualTo("1");
            advanceNanos(1_000_000L);
            assertThat(cache.getIfPresent("a")).isNull();
        }
    }

    @Test
    void anEntryReadMidMillisecondLivesItsWholeExpireAfterAccess() {
        try (OffHeapCache<String, String> cache = builder().expireAfterAccess(Duration.ofMillis(100)).build()) {
            cache.put("a", "1");
            advanceNanos(50_700_000L); // read 50.7 ms after the write
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            advanceNanos(99_500_000L); // idle 99.5 ms
            assertThat(cache.getIfPresent("a")).as("idle 99.5 ms of 100").isEqualTo("1");
            advanceNanos(101_000_000L); // that read was an access too: idle 101 ms since
            assertThat(cache.getIfPresent("a")).isNull();
        }
    }

    @Test
    void aConditionalWriteMidMillisecondLivesItsWholeExpireAfterWrite() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofMillis(20)).build()) {
            advanceNanos(300_000);
            assertThat(cache.putIfAbsent("a", "1")).isNull();
            assertThat(cache.compute("b", (k, v) -> "2")).isEqualTo("2");
            advanceNanos(19_800_000L); // 19.8 ms old
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            assertThat(cache.getIfPresent("b")).isEqualTo("2");
        }
    }

    @Test
    void anEntryWrittenOnAWholeMillisecondStillExpiresExactlyAtItsDeadline() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofMillis(10)).build()) {
            advanceNanos(2_000_000L);
            cache.put("a", "1");
            advanceNanos(9_999_999L);
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            advanceNanos(1);
            assertThat(cache.getIfPresent("a")).as("exactly 10 ms old").isNull();
        }
    }
}
