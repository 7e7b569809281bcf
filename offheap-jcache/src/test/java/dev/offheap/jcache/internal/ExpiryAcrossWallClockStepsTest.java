package dev.offheap.jcache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;

import java.io.Serializable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.cache.Cache;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.processor.MutableEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * JCache expiry times are wall-clock times, and the wall clock may be set back and forward. A step back
 * must not make the clean-up lose track of an entry (once the clock is past its expiry time again, a
 * clean-up removes it), nor bring back an entry that a zero duration expired: zero means expired at once,
 * whatever the clock reads later. Eternal and huge durations never run out, and a negative one (only a
 * subclass of Duration can make it) counts as zero, not as eternal.
 */
class ExpiryAcrossWallClockStepsTest {
    private final OffHeapCachingProvider provider = new OffHeapCachingProvider();
    private final SteppingClock clock = new SteppingClock(1_700_000_000_000L);

    @AfterEach
    void closeProvider() {
        provider.close();
    }

    /** A wall clock the test sets, which can also be told to step by some amount right after its next reading. */
    private static final class SteppingClock implements LongSupplier {
        private final AtomicLong millis;
        private final AtomicLong stepAfterNextReading = new AtomicLong();

        SteppingClock(long millis) {
            this.millis = new AtomicLong(millis);
        }

        @Override
        public long getAsLong() {
            long now = millis.get();
            millis.addAndGet(stepAfterNextReading.getAndSet(0));
            return now;
        }

        void advance(long by) {
            millis.addAndGet(by);
        }

        void stepAfterNextReading(long by) {
            stepAfterNextReading.set(by);
        }
    }

    /** Fixed durations for creation, update and access; null keeps the expiry time, as JCache says. */
    private record Policy(Duration creation, Duration update, Duration access) implements ExpiryPolicy, Serializable {
        @Override
        public Duration getExpiryForCreation() {
            return creation;
        }

        @Override
        public Duration getExpiryForUpdate() {
            return update;
        }

        @Override
        public Duration getExpiryForAccess() {
            return access;
        }
    }

    /** A duration of -{@code seconds} s: the constructor refuses negative amounts, a subclass need not. */
    private static final class NegativeDuration extends Duration {
        private static final long serialVersionUID = 1L;

        NegativeDuration(long seconds) {
            super(TimeUnit.SECONDS, seconds);
        }

        @Override
        public long getDurationAmount() {
            return -super.getDurationAmount();
        }
    }

    private OffHeapJCache<Integer, String> cache(String name, Duration created) {
        return cache(name, new CreatedExpiryPolicy(created));
    }

    private <P extends ExpiryPolicy & Serializable> OffHeapJCache<Integer, String> cache(String name, P policy) {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setTypes(Integer.class, String.class);
        configuration.setCapacityBytes(1L << 20);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(policy));
        Cache<Integer, String> cache = provider.getCacheManager().createCache(name, configuration);
        @SuppressWarnings("unchecked")
        OffHeapJCache<Integer, String> offHeap = cache.unwrap(OffHeapJCache.class);
        offHeap.wallClock(clock);
        return offHeap;
    }

    @Test
    void anEntryACleanUpFindsUnexpiredAfterTheClockSteppedBackIsRemovedByALaterOne() {
        OffHeapJCache<Integer, String> cache = cache("steppedBackDuringASweep", new Duration(TimeUnit.SECONDS, 10));
        cache.put(1, "a");
        clock.advance(10_000); // 1 expires now
        clock.stepAfterNextReading(-5_000); // set back between the sweep's start and its look at 1
        assertThat(cache.cleanUp()).as("1 was not expired at the clock the sweep's removal read").isZero();
        clock.advance(10_000); // 15 s after the put
        assertThat(cache.cleanUp()).as("1 has expired since").isEqualTo(1);
        assertThat(cache.containsKey(1)).isFalse();
    }

    @Test
    void anEntryAZeroAccessDurationExpiredStaysExpiredWhenTheClockStepsBack() {
        OffHeapJCache<Integer, String> cache = cache("zeroAccess", new Policy(Duration.ETERNAL, null, Duration.ZERO));
        cache.put(1, "a");
        assertThat(cache.get(1)).as("the access that expires it still reads it").isEqualTo("a");
        clock.advance(-60_000);
        assertThat(cache.containsKey(1)).isFalse();
        assertThat(cache.get(1)).isNull();
        clock.advance(120_000);
        assertThat(cache.get(1)).isNull();
    }

    @Test
    void anEntryAZeroUpdateDurationExpiredStaysExpiredWhenTheClockStepsBack() {
        OffHeapJCache<Integer, String> cache = cache("zeroUpdate", new Policy(Duration.ETERNAL, Duration.ZERO, null));
        cache.put(1, "a");
        cache.put(1, "b");
        clock.advance(-60_000);
        assertThat(cache.get(1)).isNull();
        cache.put(2, "c");
        cache.invoke(2, (MutableEntry<Integer, String> entry, Object... arguments) -> {
            entry.setValue("d");
            return null;
        });
        clock.advance(-60_000);
        assertThat(cache.get(2)).isNull();
    }

    @Test
    void aNegativeDurationExpiresAtOnceAndDoesNotMeanEternal() {
        OffHeapJCache<Integer, String> created = cache("negativeCreation", new NegativeDuration(5));
        created.put(1, "a");
        assertThat(created.containsKey(1)).as("a creation with a negative duration stores nothing").isFalse();
        OffHeapJCache<Integer, String> accessed =
                cache("negativeAccess", new Policy(Duration.ETERNAL, new NegativeDuration(5), new NegativeDuration(5)));
        accessed.put(1, "a");
        accessed.put(2, "b");
        accessed.put(2, "c"); // an update with a negative duration
        assertThat(accessed.get(1)).isEqualTo("a");
        clock.advance(TimeUnit.DAYS.toMillis(365_000));
        assertThat(accessed.get(1)).as("accessed with a negative duration").isNull();
        assertThat(accessed.get(2)).as("updated with a negative duration").isNull();
    }

    @Test
    void eternalAndHugeDurationsNeverRunOutWhicheverWayTheClockSteps() {
        OffHeapJCache<Integer, String> cache = cache("huge",
                new Policy(new Duration(TimeUnit.DAYS, Long.MAX_VALUE), Duration.ETERNAL,
                        new Duration(TimeUnit.MILLISECONDS, Long.MAX_VALUE - 1)));
        cache.put(1, "a");
        cache.put(2, "b");
        cache.put(2, "c");
        clock.advance(-1_000_000_000L);
        assertThat(cache.get(1)).isEqualTo("a");
        clock.advance(TimeUnit.DAYS.toMillis(365_000_000));
        assertThat(cache.get(1)).isEqualTo("a");
        assertThat(cache.get(2)).isEqualTo("c");
        assertThat(cache.cleanUp()).isZero();
        assertThat(cache.get(1)).isEqualTo("a");
    }
}
