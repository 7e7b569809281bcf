package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Two threads close one {@link StackAllocator} at once. The first takes the stacks and frees them; the
 * second found the allocator closed and no stack listed, and returned at once, while the first was still
 * freeing: its caller read the budget (or the footprint) as if the memory were freed, and it was not yet.
 * A close() returns only once the allocator is closed and its memory freed.
 */
class ASecondCloseReturnsOnceTheStacksAreFreedTest {

    @Test
    void aCloseRacingAnotherWaitsForItsFrees() throws Exception {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            Budget budget = Budget.root("two-closes", 1 << 20, report -> { });
            StackAllocator stack = StackAllocator.builder().name("two-closes").stackSize(4096).debug(DebugMode.OFF)
                    .budget(budget).registerMBean(false).build();
            // a frame left open: the first close logs it before it frees the stack, and the log stalls it there
            StackAllocator.Frame open = stack.pushFrame();
            assertThat(open.depth()).isEqualTo(1);
            assertThat(budget.used()).isEqualTo(4096);

            CountDownLatch logging = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            Logger log = Logger.getLogger(StackAllocator.class.getName());
            Handler stall = new Handler() {
                @Override
                public void publish(LogRecord record) {
                    if (record.getMessage() != null && record.getMessage().contains("two-closes")) {
                        logging.countDown();
                        try {
                            resume.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            };
            log.addHandler(stall);
            try {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread first = Thread.ofPlatform().start(() -> {
                    try {
                        stack.close();
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                logging.await();

                AtomicLong usedWhenSecondReturned = new AtomicLong(-1);
                Thread second = Thread.ofPlatform().start(() -> {
                    try {
                        stack.close();
                        usedWhenSecondReturned.set(budget.used());
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                // until the second close has returned, or waits for the first
                while (second.isAlive() && second.getState() != Thread.State.WAITING) {
                    Thread.sleep(1);
                }
                resume.countDown();
                first.join();
                second.join();

                assertThat(failure.get()).isNull();
                assertThat(usedWhenSecondReturned.get()).as("the budget when the second close() returned").isZero();
                assertThat(stack.footprintBytes()).isZero();
                assertThat(stack.stackCount()).isZero();
            } finally {
                resume.countDown();
                log.removeHandler(stall);
            }
            budget.close();
        });
    }
}
