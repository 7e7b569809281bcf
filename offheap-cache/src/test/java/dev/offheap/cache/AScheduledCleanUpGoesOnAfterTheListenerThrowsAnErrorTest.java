package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * A scheduled clean-up has no caller to throw the removal listener's Error to, and a periodic run that
 * throws one is never run again (the executor ends the schedule, and expired entries then keep their memory
 * for good): it logs the listener's Errors and its schedule goes on.
 */
class AScheduledCleanUpGoesOnAfterTheListenerThrowsAnErrorTest {

    /** An executor that keeps the scheduled run for the test to call, and never runs it itself. */
    private static final class CapturingExecutor extends ScheduledThreadPoolExecutor {
        Runnable run;

        CapturingExecutor() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                         TimeUnit unit) {
            run = command;
            return super.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.DAYS);
        }
    }

    @Test
    void theRunLogsTheListenersErrorInsteadOfThrowingItAndRemovesEveryExpiredEntry() {
        AtomicLong nanos = new AtomicLong();
        AtomicInteger told = new AtomicInteger();
        CapturingExecutor executor = new CapturingExecutor();
        try (OffHeapCache<Long, Long> cache = OffHeapCache.builder(Serializer.longs(), Serializer.longs())
                .capacity(1 << 20).concurrencyLevel(4).clock(nanos::get).expireAfterWrite(Duration.ofSeconds(1))
                .cleanUpInterval(Duration.ofSeconds(1), executor).removalListener((k, v, cause) -> {
                    told.incrementAndGet();
                    throw new Error("the listener's own failure");
                }).build()) {
            for (long k = 0; k < 20; k++) {
                cache.put(k, k);
            }
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());

            assertThatCode(executor.run::run).as("a run that throws ends the schedule").doesNotThrowAnyException();

            assertThat(cache.size()).isZero();
            assertThat(told).hasValue(20);
            cache.put(100L, 100L);
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            assertThatCode(executor.run::run).doesNotThrowAnyException();
            assertThat(cache.size()).isZero();
        } finally {
            executor.shutdownNow();
        }
    }
}
