package dev.offheap.memory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A periodic task that throws is never run again by its executor: the schedule logs what a run threw and
 * goes on, for an Error as for a RuntimeException (a clean-up whose listener threw an Error stopped for good).
 */
class AScheduledRunThatThrowsAnErrorKeepsTheScheduleTest {

    @Test
    void theRunAfterOneThatThrewAnErrorStillComes() throws Exception {
        ScheduledThreadPoolExecutor executor = WeakSchedule.daemonExecutor("weak-schedule-test");
        Object target = new Object();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch thirdRun = new CountDownLatch(1);
        try {
            ScheduledFuture<?> schedule = WeakSchedule.atFixedDelay(executor, target, Duration.ofMillis(1), t -> {
                int run = runs.incrementAndGet();
                if (run == 1) {
                    throw new StackOverflowError("thrown by the first run");
                } else if (run == 2) {
                    throw new IllegalArgumentException("thrown by the second run");
                }
                thirdRun.countDown();
            }, "test work");
            assertThat(thirdRun.await(10, TimeUnit.SECONDS)).as("a third run came").isTrue();
            assertThat(schedule.isDone()).isFalse();
            schedule.cancel(false);
        } finally {
            executor.shutdownNow();
        }
        assertThat(target).isNotNull(); // reachable to the end, so the schedule did not stop for its loss
    }
}
