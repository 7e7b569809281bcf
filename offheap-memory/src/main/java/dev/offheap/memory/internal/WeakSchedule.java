package dev.offheap.memory.internal;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Housekeeping that runs at a fixed delay for an object it holds weakly (a pooled allocator's idle
 * release, a cache's clean-up): the schedule never keeps its object alive, and a run that finds it gone
 * ends the schedule. The object's close cancels the returned future. Not an API: the library's modules
 * share it.
 */
public final class WeakSchedule {
    private static final System.Logger LOG = System.getLogger(WeakSchedule.class.getName());

    private WeakSchedule() {
    }

    /**
     * @param threadName the name of the executor's one thread, a daemon
     * @return a one-thread scheduler from whose queue cancelled runs leave at once
     */
    public static ScheduledThreadPoolExecutor daemonExecutor(String threadName) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /**
     * Runs {@code work} on {@code target} every {@code period}, the first time after one period, until
     * the returned future is cancelled or {@code target} is no longer reachable. A run that throws (an
     * Error too) is logged (a WARNING naming {@code what} and the target) and the schedule goes on.
     *
     * @param period the delay between the end of one run and the start of the next; at least 1 ns is used
     * @return the runs
     */
    public static <T> ScheduledFuture<?> atFixedDelay(ScheduledExecutorService executor, T target, Duration period,
                                                      Consumer<? super T> work, String what) {
        Run<T> run = new Run<>(target, work, what);
        long nanos = Math.max(1, saturatedNanos(period));
        run.future = executor.scheduleWithFixedDelay(run, nanos, nanos, TimeUnit.NANOSECONDS);
        return run.future;
    }

    /**
     * {@link #atFixedDelay} for work on something that can be closed: an {@link IllegalStateException}
     * from a run that {@code isClosed} then confirms is the close racing that run (the closer cancels
     * the schedule), not a failure, and is not logged.
     */
    public static <T> ScheduledFuture<?> atFixedDelayWhileOpen(ScheduledExecutorService executor, T target,
                                                               Duration period, Consumer<? super T> work,
                                                               Predicate<? super T> isClosed, String what) {
        return atFixedDelay(executor, target, period, t -> {
            try {
                work.accept(t);
            } catch (IllegalStateException e) {
                if (!isClosed.test(t)) {
                    throw e;
                }
            }
        }, what);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static final class Run<T> implements Runnable {
        private final WeakReference<T> target;
        private final Consumer<? super T> work;
        private final String what;
        private volatile ScheduledFuture<?> future;

        Run(T target, Consumer<? super T> work, String what) {
            this.target = new WeakReference<>(target);
            this.work = work;
            this.what = what;
        }

        @Override
        public void run() {
            T t = target.get();
            if (t == null) {
                ScheduledFuture<?> scheduled = future;
                if (scheduled != null) {
                    scheduled.cancel(false);
                }
                return;
            }
            try {
                work.accept(t);
            } catch (RuntimeException | Error e) {
                // a periodic task that throws is never run again: log and keep the schedule; an Error too (a
                // user's listener that throws one, a StackOverflowError), or the clean-up stops for good
                LOG.log(System.Logger.Level.WARNING, what + " of " + t + " failed", e);
            }
        }
    }
}
