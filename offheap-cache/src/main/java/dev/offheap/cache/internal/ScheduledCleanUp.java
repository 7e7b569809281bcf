package dev.offheap.cache.internal;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link OffHeapCacheImpl#cleanUp()} of one cache at a fixed delay, until the cache is closed (its
 * close cancels the runs; a run that finds it closed cancels them too). It holds the cache weakly, so
 * that the schedule itself never keeps a cache alive: only the application and the cache's MBean do.
 */
final class ScheduledCleanUp implements Runnable {
    private static final System.Logger LOG = System.getLogger(ScheduledCleanUp.class.getName());

    /** The daemon thread all caches without an executor of their own share; made on first use. */
    private static final class SharedExecutor {
        static final ScheduledThreadPoolExecutor INSTANCE = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "offheap-cache-clean-up");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        }
    }

    private final WeakReference<OffHeapCacheImpl<?, ?>> cache;
    private volatile ScheduledFuture<?> future;

    private ScheduledCleanUp(OffHeapCacheImpl<?, ?> cache) {
        this.cache = new WeakReference<>(cache);
    }

    /**
     * Starts the runs.
     *
     * @param executor where to schedule them; null for the shared daemon thread
     * @return the runs, for the cache to cancel when it closes
     */
    static ScheduledFuture<?> start(OffHeapCacheImpl<?, ?> cache, Duration interval, ScheduledExecutorService executor) {
        ScheduledCleanUp task = new ScheduledCleanUp(cache);
        long nanos = Math.max(1, saturatedNanos(interval));
        ScheduledExecutorService on = executor != null ? executor : SharedExecutor.INSTANCE;
        task.future = on.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
        return task.future;
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public void run() {
        OffHeapCacheImpl<?, ?> target = cache.get();
        if (target == null || target.isClosed()) {
            cancel();
            return;
        }
        try {
            target.cleanUp();
        } catch (IllegalStateException e) {
            if (target.isClosed()) {
                cancel(); // closed during the run
                return;
            }
            LOG.log(System.Logger.Level.WARNING, "scheduled clean-up of " + target + " failed", e);
        } catch (RuntimeException e) {
            // a run that threw would end the schedule: log and keep going
            LOG.log(System.Logger.Level.WARNING, "scheduled clean-up of " + target + " failed", e);
        }
    }

    private void cancel() {
        ScheduledFuture<?> scheduled = future;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }
}
