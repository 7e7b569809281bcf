package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The builder's clock is read like {@link System#nanoTime()}: any long, only differences count, and it may
 * run for as long as such differences can say (2^63 - 1 ns, 292 years). Entries keep one 4-byte deadline,
 * counted from the cache's creation; a cache whose clock had run more than 34 years since then expired
 * every entry it was given at once, and durations too long to count ("never") ran out after 34 years.
 */
class ExpiryHoldsAtAnyClockReadingTest {
    private static final Duration YEAR = Duration.ofDays(365);

    private final AtomicLong nanos = new AtomicLong();

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    private CacheBuilder<String, String> builder() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).clock(nanos::get);
    }

    @Test
    void anEntryWrittenFortyYearsAfterTheCacheWasBuiltLivesItsExpireAfterWrite() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofMinutes(1)).build()) {
            advance(YEAR.multipliedBy(40));
            cache.put("a", "1");
            advance(Duration.ofSeconds(59));
            assertThat(cache.getIfPresent("a")).as("59 s into a minute, 40 years on").isEqualTo("1");
            advance(Duration.ofMinutes(2));
            assertThat(cache.getIfPresent("a")).isNull();
        }
    }

    @Test
    void entriesWrittenCenturiesAfterTheCacheWasBuiltExpireOnTime() {
        for (int years : new int[] {35, 100, 200, 290}) {
            nanos.set(-7);
            List<String> removed = new ArrayList<>();
            try (OffHeapCache<String, String> cache = builder().expireAfterAccess(Duration.ofMinutes(10))
                    .removalListener((k, v, cause) -> removed.add(k + ":" + cause)).build()) {
                advance(YEAR.multipliedBy(years));
                cache.put("a", "1", Duration.ofMinutes(5));
                cache.put("b", "2");
                advance(Duration.ofMinutes(4));
                assertThat(cache.getIfPresent("a")).as("%d years on", years).isEqualTo("1");
                assertThat(cache.getIfPresent("b")).as("%d years on", years).isEqualTo("2");
                advance(Duration.ofMinutes(9)); // b was read 9 minutes ago
                assertThat(cache.getIfPresent("b")).as("%d years on", years).isEqualTo("2");
                cache.cleanUp();
                assertThat(removed).as("%d years on", years).containsExactly("a:EXPIRED");
                advance(Duration.ofMinutes(20));
                cache.cleanUp();
                assertThat(removed).as("%d years on", years).containsExactly("a:EXPIRED", "b:EXPIRED");
            }
        }
    }

    @Test
    void durationsTooLongToCountNeverRunOut() {
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofNanos(Long.MAX_VALUE))
                .build();
             OffHeapCache<String, String> accessed = builder().expireAfterAccess(ChronoUnitMax.DURATION).build()) {
            cache.put("a", "1");
            cache.put("b", "2", ChronoUnitMax.DURATION);
            accessed.put("c", "3");
            advance(YEAR.multipliedBy(100));
            cache.put("d", "4");
            advance(YEAR.multipliedBy(190));
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            assertThat(cache.getIfPresent("b")).isEqualTo("2");
            assertThat(cache.getIfPresent("d")).isEqualTo("4");
            assertThat(accessed.getIfPresent("c")).isEqualTo("3");
            cache.cleanUp();
            assertThat(cache.size()).isEqualTo(3);
        }
    }

    @Test
    void aClockThatWrapsPastLongMaxValueKeepsCounting() {
        nanos.set(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(10)).build()) {
            cache.put("a", "1");
            advance(Duration.ofSeconds(5)); // the reading is negative now
            assertThat(nanos.get()).isNegative();
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            cache.put("b", "2");
            advance(Duration.ofSeconds(6));
            assertThat(cache.getIfPresent("a")).isNull();
            assertThat(cache.getIfPresent("b")).isEqualTo("2");
            advance(Duration.ofSeconds(5));
            assertThat(cache.getIfPresent("b")).isNull();
        }
    }

    @Test
    void aClockThatStartsAtLongMinValueCountsLikeAnyOther() {
        nanos.set(Long.MIN_VALUE);
        try (OffHeapCache<String, String> cache = builder().expireAfterWrite(Duration.ofSeconds(10)).build()) {
            cache.put("a", "1");
            advance(Duration.ofSeconds(9));
            assertThat(cache.getIfPresent("a")).isEqualTo("1");
            advance(Duration.ofSeconds(2));
            assertThat(cache.getIfPresent("a")).isNull();
        }
    }

    /** The longest Duration there is: more nanoseconds than a long holds. */
    private static final class ChronoUnitMax {
        static final Duration DURATION = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
    }
}
