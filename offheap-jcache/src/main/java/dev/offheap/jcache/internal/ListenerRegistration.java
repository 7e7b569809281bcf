package dev.offheap.jcache.internal;

import dev.offheap.memory.internal.Failures;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryEventFilter;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.event.EventType;

/**
 * One registered entry listener with its filter. Synchronous listeners run on the thread that changed the
 * cache, before the operation returns, and their exceptions reach the caller as
 * {@link CacheEntryListenerException}. Asynchronous ones run in order on a thread of their own (started on
 * demand, ended when idle), so each sees the events in the order the cache made them.
 *
 * <p>Once {@linkplain #close() closed} (deregistered, or its cache closed), a synchronous listener gets no
 * further call: an operation that is delivering events as it is closed drops the rest of them, and the
 * listener's own {@code close()} runs only after the calls into it in progress then (on other threads, or
 * the listener's own call that deregistered it) have returned, on the thread of the last of them. Closing
 * does not wait for them. An asynchronous listener gets the events queued before its close, then closes.
 */
final class ListenerRegistration<K, V> {
    private static final System.Logger LOG = System.getLogger(ListenerRegistration.class.getName());

    private final CacheEntryListenerConfiguration<K, V> configuration;
    private final CacheEntryListener<? super K, ? super V> listener;
    private final CacheEntryEventFilter<? super K, ? super V> filter;
    private final ThreadPoolExecutor async;
    /**
     * Whether the listener gets old values, as its configuration said at registration: the configuration is
     * the caller's (mutable) object, and changing it afterwards must not change the registered listener.
     */
    private final boolean oldValueRequired;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set in {@link #syncState} once a synchronous listener is closed. */
    private static final int CLOSED = 1 << 30;
    /**
     * A synchronous listener's calls in progress, plus {@link #CLOSED} once it is closed: no call starts
     * after that, and whoever takes the count to zero after it closes the listener (once: the count only
     * falls once the bit is set). Atomic updates, no lock, on the path of every event.
     */
    private final AtomicInteger syncState = new AtomicInteger();

    ListenerRegistration(CacheEntryListenerConfiguration<K, V> configuration) {
        this.configuration = configuration;
        this.listener = configuration.getCacheEntryListenerFactory().create();
        Factory<CacheEntryEventFilter<? super K, ? super V>> filterFactory =
                configuration.getCacheEntryEventFilterFactory();
        try {
            this.filter = filterFactory == null ? null : filterFactory.create();
        } catch (RuntimeException | Error e) {
            closeQuietly(listener); // made already, and nobody else holds it
            throw e;
        }
        this.oldValueRequired = configuration.isOldValueRequired();
        if (configuration.isSynchronous()) {
            this.async = null;
        } else {
            this.async = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
                Thread thread = new Thread(task, "offheap-jcache-listener");
                thread.setDaemon(true);
                return thread;
            });
            this.async.allowCoreThreadTimeOut(true);
        }
    }

    CacheEntryListenerConfiguration<K, V> configuration() {
        return configuration;
    }

    boolean wants(EventType type) {
        return switch (type) {
            case CREATED -> listener instanceof CacheEntryCreatedListener;
            case UPDATED -> listener instanceof CacheEntryUpdatedListener;
            case REMOVED -> listener instanceof CacheEntryRemovedListener;
            case EXPIRED -> listener instanceof CacheEntryExpiredListener;
        };
    }

    /** Delivers the events of one operation, in order; returns once synchronous listeners are done. */
    void dispatch(List<JCacheEntryEvent<K, V>> events) {
        if (async == null) {
            if (!enterSync()) {
                return; // closed meanwhile: the listener is gone, and may be closed already
            }
            try {
                deliver(events);
            } finally {
                if (syncState.decrementAndGet() == CLOSED) {
                    closeListenerAndFilter(); // closed while this call ran: it was the last one in
                }
            }
        } else {
            try {
                async.execute(() -> {
                    try {
                        deliver(events);
                    } catch (Exception e) { // checked ones too, see deliver
                        LOG.log(System.Logger.Level.WARNING, "asynchronous cache entry listener failed", e);
                    }
                });
            } catch (RejectedExecutionException deregistered) {
                // the listener was deregistered, or its cache closed, while the operation ran: it is gone,
                // and the operation that made these events stays done
            }
        }
    }

    /** @return whether a call into the synchronous listener may start: not once it is closed */
    private boolean enterSync() {
        for (;;) {
            int state = syncState.get();
            if ((state & CLOSED) != 0) {
                return false;
            }
            if (syncState.compareAndSet(state, state + 1)) {
                return true;
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void deliver(List<JCacheEntryEvent<K, V>> events) {
        for (JCacheEntryEvent<K, V> event : events) {
            if (!wants(event.getEventType())) {
                continue;
            }
            JCacheEntryEvent<K, V> seen = oldValueRequired ? event : event.withoutOldValue();
            if (filter != null && !passes(seen)) {
                continue;
            }
            try {
                List<CacheEntryEvent<? extends K, ? extends V>> one = List.of(seen);
                switch (seen.getEventType()) {
                    case CREATED -> ((CacheEntryCreatedListener<K, V>) listener).onCreated(one);
                    case UPDATED -> ((CacheEntryUpdatedListener<K, V>) listener).onUpdated(one);
                    case REMOVED -> ((CacheEntryRemovedListener<K, V>) listener).onRemoved(one);
                    case EXPIRED -> ((CacheEntryExpiredListener<K, V>) listener).onExpired(one);
                }
            } catch (CacheEntryListenerException e) {
                throw e;
            } catch (Exception e) {
                // JCache wants any Exception wrapped: checked ones too, which reach Java code undeclared
                // from Kotlin, Groovy, Scala or Lombok's @SneakyThrows
                throw new CacheEntryListenerException("cache entry listener " + listener + " failed on " + seen, e);
            }
        }
    }

    /**
     * @return what the filter says of {@code event}
     * @throws CacheEntryListenerException naming the filter, if it throws (any Exception, as for the listener)
     */
    private boolean passes(JCacheEntryEvent<K, V> event) {
        try {
            return filter.evaluate(event);
        } catch (CacheEntryListenerException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheEntryListenerException("cache entry event filter " + filter + " (of listener " + listener
                    + ") failed on " + event, e);
        }
    }

    /**
     * Stops the asynchronous thread after the events already queued, and closes a closeable listener: a
     * synchronous one at once, or, where calls into it are in progress, once the last of them returns (see
     * the class comment); later events are not delivered to it. Once:
     * a deregistration and the cache's close may both get here (the deregistration found the cache open,
     * the close found the listener registered), and the second close's task would be refused by the
     * executor the first shut down, out of the cache's close before it freed the off-heap memory.
     */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (async != null) {
            async.execute(this::closeListenerAndFilter);
            async.shutdown();
        } else if (syncState.getAndUpdate(state -> state | CLOSED) == 0) {
            closeListenerAndFilter(); // no call in progress; otherwise the last one closes it
        }
    }

    /** Closes the listener and the filter, the filter even where the listener's close throws an Error. */
    private void closeListenerAndFilter() {
        Throwable failure = Failures.run(null, () -> closeQuietly(listener));
        Failures.throwIfAny(Failures.run(failure, () -> closeQuietly(filter)));
    }

    static void closeQuietly(Object resource) {
        if (resource instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "closing " + resource + " failed", e);
            }
        }
    }
}
