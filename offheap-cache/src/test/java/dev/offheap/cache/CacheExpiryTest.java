package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Expiry after write, after access, both, and per entry, on a clock the test moves. */
class CacheExpiryTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    private CacheBuilder<String, String> builder() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).clock(nanos::get);
    }

    @Test
    void expireAfterWriteCountsFromTheLastWrite() {
        List<String> removed = new ArrayList<>();
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(10)).concurrencyLevel(1)
                .removalListener((k, v, cause) -> removed.add(k + ":" + cause)).build()) {
            cache.put("a", "1");
            advance(Duration.ofSeconds(6));
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            cache.put("b", "2");
            advance(Duration.ofSeconds(5));
            assertThat(cache.getIfPresent("a")).isNull();
            assertThat(cache.containsKey("a")).isFalse();
            assertThat(cache.<Long>read("a", s -> s.byteSize())).isNull();
            assertThat(cache.getIfPresent("b")).isEqualTo("2");
            cache.put("c", "3"); // a write removes the expired heads of its segment's queues
            assertThat(removed).containsExactly("a:EXPIRED");
            assertThat(cache.stats().expirationCount()).isEqualTo(1);
            assertThat(cache.size()).isEqualTo(2);
        }
    }

    @Test
    void writesToOtherSegmentsEventuallyRemoveExpiredEntriesOfIdleOnes() {
        List<String> removed = new ArrayList<>();
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(1)).concurrencyLevel(8)
                .removalListener((k, v, cause) -> {
                    if (cause != RemovalCause.REPLACED) {
                        removed.add(k + ":" + cause);
                    }
                }).build()) {
            for (int i = 0; i < 50; i++) {
                cache.put("old" + i, "v");
            }
            advance(Duration.ofSeconds(2));
            for (int i = 0; i < 5000 && removed.size() < 50; i++) {
                cache.put("new", "v" + i);
            }
            assertThat(removed).hasSize(50).allMatch(s -> s.startsWith("old") && s.endsWith(":EXPIRED"));
            assertThat(cache.size()).isEqualTo(1);
        }
    }

    @Test
    void expireAfterAccessIsExtendedByReads() {
        try (OffHeapCache<String, String> cache = builder().expireAfterAccess(Duration.ofSeconds(10)).build()) {
            cache.put("a", "1");
            cache.put("b", "2");
            for (int i = 0; i < 5; i++) {
                advance(Duration.ofSeconds(6));
                assertThat(cache.getIfPresent("a")).isEqualTo("1");
            }
            assertThat(cache.getIfPresent("b")).isNull();
            advance(Duration.ofSeconds(6));
            assertThat(cache.<Long>read("a", s -> s.byteSize())).isEqualTo(1L);
            advance(Duration.ofSeconds(11));
            assertThat(cache.getIfPresent("a")).isNull();
        }
    }

    @Test
    void bothExpiriesApplyTheEarlierDeadline() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(15))
                .expireAfterAccess(Duration.ofSeconds(10)).build()) {
            cache.put("a", "1");
            advance(Duration.ofSeconds(8));
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            advance(Duration.ofSeconds(8));
            assertThat(cache.getIfPresent("a")).as("written 16 s ago, read 8 s ago").isNull();
            cache.put("b", "2");
            advance(Duration.ofSeconds(11));
            assertThat(cache.getIfPresent("b")).as("idle 11 s").isNull();
        }
    }

    @Test
    void perEntryTimeToLiveOverridesTheBuilderAndIsNotExtended() {
        try (OffHeapCache<String, String> cache = builder().expireAfterAccess(Duration.ofMinutes(10)).build()) {
            cache.put("short", "1", Duration.ofMillis(1500));
            cache.put("long", "2");
            advance(Duration.ofSeconds(1));
            assertThat(cache.getIfPresent("short")).isEqualTo("1");
            advance(Duration.ofMillis(500));
            assertThat(cache.getIfPresent("short")).isNull();
            assertThat(cache.getIfPresent("long")).isEqualTo("2");
            cache.put("short", "3");
            advance(Duration.ofMinutes(5));
            assertThat(cache.getIfPresent("short")).as("a put without ttl uses the builder's expiry").isEqualTo("3");
        }
        try (OffHeapCache<String, String> cache = builder().build()) {
            cache.put("ttl", "1", Duration.ofDays(400));
            cache.put("forever", "2");
            advance(Duration.ofDays(399));
            assertThat(cache.getIfPresent("ttl")).isEqualTo("1");
            advance(Duration.ofDays(2));
            assertThat(cache.getIfPresent("ttl")).isNull();
            assertThat(cache.getIfPresent("forever")).isEqualTo("2");
        }
    }

    @Test
    void expiredEntriesAreAbsentToConditionalWritesAndLoaders() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(1)).build()) {
            cache.put("a", "old");
            advance(Duration.ofSeconds(2));
            assertThat(cache.putIfAbsent("a", "new")).isNull();
            assertThat(cache.getIfPresent("a")).isEqualTo("new");
            advance(Duration.ofSeconds(2));
            assertThat(cache.replace("a", "x")).isNull();
            assertThat(cache.get("a", k -> "loaded")).isEqualTo("loaded");
            advance(Duration.ofSeconds(2));
            assertThat(cache.compute("a", (k, v) -> v == null ? "fresh" : "stale")).isEqualTo("fresh");
        }
    }
}
