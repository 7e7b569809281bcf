package dev.offheap.memory.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** For the tests of allocators' close paths: a thread stack left behind, and a log handler that fails. */
final class CloseFailures {
    private CloseFailures() {
    }

    /** @return the scope of the stack of a thread that pushed a frame and ended (its stack stays until a sweep) */
    static MemorySegment.Scope stackOfAnEndedThread(StackAllocator stack) throws InterruptedException {
        AtomicReference<MemorySegment.Scope> scope = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().start(() -> {
            try (StackAllocator.Frame frame = stack.pushFrame()) {
                scope.set(frame.scope());
            }
        });
        thread.join();
        assertThat(scope.get()).isNotNull();
        assertThat(scope.get().isAlive()).isTrue();
        return scope.get();
    }

    /**
     * Runs {@code close} with a handler on {@code logger} that throws {@code thrown} (checked ones too) for
     * records naming {@code name}.
     *
     * @return what {@code close} threw, or null
     */
    static Throwable closeWithAFailingHandler(Class<?> logger, String name, Throwable thrown, Runnable close) {
        Logger log = Logger.getLogger(logger.getName());
        Handler failing = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getMessage() != null && record.getMessage().contains(name)) {
                    CloseFailures.<RuntimeException>sneakyThrow(thrown);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(failing);
        try {
            return catchThrowable(close::run);
        } finally {
            log.removeHandler(failing);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }
}
