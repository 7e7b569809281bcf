package dev.offheap.cache;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import java.util.Collections;
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

    /**
     * An entry that never expires has no deadline field (a 20-byte header); one with a time to live of its
     * own has one (24 bytes). Overwriting switches between the two, so the key moves; values, accounting
     * and expiry must follow.
     */
    @Test
    void entriesWithAndWithoutDeadlineFieldsLiveSideBySide() {
        try (OffHeapCache<String, String> cache = builder().concurrencyLevel(1).build()) {
            dev.offheap.cache.internal.OffHeapCacheImpl<?, ?> impl = (dev.offheap.cache.internal.OffHeapCacheImpl<?, ?>) cache;
            assertThat(impl.headerBytes()).isEqualTo(20);
            cache.put("plain", "12345678"); // 20 + 5 + 8 = 33 -> 40 bytes
            assertThat(cache.weightedSize()).isEqualTo(40);
            cache.put("timed", "1234", Duration.ofSeconds(5)); // 24 + 5 + 4 = 33 -> 40 bytes
            assertThat(cache.weightedSize()).isEqualTo(80);
            cache.put("plain", "abcdefgh", Duration.ofSeconds(10)); // gains a deadline: 37 -> 40
            cache.put("timed", "wxyz"); // loses it: 29 -> 32
            assertThat(cache.weightedSize()).isEqualTo(72);
            assertThat(cache.getIfPresent("plain")).isEqualTo("abcdefgh");
            assertThat(cache.getIfPresent("timed")).isEqualTo("wxyz");
            assertThat(cache.<String>read("plain", s -> new String(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    java.nio.charset.StandardCharsets.UTF_8))).isEqualTo("abcdefgh");
            assertThat(cache.keys()).toIterable().containsExactlyInAnyOrder("plain", "timed");
            advance(Duration.ofSeconds(11));
            assertThat(cache.getIfPresent("plain")).isNull();
            assertThat(cache.getIfPresent("timed")).as("no deadline field: never expires").isEqualTo("wxyz");
            impl.verify();
        }
    }

    /** The size limit counts the header an entry will have: 4 bytes more with a time to live of its own. */
    @Test
    void theSizeLimitCountsTheDeadlineFieldOfAnEntryWithATimeToLive() {
        try (OffHeapCache<String, String> cache = builder().maxEntryBytes(64).build()) {
            String key = "k";
            String fits = "x".repeat(64 - 20 - 1);
            cache.put(key, fits);
            assertThat(cache.getIfPresent(key)).isEqualTo(fits);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> cache.put(key, fits, Duration.ofSeconds(1)))
                    .isInstanceOf(ValueTooLargeException.class).hasMessageContaining("68").hasMessageContaining("64");
            assertThat(cache.getIfPresent(key)).as("the rejected put left the old value").isEqualTo(fits);
            cache.put(key, "x".repeat(64 - 24 - 1), Duration.ofSeconds(1));
            assertThat(cache.getIfPresent(key)).hasSize(39);
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

    @Test
    void theLongestDurationsNeverExpireInsteadOfOverflowingToAMillisecond() {
        // Duration.ofNanos(Long.MAX_VALUE), the usual "never": rounding it up to milliseconds overflowed
        Duration never = Duration.ofNanos(Long.MAX_VALUE);
        try (OffHeapCache<String, String> writeExpiring = builder().expireAfterWrite(never).build();
             OffHeapCache<String, String> accessExpiring = builder().expireAfterAccess(never).build();
             OffHeapCache<String, String> perEntry = builder().build()) {
            writeExpiring.put("a", "1");
            accessExpiring.put("a", "1");
            perEntry.put("a", "1", never);
            advance(Duration.ofDays(1000));
            assertThat(writeExpiring.getIfPresent("a")).isEqualTo("1");
            assertThat(accessExpiring.getIfPresent("a")).isEqualTo("1");
            assertThat(perEntry.getIfPresent("a")).isEqualTo("1");
        }
    }

    @Test
    void anExpiredEntryRemovedByAComputeWhoseFunctionThrowsIsStillNotified() {
        List<String> removed = Collections.synchronizedList(new ArrayList<>());
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(1)).concurrencyLevel(1)
                .removalListener((k, v, cause) -> removed.add(k + ":" + v + ":" + cause)).build()) {
            cache.put("a", "1");
            advance(Duration.ofSeconds(2));
            assertThatThrownBy(() -> cache.compute("a", (k, v) -> {
                throw new IllegalArgumentException("boom");
            })).isInstanceOf(IllegalArgumentException.class);
            assertThat(cache.size()).isZero();
            assertThat(cache.stats().expirationCount()).isEqualTo(1);
            assertThat(removed).containsExactly("a:1:EXPIRED");
        }
    }

    @Test
    void invalidateAllReportsAndCountsEntriesWhoseTimeRanOutAsExpired() {
        List<String> removed = new ArrayList<>();
        try (OffHeapCache<String, String> listened = builder().expireAfterWrite(Duration.ofSeconds(1)).concurrencyLevel(1)
                .removalListener((k, v, cause) -> removed.add(k + ":" + cause)).build();
             OffHeapCache<String, String> counted = builder().expireAfterWrite(Duration.ofSeconds(1)).recordStats(true)
                     .build()) {
            listened.put("a", "1");
            counted.put("a", "1");
            // live past the advance; written before it, so that no write after it expires "a" first
            listened.put("b", "2", Duration.ofSeconds(10));
            counted.put("b", "2", Duration.ofSeconds(10));
            advance(Duration.ofSeconds(2));
            listened.invalidateAll();
            counted.invalidateAll();
            assertThat(removed).containsExactlyInAnyOrder("a:EXPIRED", "b:EXPLICIT");
            assertThat(listened.stats().expirationCount()).isEqualTo(1);
            assertThat(counted.stats().expirationCount()).as("without a listener too").isEqualTo(1);
            assertThat(counted.size()).isZero();
        }
    }
}
