package dev.offheap.memory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A free handed to {@link VirtualMemory#afterGrace} runs once. When the unmapping thread cannot be started
 * (the system refuses a thread: {@link OutOfMemoryError}), the executor has queued the free all the same, and
 * afterGrace runs it at once: the next thread the executor starts must not run it a second time (an unmap of
 * a range the system may have handed to someone else by then).
 */
class AFreeWhoseThreadCannotStartRunsOnceTest {

    @Test
    void aFreeRunAtOnceBecauseNoThreadCouldStartIsNotRunAgainByALaterThread() throws Exception {
        AtomicInteger threadsAsked = new AtomicInteger();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            if (threadsAsked.getAndIncrement() == 0) {
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
            }
            Thread thread = new Thread(runnable, "after-grace-test");
            thread.setDaemon(true);
            return thread;
        });
        AtomicInteger frees = new AtomicInteger();
        try {
            VirtualMemory.afterGrace(frees::incrementAndGet, executor, 0);
            assertThat(frees).as("freed at once, as no thread could take it").hasValue(1);

            executor.prestartAllCoreThreads(); // a thread starts later, and takes what is queued
            executor.shutdown();
            assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).as("the queue drained").isTrue();
        } finally {
            executor.shutdownNow();
        }
        assertThat(threadsAsked.get()).as("a later thread did start").isGreaterThanOrEqualTo(2);
        assertThat(frees).as("freed once").hasValue(1);
    }
}
