package dev.offheap.jcache.internal;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.SerializationException;
import dev.offheap.cache.Serializer;
import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.jcache.ExpiryCleanUp;
import dev.offheap.jcache.OffHeapConfiguration;
import dev.offheap.memory.internal.Failures;
import dev.offheap.memory.internal.WeakSchedule;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.Factory;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.event.EventType;
import javax.cache.expiry.Duration;
import javax.cache.expiry.EternalExpiryPolicy;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListener;
import javax.cache.management.CacheStatisticsMXBean;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import javax.management.ObjectName;

/**
 * A JCache {@link Cache} over an {@link OffHeapCache}.
 *
 * <p>Each entry is stored off the heap as its serialized key and an {@link Expirable}: the expiry time
 * followed by the serialized value. Every JCache operation that reads and then writes an entry runs inside
 * one {@link OffHeapCache#compute} call, so it is atomic per key; the cache writer and entry processors run
 * inside it too. Events are collected during each store call and delivered after it, outside the store's
 * lock, in the order of each key's changes ({@link EventOrder}); a listener's exception reaches the
 * caller when the operation ends. Expired entries are dropped lazily, when an operation finds them, and by {@link #cleanUp()}.
 *
 * <p>Statistics follow JCache's definitions (a put-if-absent that stores counts a put, a get that finds an
 * expired entry counts a miss, ...), counted here; evictions come from the off-heap cache.
 */
public final class OffHeapJCache<K, V> implements Cache<K, V>, ExpiryCleanUp {
    private final OffHeapCacheManager manager;
    private final String name;
    private final OffHeapConfiguration<K, V> configuration;
    private final Class<K> keyType;
    private final Class<V> valueType;
    private final OffHeapCache<K, Expirable<V>> store;
    /** The store's key serializer, for {@link #copyOfKey}. */
    private final Serializer<K> keySerializer;
    /** The values' serializer, inside the store's {@link ExpirableSerializer}; for {@link #forgetUnwritten}. */
    private final Serializer<V> valueSerializer;
    private final CacheLoader<K, V> loader;
    private final CacheWriter<K, V> writer;
    private final ExpiryPolicy expiryPolicy;
    /** Whether the expiry policy is JCache's default, {@link EternalExpiryPolicy}, whose answers are fixed. */
    private final boolean eternal;
    private final CopyOnWriteArrayList<ListenerRegistration<K, V>> listeners = new CopyOnWriteArrayList<>();
    private final JCacheStatistics statistics;
    private final ConfigurationBean configurationBean;
    private final ObjectName statisticsName;
    private final ObjectName configurationName;
    private final ExecutorService loadExecutor;
    private volatile boolean closed;
    /** The store's eviction count, taken by {@link #close()} before it closes the store. */
    private volatile long evictionsAtClose;
    /**
     * The wall clock that expiry times are read and counted on, in milliseconds since the epoch: {@link
     * System#currentTimeMillis()}, but in tests ({@link #wallClock(LongSupplier)}). It may step backward and
     * forward (the system's clock is set); expiry times stay absolute times on it.
     */
    private volatile LongSupplier wallClock = System::currentTimeMillis;
    /** Lets a sweep skip the walk when no entry can have expired yet. */
    private final EarliestExpiry earliestExpiry = new EarliestExpiry();
    /** The background sweeps of expired entries; null without a clean-up interval. */
    private final ScheduledFuture<?> cleanUpRuns;
    /** Set while this thread runs inside {@link #compute}; see there. */
    private final ThreadLocal<Boolean> insideCompute = new ThreadLocal<>();
    /**
     * The keys (their serialized bytes) whose loads this thread runs outside the store's lock, set only
     * while one runs: see {@link #loadingHere}.
     */
    private final ThreadLocal<List<ByteBuffer>> loadsHere = new ThreadLocal<>();
    /**
     * Changes of keys, counted per stripe of keys (by hash) under the store's lock: a read-through load
     * notes its key's count before it looks the key up, and stores what it loaded only if the count is the
     * same then, so that a write while it loaded (its value may be older) wins: every write call counts,
     * whatever it finds (see {@link Change#EVERY_CALL}), and a clear counts in every stripe.
     */
    private final AtomicLongArray changes = new AtomicLongArray(CHANGE_STRIPES);
    private static final int CHANGE_STRIPES = 1024;
    /** Delivers each key's events in the order of its changes; see {@link EventOrder}. */
    private final EventOrder eventOrder;
    /**
     * Set while this thread delivers events of any cache. A synchronous listener's own call to a cache
     * makes events that cannot wait for their turn: in its own cache the turn before is the one being
     * delivered, and in another cache the turn may be held by a thread whose listener waits for this
     * one's (two caches whose listeners copy into each other). They take no ticket and are delivered at once.
     */
    private static final ThreadLocal<Boolean> DELIVERING = new ThreadLocal<>();
    /** Set while this thread runs a loadAll task of this cache; see {@link #close()}. */
    private final ThreadLocal<Boolean> loading = new ThreadLocal<>();
    /**
     * The keys of the running {@code loadAll} task, from before its loader runs until it has stored what it
     * loaded; null while none runs. Write calls mark their key there ({@link #countWrite}), so that the
     * load does not store a key written meanwhile. One task runs at a time (the load executor has one thread).
     */
    private volatile KeysBeingLoaded keysBeingLoaded;

    OffHeapJCache(OffHeapCacheManager manager, String name, OffHeapConfiguration<K, V> configuration) {
        this.manager = manager;
        this.name = name;
        this.configuration = configuration;
        this.keyType = configuration.getKeyType();
        this.valueType = configuration.getValueType();
        ClassLoader classLoader = manager.getClassLoader();
        // What the factories make is closed if a later one throws (nothing else holds it), as close() would.
        CacheLoader<K, V> newLoader = null;
        CacheWriter<K, V> newWriter = null;
        ExpiryPolicy newExpiryPolicy = null;
        Serializer<K> keys;
        Serializer<V> values;
        try {
            Factory<CacheLoader<K, V>> loaderFactory = configuration.getCacheLoaderFactory();
            newLoader = loaderFactory == null ? null : loaderFactory.create();
            newWriter = createWriter(configuration);
            newExpiryPolicy = configuration.getExpiryPolicyFactory().create();
            for (CacheEntryListenerConfiguration<K, V> listener : configuration.getCacheEntryListenerConfigurations()) {
                listeners.add(new ListenerRegistration<>(listener));
            }
            keys = configuration.getKeySerializerFactory() == null
                    ? serializerFor(keyType, classLoader) : configuration.getKeySerializerFactory().create();
            values = configuration.getValueSerializerFactory() == null
                    ? serializerFor(valueType, classLoader) : configuration.getValueSerializerFactory().create();
        } catch (RuntimeException | Error e) {
            ListenerRegistration.closeQuietly(newLoader);
            ListenerRegistration.closeQuietly(newWriter);
            ListenerRegistration.closeQuietly(newExpiryPolicy);
            for (ListenerRegistration<K, V> listener : listeners) {
                listener.close();
            }
            throw e;
        }
        this.loader = newLoader;
        this.writer = newWriter;
        this.expiryPolicy = newExpiryPolicy;
        this.eternal = expiryPolicy != null && expiryPolicy.getClass() == EternalExpiryPolicy.class;
        this.eventOrder = new EventOrder(CHANGE_STRIPES, name);
        this.keySerializer = keys;
        this.valueSerializer = values;
        try {
            this.store = OffHeapCache.builder(Objects.requireNonNull(keys, "the key serializer factory made null"),
                            new ExpirableSerializer<>(
                                    Objects.requireNonNull(values, "the value serializer factory made null"),
                                    earliestExpiry))
                    .capacity(configuration.getCapacityBytes())
                    .evictionPolicy(configuration.getEvictionPolicy())
                    .name("jcache " + manager.getURI() + " " + name)
                    .build();
        } catch (RuntimeException e) {
            Failures.run(e, this::closeUserResources); // a failure there: suppressed in e
            throw e;
        }
        this.statistics = new JCacheStatistics(this::evictionsSinceStart, configuration.isStatisticsEnabled());
        this.configurationBean = new ConfigurationBean(configuration);
        this.statisticsName = MBeans.name("CacheStatistics", manager.getURI().toString(), name);
        this.configurationName = MBeans.name("CacheConfiguration", manager.getURI().toString(), name);
        // loadAll runs in the background, one at a time per cache, on a thread that ends when idle.
        ThreadPoolExecutor loads = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                task -> {
                    Thread thread = new Thread(task, "offheap-jcache-loadAll " + name);
                    thread.setDaemon(true);
                    return thread;
                });
        loads.allowCoreThreadTimeOut(true);
        this.loadExecutor = loads;
        try {
            if (configuration.isStatisticsEnabled()) {
                MBeans.register(statistics, statisticsName);
            }
            if (configuration.isManagementEnabled()) {
                MBeans.register(configurationBean, configurationName);
            }
        } catch (RuntimeException e) {
            MBeans.unregister(statistics, statisticsName);
            store.close();
            Failures.run(e, this::closeUserResources);
            throw e;
        }
        java.time.Duration interval = configuration.getCleanUpInterval();
        // held weakly by the schedule: a cache its manager and the application dropped is not kept alive
        this.cleanUpRuns = interval == null ? null
                : WeakSchedule.atFixedDelayWhileOpen(SharedCleanUpExecutor.INSTANCE, this, interval,
                        OffHeapJCache::cleanUp, OffHeapJCache::isClosed, "scheduled expiry clean-up");
    }

    /**
     * For tests: reads expiry times on {@code clock} from now on, in place of {@link System#currentTimeMillis()}.
     *
     * @param clock milliseconds since the epoch; called by every thread that uses the cache
     * @throws NullPointerException if {@code clock} is null
     */
    void wallClock(LongSupplier clock) {
        this.wallClock = Objects.requireNonNull(clock, "clock");
    }

    /** The daemon thread of the background sweeps of every cache with a clean-up interval. */
    private static final class SharedCleanUpExecutor {
        static final ScheduledThreadPoolExecutor INSTANCE = WeakSchedule.daemonExecutor("offheap-jcache-clean-up");
    }

    /**
     * Closes what the configuration's factories made: loader, writer, expiry policy, listeners. Each of them,
     * even where an earlier one's close throws an Error (exceptions are logged): the first such failure is
     * thrown once all are closed, later ones suppressed in it.
     */
    private void closeUserResources() {
        Throwable failure = Failures.run(null, () -> ListenerRegistration.closeQuietly(loader));
        failure = Failures.run(failure, () -> ListenerRegistration.closeQuietly(writer));
        failure = Failures.run(failure, () -> ListenerRegistration.closeQuietly(expiryPolicy));
        for (ListenerRegistration<K, V> listener : listeners) {
            failure = Failures.run(failure, listener::close);
        }
        Failures.throwIfAny(failure);
    }

    // A writer of supertypes of K and V accepts K and V; JCache's wildcards just cannot say so for writeAll.
    @SuppressWarnings("unchecked")
    private static <K, V> CacheWriter<K, V> createWriter(CompleteConfiguration<K, V> configuration) {
        Factory<CacheWriter<? super K, ? super V>> factory = configuration.getCacheWriterFactory();
        return factory == null ? null : (CacheWriter<K, V>) factory.create();
    }

    @SuppressWarnings("unchecked")
    static <T> Serializer<T> serializerFor(Class<T> type, ClassLoader classLoader) {
        if (type == String.class) {
            return (Serializer<T>) Serializer.strings();
        } else if (type == Long.class) {
            return (Serializer<T>) Serializer.longs();
        } else if (type == Integer.class) {
            return (Serializer<T>) Serializer.integers();
        } else if (type == byte[].class) {
            return (Serializer<T>) Serializer.byteArrays();
        }
        return new JavaSerializer<>(type, classLoader);
    }

    /**
     * @return the store's evictions; once it is closed (a JMX read racing {@link #close()}), those it had
     *         when the close began: 0 read as if there had been none, and as a negative count where the
     *         statistics had been cleared after some
     */
    private long evictionsSinceStart() {
        try {
            return store.stats().evictionCount();
        } catch (IllegalStateException closedMeanwhile) {
            return evictionsAtClose;
        }
    }

    CompleteConfiguration<K, V> configuration() {
        return configuration;
    }

    /** @return the bean registered as this cache's CacheStatistics MBean while statistics are enabled */
    CacheStatisticsMXBean statisticsBean() {
        return statistics;
    }

    // ---------------------------------------------------------------------------------------------------
    // Per-operation bookkeeping

    /**
     * An event with its place in its key's order: the stripe and ticket taken under the key's lock, or
     * {@link #UNORDERED}. A null event keeps only the place (its change never showed).
     */
    private record PendingEvent<K, V>(JCacheEntryEvent<K, V> event, int stripe, long ticket) {
        static final long UNORDERED = -1;

        boolean ordered() {
            return ticket != UNORDERED;
        }

        PendingEvent<K, V> withoutEvent() {
            return new PendingEvent<>(null, stripe, ticket);
        }
    }

    /** What one operation observed: its clock, its events and a failure to rethrow after the store call. */
    private final class Op {
        final long now = wallClock.getAsLong();
        /** Whether statistics were on when the operation started, so that {@link #startNanos} is a time. */
        final boolean timed = statisticsOn();
        final long startNanos = timed ? System.nanoTime() : 0;
        /** Events made so far and not yet delivered, in the order they were made. */
        List<PendingEvent<K, V>> events;
        RuntimeException failure;
        /**
         * The first synchronous listener's failure (later ones suppressed in it), thrown by {@link #finish()}:
         * a RuntimeException, or an Error (an assertion in a listener), which does not stop the other events.
         */
        Throwable listenerFailure;
        /** Entries this operation stored (a creation that expires at once stores nothing). */
        int stored;
        /**
         * The length of the serialized key of the store call running now, set by {@link #compute} before its
         * function runs: a write-through checks with it that the store will take the entry ({@link #storable}).
         */
        int keyBytes;

        /** A new entry, or none (and no event) if the expiry policy says it expires at creation. */
        Expirable<V> create(K key, V value, Expirable<V> old) {
            return create(key, value, null, old);
        }

        /**
         * {@link #create(Object, Object, Expirable)} of a value serialized already.
         *
         * @param prepared {@code value} as {@link #storable} made it, or null to serialize it when stored
         */
        Expirable<V> create(K key, V value, Expirable<V> prepared, Expirable<V> old) {
            if (old != null) {
                gone(EventType.EXPIRED, key, old);
            }
            long at = creationExpiry(now);
            if (at <= now) {
                return null;
            }
            event(EventType.CREATED, key, value, null);
            stored++;
            return prepared != null ? prepared.withExpiry(at) : Expirable.of(value, at);
        }

        Expirable<V> update(K key, V value, Expirable<V> live) {
            return update(key, value, null, live);
        }

        /**
         * An update of a live entry, with its UPDATED event.
         *
         * @param prepared {@code value} as {@link #storable} made it, or null to serialize it when stored
         */
        Expirable<V> update(K key, V value, Expirable<V> prepared, Expirable<V> live) {
            if (!listeners.isEmpty()) {
                event(EventType.UPDATED, key, value, live.value());
            }
            stored++;
            long at = updateExpiry(now, live.expiresAtMillis());
            return prepared != null ? prepared.withExpiry(at) : Expirable.of(value, at);
        }

        /** Records an event; called under the store's lock of {@code key}, where its ticket is taken. */
        void event(EventType type, K key, V value, V oldValue) {
            if (listeners.isEmpty()) {
                return;
            }
            if (events == null) {
                events = new ArrayList<>(2);
            }
            boolean hasOld = type != EventType.CREATED;
            JCacheEntryEvent<K, V> event =
                    new JCacheEntryEvent<>(OffHeapJCache.this, type, key, value, hasOld ? oldValue : null, hasOld);
            int stripe = changeStripe(key);
            long ticket = DELIVERING.get() == null ? eventOrder.take(stripe) : PendingEvent.UNORDERED;
            events.add(new PendingEvent<>(event, stripe, ticket));
        }

        /**
         * The store call that made the pending events failed, so their changes never showed: none of them
         * is delivered, and their turns are given up. (Events are delivered after each store call that
         * succeeds, so every pending event is the failed call's.)
         *
         * @param failure the store call's failure; a listener's exception from earlier in the operation is
         *                added to it as suppressed
         */
        void abandonEvents(Throwable failure) {
            if (events != null) {
                events.replaceAll(PendingEvent::withoutEvent);
                deliver();
            }
            if (listenerFailure != null) {
                failure.addSuppressed(listenerFailure);
                listenerFailure = null;
            }
        }

        /** A REMOVED or EXPIRED event; decodes the old value only if someone listens. */
        void gone(EventType type, K key, Expirable<V> old) {
            if (!listeners.isEmpty()) {
                event(type, key, old.value(), old.value());
            }
        }

        /**
         * @return the nanoseconds since the operation started; 0 if statistics were switched on after it
         *         started (it was not timed: {@code nanoTime() - 0} would count days)
         */
        long elapsedNanos() {
            return timed ? System.nanoTime() - startNanos : 0;
        }

        /**
         * {@link #finish()}, with the operation's statistics counted by {@code counting} first unless a
         * failure recorded inside the store call (a writer's, an entry processor's) undid the operation. A
         * synchronous listener's failure comes after the change was made, so that change still counts: a
         * put whose listener threw is a put.
         */
        void finish(Runnable counting) {
            deliver();
            if (failure == null) {
                counting.run();
            }
            finish();
        }

        /**
         * {@link #finish()} for an operation on many keys that went on past the store calls that failed
         * ({@link #storeEach}): delivers the events, then throws {@code notStored} (the first store call's
         * failure, later ones suppressed in it) with a synchronous listener's failure and {@link #failure}
         * (a cache writer's) suppressed in it; with no such failure, does what {@link #finish()} does.
         */
        void finishAfter(Throwable notStored) {
            if (notStored == null) {
                finish();
                return;
            }
            deliver();
            if (listenerFailure != null) {
                Failures.firstOrSuppressed(notStored, listenerFailure);
                listenerFailure = null;
            }
            if (failure != null) {
                Failures.firstOrSuppressed(notStored, failure);
            }
            Failures.throwIfAny(notStored);
        }

        /**
         * Delivers the events, then rethrows a failure recorded inside the store call.
         *
         * @throws javax.cache.event.CacheEntryListenerException the first synchronous listener's failure
         *         (later ones suppressed in it), after every event went to every listener
         */
        void finish() {
            deliver();
            if (listenerFailure != null) {
                if (failure != null && failure != listenerFailure) {
                    listenerFailure.addSuppressed(failure);
                }
                if (listenerFailure instanceof Error error) {
                    throw error;
                }
                throw (RuntimeException) listenerFailure;
            }
            if (failure != null) {
                throw failure;
            }
        }

        /**
         * Delivers every pending event to every listener, each in its key's turn, and completes the turns
         * even where a listener throws: a turn left open would hold up the key's later events. A listener's
         * exception is kept for {@link #finish()}; a failure of this method itself gives up the turns of the
         * events not delivered yet.
         * Called after each store call, so that a turn is not held across the operation's other work (a
         * bulk operation's other keys, a read-through load).
         */
        void deliver() {
            if (events == null || events.isEmpty()) {
                return;
            }
            List<PendingEvent<K, V>> pending = events;
            events = null;
            boolean outermost = DELIVERING.get() == null;
            if (outermost) {
                DELIVERING.set(Boolean.TRUE);
            }
            int done = 0;
            try {
                for (; done < pending.size(); done++) {
                    PendingEvent<K, V> next = pending.get(done);
                    if (next.ordered()) {
                        eventOrder.awaitTurn(next.stripe(), next.ticket());
                    }
                    try {
                        if (next.event() != null) {
                            List<JCacheEntryEvent<K, V>> one = List.of(next.event());
                            for (ListenerRegistration<K, V> listener : listeners) {
                                try {
                                    listener.dispatch(one);
                                } catch (RuntimeException | Error e) {
                                    if (listenerFailure == null) {
                                        listenerFailure = e;
                                    } else {
                                        listenerFailure.addSuppressed(e);
                                    }
                                }
                            }
                        }
                    } finally {
                        if (next.ordered()) {
                            eventOrder.complete(next.stripe(), next.ticket());
                        }
                    }
                }
            } finally {
                // something left the loop: the events after it are dropped, their turns given up in order
                for (int i = done + 1; i < pending.size(); i++) {
                    PendingEvent<K, V> rest = pending.get(i);
                    if (rest.ordered()) {
                        eventOrder.awaitTurn(rest.stripe(), rest.ticket());
                        eventOrder.complete(rest.stripe(), rest.ticket());
                    }
                }
                if (outermost) {
                    DELIVERING.remove();
                }
            }
        }
    }

    private boolean statisticsOn() {
        return configuration.isStatisticsEnabled();
    }

    private Expirable<V> live(Expirable<V> stored, long now) {
        return stored == null || stored.isExpiredAt(now) ? null : stored;
    }

    private long creationExpiry(long now) {
        Duration duration;
        try {
            duration = expiryPolicy.getExpiryForCreation();
        } catch (Exception e) { // checked ones too: Kotlin, Groovy, Scala or @SneakyThrows can throw them
            duration = Duration.ETERNAL;
        }
        return expiresAt(duration == null ? Duration.ETERNAL : duration, now);
    }

    /**
     * @return the new expiry time, or {@code unchanged} if the policy keeps it. A new time that comes out
     *         equal to {@code unchanged} (the entry was written in the same millisecond with the same
     *         duration) is moved one millisecond on: {@link #renewAccessed} tells a write made since a read
     *         by a changed expiry time, and would otherwise give this write's entry the read's access
     *         expiry, as if there had been no write
     */
    private long updateExpiry(long now, long unchanged) {
        long at;
        try {
            Duration duration = expiryPolicy.getExpiryForUpdate();
            if (duration == null) {
                return unchanged;
            }
            at = expiresAt(duration, now);
        } catch (Exception e) {
            return unchanged;
        }
        return at != unchanged ? at : at == Expirable.NEVER ? Expirable.NEVER - 1 : at + 1;
    }

    /** @return the new expiry time, or {@code unchanged} if the policy keeps it */
    private long accessExpiry(long now, long unchanged) {
        try {
            Duration duration = expiryPolicy.getExpiryForAccess();
            return duration == null ? unchanged : expiresAt(duration, now);
        } catch (Exception e) {
            return unchanged;
        }
    }

    /**
     * @return the expiry time of a {@code duration} from {@code now}: {@link Expirable#NEVER} for an eternal
     *         one or one that reaches past the last millisecond a long can hold, {@link Expirable#EXPIRED}
     *         for zero (expired at once, whatever the clock reads later: a clock set back must not bring the
     *         entry back) or a negative one, which only a subclass of Duration can make
     */
    private static long expiresAt(Duration duration, long now) {
        if (duration.isEternal()) {
            return Expirable.NEVER;
        }
        long millis = duration.isZero() ? 0 : duration.getTimeUnit().toMillis(duration.getDurationAmount());
        if (millis <= 0) {
            return Expirable.EXPIRED;
        }
        long at = now + millis;
        return at < now ? Expirable.NEVER : at;
    }

    /**
     * Writes through. JCache wants any Exception of the writer wrapped in a CacheWriterException: checked
     * ones too, which reach Java code undeclared from Kotlin, Groovy, Scala or Lombok's {@code @SneakyThrows}.
     */
    private void write(K key, V value) {
        if (writer == null || !configuration.isWriteThrough()) {
            return;
        }
        try {
            writer.write(new CacheEntry<>(key, value));
        } catch (CacheWriterException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheWriterException("cache writer failed to write key " + key + ": " + e, e);
        }
    }

    /** @return whether changes go through the cache writer */
    private boolean writesThrough() {
        return writer != null && configuration.isWriteThrough();
    }

    /**
     * Serializes {@code value} for the store and refuses it as the store would, before a cache writer writes
     * it: a value over the entry limit, or one its serializer refuses, would otherwise be in the writer's
     * store and not in the cache. The value is serialized once: the store copies the bytes made here (Java
     * serialization's, taken from {@link JavaSerializer#serializedSize}; a serializer of the application's,
     * checked as the store checks it), and a built-in serializer, which writes exactly its size and cannot
     * fail, is only asked for the size here and writes the value when it is stored.
     *
     * @param value    the new value
     * @param keyBytes the length of the key's serialized bytes
     * @return the value to store, its expiry time still to set ({@link Op#create}, {@link Op#update})
     * @throws SerializationException if the value serializer threw or lied about the value's size
     * @throws dev.offheap.cache.ValueTooLargeException if the entry would be over the store's entry limit
     */
    private Expirable<V> storable(V value, int keyBytes) {
        OffHeapCacheImpl<K, Expirable<V>> impl = storeImpl();
        int size = OffHeapCacheImpl.declaredSize(valueSerializer, value, "value");
        byte[] bytes = valueSerializer instanceof JavaSerializer<V> java ? java.takePending(value) : null;
        if (size > Integer.MAX_VALUE - ExpirableSerializer.HEADER_BYTES) {
            throw new SerializationException("the value serializer " + valueSerializer + " declared " + size
                    + " bytes, more than an entry can have", null);
        }
        impl.checkEntrySize(keyBytes, ExpirableSerializer.HEADER_BYTES + size);
        if (bytes == null && !OffHeapCacheImpl.isBuiltIn(valueSerializer)) {
            bytes = OffHeapCacheImpl.serialize(valueSerializer, value, size, "value");
        }
        return Expirable.prepared(value, bytes, size, Expirable.NEVER, valueSerializer);
    }

    /**
     * Decodes the old value where the operation's events will need it (any listener: an UPDATED event's
     * old value, a REMOVED or EXPIRED event's value), before a cache writer is called: a value that cannot
     * be deserialized fails the operation then, and the writer never hears of a change the cache did not
     * make. The decoded value is kept in {@code old} for the events.
     */
    private void decodeForEvents(Expirable<V> old) {
        if (old != null && !listeners.isEmpty()) {
            old.value();
        }
    }

    private void delete(K key) {
        if (writer == null || !configuration.isWriteThrough()) {
            return;
        }
        try {
            writer.delete(key);
        } catch (CacheWriterException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheWriterException("cache writer failed to delete key " + key + ": " + e, e);
        }
    }

    /**
     * Calls the loader's {@code loadAll}; a null result counts as empty, a failure is a CacheLoaderException
     * (any Exception, as JCache wants: checked ones too, which reach Java code undeclared from Kotlin,
     * Groovy, Scala or Lombok's {@code @SneakyThrows}), and so is a key or value of another type than the
     * cache's ({@link #checkLoaded}).
     */
    private Map<K, V> loadMany(List<K> keys) {
        Map<K, V> loaded;
        try {
            loaded = loader.loadAll(keys);
        } catch (CacheLoaderException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheLoaderException("cache loader failed to load " + keys.size() + " keys: " + e, e);
        }
        if (loaded == null) {
            return Map.of();
        }
        for (Map.Entry<K, V> entry : loaded.entrySet()) {
            checkLoaded("key", null, entry.getKey(), keyType, name);
            checkLoaded("value", entry.getKey(), entry.getValue(), valueType, name);
        }
        return loaded;
    }

    /**
     * Checks a key or value a loader returned (through read-through, {@code loadAll} or an entry processor's
     * {@code getValue}): a loader written against raw types can return another type than the cache's, which,
     * stored, made every later get of the key throw (or put a key of another type into iteration).
     *
     * @param what   "key" or "value"
     * @param key    the key a value was loaded for, named in the message; null for a key
     * @param loaded what the loader returned, or null
     * @param type   the cache's configured type for it
     * @param cacheName the cache's name, for the message
     * @return {@code loaded}
     * @throws CacheLoaderException if {@code loaded} is not null and not of {@code type}; its cause is a
     *                              ClassCastException naming both types
     */
    static <T> T checkLoaded(String what, Object key, T loaded, Class<?> type, String cacheName) {
        if (loaded != null && !type.isInstance(loaded)) {
            throw new CacheLoaderException("cache loader returned a " + what + " of the wrong type"
                    + (key == null ? "" : " for key " + key),
                    new ClassCastException("cache '" + cacheName + "' has " + what + "s of " + type.getName()
                            + ", the loader returned a " + loaded.getClass().getName()));
        }
        return loaded;
    }

    /** {@link #loadMany} with the keys marked as this thread's loads while it runs (see {@link #loadingHere}). */
    private Map<K, V> loadManyMarked(List<K> keys) {
        Runnable unmark = loadingHere(keys);
        try {
            return loadMany(keys);
        } finally {
            unmark.run();
        }
    }

    /**
     * Calls the loader's {@code load}; any Exception it throws becomes a CacheLoaderException, and so does a
     * value of another type than the cache's ({@link #checkLoaded}).
     */
    private V load(K key) {
        V value;
        try {
            value = loader.load(key);
        } catch (CacheLoaderException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheLoaderException("cache loader failed to load key " + key + ": " + e, e);
        }
        return checkLoaded("value", key, value, valueType, name);
    }

    /**
     * Marks {@code keys} as loaded by this thread, outside the store's lock (read-through and
     * {@code loadAll}, whose loaders may use the cache), until the returned unmarking runs. A loader that
     * asks for a key it is loading (through get, getAll or loadAll on the same thread) would have it loaded
     * again, and again, until the stack overflowed: it gets an IllegalStateException at once instead, which
     * reaches the outer caller as the cause of the loader's CacheLoaderException.
     *
     * @throws IllegalStateException if this thread is loading one of the keys already
     */
    private Runnable loadingHere(List<K> keys) {
        List<ByteBuffer> ids = new ArrayList<>(keys.size());
        for (K key : keys) {
            ids.add(keyContent(key));
        }
        List<ByteBuffer> loading = loadsHere.get();
        if (loading == null) {
            loading = new ArrayList<>();
            loadsHere.set(loading);
        } else {
            for (int i = 0; i < ids.size(); i++) {
                if (loading.contains(ids.get(i))) {
                    throw new IllegalStateException("cache '" + name + "': the loader asked for key " + keys.get(i)
                            + " while loading it; loading it again would recurse for ever");
                }
            }
        }
        List<ByteBuffer> marks = loading;
        int from = marks.size();
        marks.addAll(ids);
        return () -> {
            marks.subList(from, marks.size()).clear();
            if (marks.isEmpty()) {
                loadsHere.remove();
            }
        };
    }

    private boolean readsThrough() {
        return loader != null && configuration.isReadThrough();
    }

    // ---------------------------------------------------------------------------------------------------
    // Reads

    @Override
    public V get(K key) {
        ensureOpen();
        checkKey(key);
        Op op = new Op();
        V value = getValue(key, op);
        op.finish();
        return value;
    }

    private V getValue(K key, Op op) {
        boolean timed = statisticsOn();
        long start = timed ? System.nanoTime() : 0;
        boolean counted = false; // a get that counted no hit or miss adds no time to their average
        long loadStart = 0;
        long loadEnd = 0;
        try {
            Expirable<V> stored;
            try {
                stored = store.getIfPresent(key);
            } catch (RuntimeException | Error e) {
                forgetUnwritten();
                throw e;
            }
            V value = hitOrMiss(key, stored, op);
            countHitsAndMisses(value != null ? 1 : 0, value != null ? 0 : 1);
            counted = true;
            if (value != null || !readsThrough()) {
                return value;
            }
            // before the loader reads its source: a change after this may be newer than what it reads
            long changesSeen = changes.get(changeStripe(key));
            Runnable unmark = loadingHere(List.of(key));
            loadStart = timed ? System.nanoTime() : 0;
            try {
                value = load(key);
            } finally {
                loadEnd = timed ? System.nanoTime() : 0;
                unmark.run();
            }
            if (value != null) {
                storeLoaded(key, value, false, () -> changes.get(changeStripe(key)) != changesSeen, op);
            }
            return value;
        } finally {
            if (counted && statisticsOn()) {
                // JCache: "the time taken to load an entry on miss is not included in get time"; not timed:
                // switched on meanwhile
                statistics.getTime(timed ? System.nanoTime() - start - (loadEnd - loadStart) : 0);
            }
        }
    }

    /**
     * What a read found for {@code key}: the value of a live entry (its access expiry applied), or null for
     * a missing or expired one (an expired one is dropped). The caller counts the hit or miss once every
     * value it reads is deserialized: a value that cannot be throws, and a get that throws served nothing.
     */
    private V hitOrMiss(K key, Expirable<V> stored, Op op) {
        long now = op.now;
        if (stored != null && !stored.isExpiredAt(now)) {
            V value = stored.value();
            long at = accessExpiry(now, stored.expiresAtMillis());
            if (at != stored.expiresAtMillis()) {
                renewAccessed(key, stored.expiresAtMillis(), at);
            }
            return value;
        }
        if (stored != null) {
            expire(key, op);
        }
        return null;
    }

    private void countHitsAndMisses(int hits, int misses) {
        if (statisticsOn()) {
            if (hits > 0) {
                statistics.hits(hits);
            }
            if (misses > 0) {
                statistics.misses(misses);
            }
        }
    }

    /**
     * Writes back the expiry time an access gave, read outside the store's lock: only over an entry whose
     * expiry time is still the one the access saw. A write since then (a put, a replace, an invoke) set its
     * own expiry time, never equal to the one it replaced ({@link #updateExpiry}), and comes after the
     * access; so does a remove and a new creation (a creation in the very millisecond of the entry the
     * access saw, with the same duration, is the one case taken for no write). Where a write kept
     * the expiry time (its policy said null), the access is applied, as it would be had it come first.
     */
    private void renewAccessed(K key, long seenExpiresAt, long at) {
        compute(key, null, (k, current) ->
                current == null || current.expiresAtMillis() != seenExpiresAt ? current : current.withExpiry(at),
                Change.IF_CHANGED);
    }

    /**
     * Inside the store's compute of an operation that found no live entry: an expired one it found is
     * dropped with its EXPIRED event, as docs/jcache.md has every operation but {@code containsKey} and the
     * iterator do (left in place, it held its memory and owed its event until a get or a sweep came by).
     *
     * @param old the stored entry, expired or null
     * @return what the compute stores: nothing
     */
    private Expirable<V> dropExpired(K key, Expirable<V> old, Op op) {
        if (old != null) {
            op.gone(EventType.EXPIRED, key, old);
        }
        return null;
    }

    /**
     * Drops the entry of {@code key} if it is still expired, with an EXPIRED event.
     *
     * @return whether it dropped it
     */
    private boolean expire(K key, Op op) {
        boolean[] dropped = new boolean[1];
        compute(key, op, (k, current) -> {
            if (current != null && current.isExpiredAt(op.now)) {
                op.gone(EventType.EXPIRED, key, current);
                dropped[0] = true;
                return null;
            }
            return current;
        }, Change.IF_CHANGED);
        return dropped[0];
    }

    /**
     * {@inheritDoc}
     *
     * <p>The sweep walks the store's entries in place, segment by segment under its write lock, a batch of
     * buckets per hold ({@link OffHeapCacheImpl#removeEntriesIf}), and reads each entry's expiry time from
     * its value bytes: no key is deserialized and no entry looked up again. An expired one is removed there,
     * in the same lock hold, as the atomic per-key step of a read that finds it expired removes it: its key's
     * change is counted and its EXPIRED event's turn taken before the removal shows, so a write of the key
     * racing the sweep comes wholly before or after it. Only then are its key (and, for listeners of EXPIRED
     * events, its value) deserialized. The batch's events are delivered after the lock is released. A sweep
     * that starts before the earliest expiry time it knows of ({@link EarliestExpiry}) returns at once.
     */
    @Override
    public long cleanUp() {
        ensureOpen();
        long sweepStart = wallClock.getAsLong();
        if (earliestExpiry.nothingDueAt(sweepStart)) {
            return 0; // no entry can have expired: the walk would find nothing
        }
        long boundBefore = earliestExpiry.startSweep();
        Sweep sweep = new Sweep();
        boolean completed = false;
        try {
            ((OffHeapCacheImpl<K, Expirable<V>>) store).removeEntriesIf(sweep, sweep::endBatch);
            completed = true;
        } finally {
            if (completed) {
                earliestExpiry.endSweep(sweep.earliestLeft);
            } else {
                earliestExpiry.abandonSweep(boundBefore, sweep.earliestLeft);
            }
        }
        if (sweep.firstFailure != null) {
            throw sweep.firstFailure;
        }
        return sweep.removed;
    }

    /** One {@link #cleanUp()}: decides on each entry under the store's lock, delivers events between batches. */
    private final class Sweep implements OffHeapCacheImpl.Sweeper {
        /** The earliest expiry time of the entries left. */
        long earliestLeft = Expirable.NEVER;
        long removed;
        CacheEntryListenerException firstFailure;
        /** Whether a batch is under way: {@link #now} and {@link #told} are its. */
        private boolean inBatch;
        /** The batch's clock reading, taken at its first entry. */
        private long now;
        /** Whether a listener wants the batch's EXPIRED events. */
        private boolean told;
        /**
         * The batch's removals that have an event, one operation each as a read that finds an entry expired
         * has: each listener failure is its own, the first thrown at the sweep's end and the others suppressed.
         */
        private final List<Op> expiries = new ArrayList<>();

        @Override
        public boolean removes(MemorySegment key, MemorySegment value) {
            if (!inBatch) {
                inBatch = true;
                now = wallClock.getAsLong();
                told = false;
                for (ListenerRegistration<K, V> listener : listeners) {
                    told |= listener.wants(EventType.EXPIRED);
                }
            }
            long expiresAt = ExpirableSerializer.expiresAt(value);
            if (expiresAt > now) {
                earliestLeft = Math.min(earliestLeft, expiresAt);
                return false;
            }
            // what may throw first: an entry whose key or value cannot be read stays, as a compute that throws
            K k = readKey(key);
            V old = null;
            if (told) {
                insideCompute.set(Boolean.TRUE); // the value serializer runs under the store's lock
                try {
                    old = Expirable.stored(value.asSlice(ExpirableSerializer.HEADER_BYTES)
                            .toArray(ValueLayout.JAVA_BYTE), expiresAt, valueSerializer).value();
                } finally {
                    insideCompute.remove();
                }
            }
            changes.incrementAndGet(changeStripe(k)); // before the removal shows, as compute counts it
            if (told) {
                Op op = new Op();
                op.event(EventType.EXPIRED, k, old, old); // its turn, taken under the lock
                expiries.add(op);
            }
            removed++;
            return true;
        }

        /** After each batch, with no lock of the store held: its events, a listener's failure kept. */
        void endBatch() {
            inBatch = false;
            if (expiries.isEmpty()) {
                return;
            }
            List<Op> batch = new ArrayList<>(expiries);
            expiries.clear();
            Throwable error = null;
            for (Op op : batch) {
                try {
                    op.finish();
                } catch (CacheEntryListenerException e) {
                    // one listener's failure must not leave the other expired entries in place
                    if (firstFailure == null) {
                        firstFailure = e;
                    } else {
                        firstFailure.addSuppressed(e);
                    }
                } catch (RuntimeException | Error e) {
                    // thrown once the batch's other events are out: left undelivered, their turns would stay open
                    error = Failures.firstOrSuppressed(error, e);
                }
            }
            Failures.throwIfAny(error);
        }

        private K readKey(MemorySegment key) {
            return OffHeapCacheImpl.deserialize(keySerializer, key, "key");
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>The keys are looked up together ({@code OffHeapCache.getAllPresent}, which overlaps their
     * memory accesses), and with read-through the absent and expired ones are loaded with one
     * {@code CacheLoader.loadAll} call; keys it returns no value for are left out of the result. A loaded
     * value the store cannot hold (over the entry limit, or refused by its serializer) does not stop the
     * others: every other is stored, with its event, and then that failure is thrown as it is, the first in
     * the order of {@code keys}, with those of later keys suppressed in it. {@link #loadAll} stores what it
     * loaded the same way, and tells its listener that failure.
     */
    @Override
    public Map<K, V> getAll(Set<? extends K> keys) {
        ensureOpen();
        checkKeys(keys);
        Op op = new Op();
        boolean timed = op.timed;
        long start = op.startNanos;
        Map<K, V> result = new HashMap<>();
        boolean counted = false; // as in getValue: no keys, or a failed look-up, count no get and add no time
        Throwable notStored = null;
        long loadStart = 0;
        long loadEnd = 0;
        try {
            Map<K, Expirable<V>> stored;
            try {
                stored = store.getAllPresent(keys);
            } catch (RuntimeException | Error e) {
                forgetUnwritten();
                throw e;
            }
            // every live value read before any access expiry moves: a getAll that throws because one cannot be
            // deserialized served nothing, and renews (or expires) no entry it read before that one
            for (Expirable<V> entry : stored.values()) {
                if (!entry.isExpiredAt(op.now)) {
                    entry.value(); // kept for hitOrMiss
                }
            }
            List<K> missing = new ArrayList<>();
            for (K key : keys) {
                V value = hitOrMiss(key, stored.get(key), op);
                if (value != null) {
                    result.put(key, value);
                } else {
                    missing.add(key);
                }
            }
            countHitsAndMisses(result.size(), missing.size());
            counted = !keys.isEmpty();
            if (!missing.isEmpty() && readsThrough()) {
                long[] changesSeen = new long[missing.size()]; // before the loader reads: see getValue
                for (int i = 0; i < changesSeen.length; i++) {
                    changesSeen[i] = changes.get(changeStripe(missing.get(i)));
                }
                Map<K, V> loaded;
                loadStart = timed ? System.nanoTime() : 0;
                try {
                    loaded = loadManyMarked(missing);
                } finally {
                    loadEnd = timed ? System.nanoTime() : 0;
                }
                Map<ByteBuffer, V> loadedByBytes = null; // made at the first key the loader's map does not hold as is
                List<LoadedValue<K, V>> toStore = new ArrayList<>(missing.size());
                for (int i = 0; i < changesSeen.length; i++) {
                    K key = missing.get(i);
                    V value = loaded.get(key);
                    if (value == null && !loaded.isEmpty()) {
                        // The loader may have made its keys anew: equal by serialized bytes is equal here (an
                        // array key is not equal to its copy by equals).
                        if (loadedByBytes == null) {
                            loadedByBytes = byKeyBytes(loaded);
                        }
                        value = loadedByBytes.get(keyContent(key));
                    }
                    if (value != null) {
                        toStore.add(new LoadedValue<>(key, value, changesSeen[i]));
                    }
                }
                notStored = storeEach(toStore, one -> {
                    storeLoaded(one.key(), one.value(), false,
                            () -> changes.get(changeStripe(one.key())) != one.changesSeen(), op);
                    result.put(one.key(), one.value());
                });
            }
        } finally {
            if (counted && statisticsOn()) {
                // as in getValue: without the loader's time; not timed: switched on meanwhile
                statistics.getTime(timed ? System.nanoTime() - start - (loadEnd - loadStart) : 0);
            }
        }
        op.finishAfter(notStored);
        return result;
    }

    /** A value a read-through {@code getAll} loaded for a key, and the key's change count before the load. */
    private record LoadedValue<K, V>(K key, V value, long changesSeen) {
    }

    /** @return the loader's values by their keys' serialized bytes, as the store compares keys */
    private Map<ByteBuffer, V> byKeyBytes(Map<K, V> loaded) {
        Map<ByteBuffer, V> byBytes = new HashMap<>();
        for (Map.Entry<K, V> entry : loaded.entrySet()) {
            if (keyType.isInstance(entry.getKey()) && entry.getValue() != null) {
                byBytes.put(keyContent(entry.getKey()), entry.getValue());
            }
        }
        return byBytes;
    }

    @Override
    public boolean containsKey(K key) {
        ensureOpen();
        checkKey(key);
        long now = wallClock.getAsLong();
        Boolean live;
        try {
            live = store.read(key, stored -> ExpirableSerializer.expiresAt(stored) > now);
        } catch (RuntimeException | Error e) {
            forgetUnwritten();
            throw e;
        }
        return live != null && live;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The loader runs on a background thread of the cache, one {@code loadAll} at a time. A key that a
     * write call (put, remove, replace, an entry processor's write, clear...) writes while the loader runs,
     * whatever the call finds, keeps what that write left: the value loaded, read before the write, is not
     * stored for it. The other keys are stored as {@code replaceExistingValues} says.
     */
    @Override
    public void loadAll(Set<? extends K> keys, boolean replaceExistingValues, CompletionListener completionListener) {
        ensureOpen();
        checkKeys(keys);
        if (loader == null) {
            if (completionListener != null) {
                completionListener.onCompletion();
            }
            return;
        }
        List<K> requested = new ArrayList<>(keys);
        try {
            loadExecutor.execute(() -> {
                loading.set(Boolean.TRUE); // see close()
                try {
                    loadAndTell(requested, replaceExistingValues, completionListener);
                } finally {
                    loading.remove();
                }
            });
        } catch (RejectedExecutionException closedMeanwhile) {
            // close() shut the executor down after ensureOpen found the cache open: closed, as JCache words it
            throw new IllegalStateException("cache '" + name + "' is closed", closedMeanwhile);
        }
    }

    /** The task of {@link #loadAll}: loads, stores, then tells the listener, once, how it went. */
    private void loadAndTell(List<K> requested, boolean replaceExistingValues, CompletionListener completionListener) {
        Throwable failure = null;
        try {
            List<K> toLoad = new ArrayList<>();
            for (K key : requested) {
                if (replaceExistingValues || !containsKey(key)) {
                    toLoad.add(key);
                }
            }
            // Before the loader reads its source: a write after this may be newer than what it reads. The
            // keys asked for are followed one by one; a key the loader returns unasked by its stripe's count.
            KeysBeingLoaded marks = keysToFollow(toLoad);
            long[] stripeCounts = new long[CHANGE_STRIPES];
            for (int stripe = 0; stripe < CHANGE_STRIPES; stripe++) {
                stripeCounts[stripe] = changes.get(stripe);
            }
            keysBeingLoaded = marks;
            try {
                Map<K, V> loaded = loadManyMarked(toLoad);
                Op op = new Op();
                Throwable notStored = storeEach(loaded.entrySet(), entry -> {
                    K key = entry.getKey();
                    if (key != null && entry.getValue() != null) {
                        ByteBuffer content = keyContent(key);
                        int stripe = changeStripe(key);
                        storeLoaded(key, entry.getValue(), replaceExistingValues, marks.holds(content)
                                ? () -> marks.writtenSince(content)
                                : () -> changes.get(stripe) != stripeCounts[stripe], op);
                    }
                });
                op.finishAfter(notStored);
            } finally {
                keysBeingLoaded = null;
            }
        } catch (Throwable t) {
            failure = t;
        }
        // Told exactly once: an exception of onCompletion itself is not the load's, and goes to the thread.
        if (completionListener != null) {
            if (failure == null) {
                completionListener.onCompletion();
            } else {
                // Whatever fails, the listener must hear of it: a caller may wait on it (CompletionListenerFuture).
                completionListener.onException(failure instanceof Exception e ? e
                        : new CacheException("loadAll of cache '" + name + "' failed: " + failure, failure));
            }
        }
        if (failure instanceof Error error) {
            throw error;
        }
    }

    /**
     * @return the keys {@code loadAll} asks its loader for, to be marked by the writes made while it loads;
     *         a key the key serializer cannot write is left out (the store fails its store, and says so)
     */
    private KeysBeingLoaded keysToFollow(List<K> keys) {
        List<ByteBuffer> contents = new ArrayList<>(keys.size());
        int[] stripes = new int[keys.size()];
        for (K key : keys) {
            ByteBuffer content;
            try {
                content = keyContent(key);
            } catch (RuntimeException e) {
                continue;
            }
            stripes[contents.size()] = changeStripe(key);
            contents.add(content);
        }
        return new KeysBeingLoaded(contents, Arrays.copyOf(stripes, contents.size()), CHANGE_STRIPES);
    }

    /**
     * The store calls of an operation on many keys, one per item ({@code storeOne}, which makes its own
     * events and counts): one that fails (a value over the entry limit or refused by its serializer, a key
     * longer than the store takes) does not stop the others; it stopped them, and the keys after it were
     * neither stored nor removed. A failure that every later call would meet too (the cache closed
     * meanwhile) ends the loop.
     *
     * @return the first failure, the later ones suppressed in it, for {@link Op#finishAfter}; null if none
     */
    private <T> Throwable storeEach(Iterable<T> items, Consumer<? super T> storeOne) {
        // once the cache or its store is closed, nothing more can be stored
        return Failures.forEach(items, storeOne, () -> closed || store.isClosed());
    }

    /**
     * Stores a value a loader returned, with a CREATED event (and an EXPIRED one for an expired entry it
     * replaces), unless its creation expiry is already over. A live entry is replaced only if
     * {@code replaceExisting}. Loads run outside the store's lock: a write of the key while the loader ran
     * wins over the load, whose value may be older than it.
     *
     * @param changedMeanwhile asked under the store's lock: whether the key was written (or may have been)
     *                         since before the loader ran; if so nothing is stored
     */
    private void storeLoaded(K key, V value, boolean replaceExisting, BooleanSupplier changedMeanwhile, Op op) {
        compute(key, op, (k, old) -> {
            if (changedMeanwhile.getAsBoolean()) {
                return old; // changed while it loaded: the value loaded may be older than that change
            }
            Expirable<V> live = live(old, op.now);
            if (live == null) {
                return op.create(key, value, old);
            }
            return replaceExisting ? op.update(key, value, live) : old;
        }, Change.NEVER);
    }

    // ---------------------------------------------------------------------------------------------------
    // Writes

    @Override
    public void put(K key, V value) {
        ensureOpen();
        checkKey(key);
        checkValue(value);
        Op op = new Op();
        if (eternal && listeners.isEmpty() && (writer == null || !configuration.isWriteThrough())) {
            // Nothing to ask the old entry: every entry lives forever, nobody listens, nothing writes
            // through. A plain put skips compute's read of the old value.
            countWrite(key); // before the change shows, as compute does
            try {
                store.put(key, Expirable.of(value, Expirable.NEVER));
            } catch (RuntimeException | Error e) {
                forgetUnwritten();
                throw e;
            }
            op.stored = 1;
        } else {
            compute(key, op, (k, old) -> putInside(key, value, old, op));
        }
        op.finish(() -> {
            if (statisticsOn() && op.stored > 0) {
                statistics.puts(op.stored, op.elapsedNanos());
            }
        });
    }

    /**
     * A put inside the store's compute: writes through, then stores with the right expiry and event. What
     * the store or the old value's decoding will refuse is thrown before the writer writes
     * ({@link #storable}, {@link #decodeForEvents}).
     */
    private Expirable<V> putInside(K key, V value, Expirable<V> old, Op op) {
        Expirable<V> prepared = null;
        if (writesThrough()) {
            prepared = storable(value, op.keyBytes);
            decodeForEvents(old);
            try {
                write(key, value);
            } catch (RuntimeException e) {
                op.failure = e;
                return old;
            }
        }
        Expirable<V> live = live(old, op.now);
        return live == null ? op.create(key, value, prepared, old) : op.update(key, value, prepared, live);
    }

    @Override
    public V getAndPut(K key, V value) {
        ensureOpen();
        checkKey(key);
        checkValue(value);
        Op op = new Op();
        V old = putAndGetOld(key, value, op, false);
        op.finish(() -> {
            if (statisticsOn()) {
                statistics.get(old != null);
                if (op.stored > 0) { // not where the entry expired at its creation: no put, so no put time
                    statistics.puts(op.stored, op.elapsedNanos());
                }
                statistics.getTime(op.elapsedNanos());
            }
        });
        return old;
    }

    /**
     * The compute of {@code getAndPut} and {@code getAndReplace}: puts {@code value}, where
     * {@code onlyIfPresent} only over a live entry; the caller finishes {@code op}.
     *
     * @return the live value the put replaced; null where there was none or the put failed
     */
    private V putAndGetOld(K key, V value, Op op, boolean onlyIfPresent) {
        List<V> previous = new ArrayList<>(1);
        compute(key, op, (k, old) -> {
            Expirable<V> live = live(old, op.now);
            if (onlyIfPresent && live == null) {
                return dropExpired(key, old, op);
            }
            // Decoded before a writer writes (a value that cannot be read fails the call first), and a copy
            // of the caller's own, not the UPDATED event's old value: a listener changing that in place
            // cannot change what the caller gets, nor the caller what an asynchronous listener still sees.
            V was = live == null ? null : live.copyOfValue();
            Expirable<V> result = putInside(key, value, old, op);
            if (op.failure == null && was != null) {
                previous.add(was);
            }
            return result;
        });
        return previous.isEmpty() ? null : previous.get(0);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The entries are written through and stored in the map's iteration order. Where the cache writer's
     * {@code writeAll} fails, only the entries it wrote (those it removed from its collection) are stored,
     * and its {@code CacheWriterException} is thrown once they are. An entry the store cannot hold (a value
     * over the entry limit, or refused by its serializer) does not stop the others: every other entry is
     * stored, with its event and its put counted, and then that failure is thrown as it is, the first in
     * the map's order, with those of later entries, a synchronous listener's failure and the writer's
     * failure suppressed in it. With write-through, such an entry is found before the writer runs and left
     * out of its {@code writeAll}, which gets the other entries (none: no call).
     */
    @Override
    public void putAll(Map<? extends K, ? extends V> map) {
        ensureOpen();
        Objects.requireNonNull(map, "map");
        for (Map.Entry<? extends K, ? extends V> entry : map.entrySet()) {
            checkKey(entry.getKey());
            checkValue(entry.getValue());
        }
        Op op = new Op();
        Map<K, V> toPut = new LinkedHashMap<>(map);
        CacheWriterException failure = null;
        // With write-through: each entry serialized and checked before the writer runs, so that it writes
        // only those the store will hold; a refused one throws its failure where it comes in the map's order.
        Map<K, Expirable<V>> prepared = null;
        Map<K, RuntimeException> refused = Map.of();
        if (writesThrough()) {
            prepared = new HashMap<>();
            Collection<Cache.Entry<? extends K, ? extends V>> unwritten = new ArrayList<>(toPut.size());
            try {
                for (Map.Entry<K, V> entry : toPut.entrySet()) {
                    try {
                        int keyBytes = storeImpl().serializedKeyBytes(entry.getKey());
                        prepared.put(entry.getKey(), storable(entry.getValue(), keyBytes));
                        unwritten.add(new CacheEntry<>(entry.getKey(), entry.getValue()));
                    } catch (RuntimeException e) {
                        if (refused.isEmpty()) {
                            refused = new HashMap<>();
                        }
                        refused.put(entry.getKey(), e);
                    }
                }
            } finally {
                forgetUnwritten(); // a key refused on its length after Java serialization measured it
            }
            if (!unwritten.isEmpty() || refused.isEmpty()) {
                try {
                    writer.writeAll(unwritten);
                } catch (CacheWriterException e) {
                    failure = e;
                } catch (Exception e) { // checked ones too, see write
                    failure = new CacheWriterException("cache writer failed to write " + unwritten.size()
                            + " entries: " + e, e);
                }
            }
            if (failure != null) {
                // The writer leaves the entries it could not write in the collection: those stay out.
                for (Cache.Entry<? extends K, ? extends V> entry : unwritten) {
                    toPut.remove(entry.getKey());
                }
            }
        }
        // Counted as the entries are stored: a store call that fails (a value over the entry limit) stores
        // nothing, and counts no put.
        long[] stored = new long[1];
        Map<K, Expirable<V>> serialized = prepared;
        Map<K, RuntimeException> refusals = refused;
        Throwable notStored = storeEach(toPut.entrySet(), entry -> {
            K key = entry.getKey();
            V value = entry.getValue();
            RuntimeException refusal = refusals.get(key);
            if (refusal != null) {
                throw refusal;
            }
            Expirable<V> ready = serialized == null ? null : serialized.get(key);
            int storedBefore = op.stored;
            compute(key, op, (k, old) -> {
                Expirable<V> live = live(old, op.now);
                return live == null ? op.create(key, value, ready, old) : op.update(key, value, ready, live);
            });
            stored[0] += op.stored - storedBefore; // op.stored counts the entry before the store call succeeds
        });
        if (statisticsOn() && stored[0] > 0) {
            statistics.puts(stored[0], op.elapsedNanos());
        }
        op.failure = failure; // suppressed in a store call's failure, which the caller would not hear of otherwise
        op.finishAfter(notStored);
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        ensureOpen();
        checkKey(key);
        checkValue(value);
        Op op = new Op();
        boolean[] stored = new boolean[1];
        // A live entry answers without compute, which would rewrite it; present at this read means the
        // put-if-absent fails at this point in time.
        Boolean present;
        try {
            present = store.read(key, bytes -> ExpirableSerializer.expiresAt(bytes) > op.now);
        } catch (RuntimeException | Error e) {
            forgetUnwritten();
            throw e;
        }
        if (present != null && present) {
            if (statisticsOn()) {
                statistics.hits(1);
            }
            return false;
        }
        compute(key, op, (k, old) -> {
            if (live(old, op.now) != null) {
                return old;
            }
            Expirable<V> result = putInside(key, value, old, op);
            stored[0] = op.failure == null;
            return result;
        });
        op.finish(() -> {
            if (statisticsOn()) {
                statistics.get(!stored[0]);
                if (op.stored > 0) { // not where the entry expired at its creation, as in getAndPut
                    statistics.puts(op.stored, op.elapsedNanos());
                }
            }
        });
        return stored[0];
    }

    @Override
    public boolean remove(K key) {
        ensureOpen();
        checkKey(key);
        Op op = new Op();
        boolean[] removed = new boolean[1];
        compute(key, op, (k, old) -> {
            removed[0] = removeInside(key, old, op) != null;
            return op.failure == null ? null : old;
        });
        op.finish(() -> {
            if (removed[0] && statisticsOn()) {
                statistics.removals(1, op.elapsedNanos());
            }
        });
        return removed[0];
    }

    /**
     * A remove inside the store's compute: deletes through, then drops the entry with a REMOVED event, or
     * an EXPIRED one where it had expired. The caller's compute returns null, or {@code old} where
     * {@code op.failure} says the writer failed.
     *
     * @return the live entry removed; null where none was or the writer failed
     */
    private Expirable<V> removeInside(K key, Expirable<V> old, Op op) {
        decodeForEvents(old); // an old value the events cannot read fails the remove before the writer deletes
        try {
            delete(key);
        } catch (RuntimeException e) {
            op.failure = e;
            return null;
        }
        Expirable<V> live = live(old, op.now);
        if (live != null) {
            op.gone(EventType.REMOVED, key, live);
        } else if (old != null) {
            op.gone(EventType.EXPIRED, key, old);
        }
        return live;
    }

    @Override
    public boolean remove(K key, V oldValue) {
        ensureOpen();
        checkKey(key);
        checkValue(oldValue);
        Op op = new Op();
        Match outcome = applyIfEquals(key, oldValue, op, (old, live) -> {
            removeInside(key, old, op);
            return op.failure == null ? null : old;
        });
        boolean removed = outcome == Match.APPLIED;
        op.finish(() -> {
            countFound(outcome);
            if (removed && statisticsOn()) {
                statistics.removals(1, op.elapsedNanos());
            }
        });
        return removed;
    }

    /** What {@link #applyIfEquals} found and did. */
    private enum Match {
        /** No live entry, or the change failed. */
        ABSENT,
        /** A live entry with another value: only accessed. */
        DIFFERENT,
        /** A live entry with the expected value: changed. */
        APPLIED
    }

    /**
     * The compare-and-change of {@code remove(key, oldValue)} and {@code replace(key, oldValue, newValue)}:
     * inside the store's compute, a live entry whose value equals {@code expected} (arrays by content, as
     * {@link Objects#deepEquals}) becomes what
     * {@code change} returns, a live entry with another value is accessed (its expiry renewed by the
     * access rule). The caller finishes {@code op} and counts what was found ({@link #countFound}).
     *
     * @param change from the old stored entry and the live one, the entry to store (null: none); sets
     *     {@code op.failure} where it fails
     * @return what was found and done
     */
    private Match applyIfEquals(K key, V expected, Op op, BiFunction<Expirable<V>, Expirable<V>, Expirable<V>> change) {
        Match[] outcome = {Match.ABSENT};
        compute(key, op, (k, old) -> {
            Expirable<V> live = live(old, op.now);
            if (live == null) {
                return dropExpired(key, old, op);
            }
            // by content for arrays (deepEquals): by equals, identity, a copy read from the store never matched
            if (!Objects.deepEquals(live.value(), expected)) {
                outcome[0] = Match.DIFFERENT;
                return live.withExpiry(accessExpiry(op.now, live.expiresAtMillis()));
            }
            Expirable<V> result = change.apply(old, live);
            if (op.failure == null) {
                outcome[0] = Match.APPLIED;
            }
            return result;
        });
        return outcome[0];
    }

    /** Counts the hit (a live entry) or miss of a compare-and-change ({@link #applyIfEquals}). */
    private void countFound(Match outcome) {
        if (statisticsOn()) {
            statistics.get(outcome != Match.ABSENT);
        }
    }

    @Override
    public V getAndRemove(K key) {
        ensureOpen();
        checkKey(key);
        Op op = new Op();
        List<V> previous = new ArrayList<>(1);
        compute(key, op, (k, old) -> {
            Expirable<V> found = live(old, op.now);
            // decoded before a writer deletes, and the caller's own copy, not the REMOVED event's value
            V was = found == null ? null : found.copyOfValue();
            if (removeInside(key, old, op) != null) {
                previous.add(was);
            }
            return op.failure == null ? null : old;
        });
        V old = previous.isEmpty() ? null : previous.get(0);
        op.finish(() -> {
            if (statisticsOn()) {
                statistics.get(old != null);
                if (old != null) {
                    statistics.removals(1, op.elapsedNanos());
                }
                statistics.getTime(op.elapsedNanos());
            }
        });
        return old;
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        ensureOpen();
        checkKey(key);
        checkValue(oldValue);
        checkValue(newValue);
        Op op = new Op();
        Match outcome = applyIfEquals(key, oldValue, op, (old, live) -> putInside(key, newValue, old, op));
        boolean replaced = outcome == Match.APPLIED;
        op.finish(() -> {
            countFound(outcome);
            if (replaced && statisticsOn()) {
                statistics.puts(1, op.elapsedNanos());
            }
        });
        return replaced;
    }

    @Override
    public boolean replace(K key, V value) {
        return getAndReplace(key, value, false) != null;
    }

    @Override
    public V getAndReplace(K key, V value) {
        return getAndReplace(key, value, true);
    }

    private V getAndReplace(K key, V value, boolean countsGet) {
        ensureOpen();
        checkKey(key);
        checkValue(value);
        Op op = new Op();
        V old = putAndGetOld(key, value, op, true);
        op.finish(() -> {
            if (statisticsOn()) {
                statistics.get(old != null);
                if (old != null) {
                    statistics.puts(1, op.elapsedNanos());
                }
                if (countsGet) {
                    statistics.getTime(op.elapsedNanos());
                }
            }
        });
        return old;
    }

    @Override
    public void removeAll(Set<? extends K> keys) {
        ensureOpen();
        checkKeys(keys);
        removeKeys(new LinkedHashSet<>(keys));
    }

    @Override
    public void removeAll() {
        ensureOpen();
        Set<K> keys = new LinkedHashSet<>();
        for (Iterator<K> it = store.keys(); it.hasNext(); ) {
            keys.add(it.next());
        }
        removeKeys(keys);
    }

    /**
     * Deletes the keys through the writer, then removes those it deleted (all, unless its {@code deleteAll}
     * failed). A key the store refuses (longer than a key may be) does not stop the others: each other key
     * is removed, with its event and its removal counted, and then that failure is thrown, the first in the
     * order of {@code keys}, with later ones, a synchronous listener's failure and the writer's suppressed.
     */
    private void removeKeys(Set<K> keys) {
        Op op = new Op();
        Set<K> toRemove = new LinkedHashSet<>(keys);
        CacheWriterException failure = null;
        if (writer != null && configuration.isWriteThrough() && !keys.isEmpty()) {
            Collection<K> undeleted = new ArrayList<>(keys);
            try {
                writer.deleteAll(undeleted);
            } catch (CacheWriterException e) {
                failure = e;
            } catch (Exception e) { // checked ones too, see write
                failure = new CacheWriterException("cache writer failed to delete " + keys.size() + " keys: " + e, e);
            }
            if (failure != null) {
                // The writer leaves the keys it could not delete in the collection: those stay cached.
                toRemove.removeAll(undeleted);
            }
        }
        // a key the store refuses (longer than a key may be) does not stop the others, which the writer deleted
        long[] removed = new long[1];
        Throwable notRemoved = storeEach(toRemove, key -> {
            boolean[] was = new boolean[1];
            compute(key, op, (k, old) -> {
                if (old == null) {
                    return null;
                }
                if (old.isExpiredAt(op.now)) {
                    op.gone(EventType.EXPIRED, key, old);
                } else {
                    op.gone(EventType.REMOVED, key, old);
                    was[0] = true;
                }
                return null;
            });
            if (was[0]) {
                removed[0]++;
            }
        });
        op.failure = failure;
        if (statisticsOn() && removed[0] > 0) {
            statistics.removals(removed[0], op.elapsedNanos());
        }
        op.finishAfter(notRemoved);
    }

    @Override
    public void clear() {
        ensureOpen();
        for (int stripe = 0; stripe < CHANGE_STRIPES; stripe++) {
            changes.incrementAndGet(stripe);
        }
        KeysBeingLoaded loads = keysBeingLoaded;
        if (loads != null) {
            loads.cleared();
        }
        store.invalidateAll();
    }

    // ---------------------------------------------------------------------------------------------------
    // Entry processors

    @Override
    public <T> T invoke(K key, EntryProcessor<K, V, T> entryProcessor, Object... arguments) {
        ensureOpen();
        checkKey(key);
        Objects.requireNonNull(entryProcessor, "entryProcessor");
        Op op = new Op();
        List<T> result = new ArrayList<>(1);
        boolean[] existed = new boolean[1];
        ProcessorEntry.Operation[] done = new ProcessorEntry.Operation[1];
        compute(key, op, (k, old) -> {
            Expirable<V> live = live(old, op.now);
            existed[0] = live != null;
            ProcessorEntry<K, V> entry =
                    new ProcessorEntry<>(key, live, readsThrough() ? loader : null, valueType, name);
            try {
                result.add(entryProcessor.process(entry, arguments));
            } catch (EntryProcessorException e) {
                op.failure = e;
                return old;
            } catch (Exception e) {
                // JCache wants any Exception wrapped: checked ones too, which reach Java code undeclared
                // from Kotlin, Groovy, Scala or Lombok's @SneakyThrows
                op.failure = new EntryProcessorException("entry processor failed on key " + key + ": " + e, e);
                return old;
            }
            done[0] = entry.operation();
            if (done[0] == ProcessorEntry.Operation.CREATE || done[0] == ProcessorEntry.Operation.UPDATE
                    || done[0] == ProcessorEntry.Operation.REMOVE) {
                // a write, whatever it finds (a remove of an absent key deletes through the writer): a
                // read-through load or loadAll of the key running meanwhile must not store what it read before
                countWrite(key);
            }
            try {
                return applyProcessed(key, entry, old, live, op);
            } catch (RuntimeException e) {
                op.failure = e;
                done[0] = null;
                return old;
            }
        }, Change.IF_CHANGED); // a processor that only reads is no write; its writes were counted above
        op.finish(() -> {
            if (statisticsOn()) {
                statistics.get(existed[0]);
                statistics.getTime(op.elapsedNanos());
                // a value the processor's getValue loaded (read-through) and left is a load, no put, as a
                // read-through get's is: JCache's table of statistics effects and the reference implementation
                if (op.stored > 0 && done[0] != ProcessorEntry.Operation.LOAD) {
                    statistics.puts(op.stored, op.elapsedNanos());
                } else if (done[0] == ProcessorEntry.Operation.REMOVE && existed[0]) {
                    statistics.removals(1, op.elapsedNanos());
                }
            }
        });
        return result.isEmpty() ? null : result.get(0);
    }

    private Expirable<V> applyProcessed(K key, ProcessorEntry<K, V> entry, Expirable<V> old, Expirable<V> live, Op op) {
        switch (entry.operation()) {
            case NONE -> {
                return live != null ? old : dropExpired(key, old, op);
            }
            case ACCESS -> {
                return live.withExpiry(accessExpiry(op.now, live.expiresAtMillis()));
            }
            case CREATE, LOAD -> {
                Expirable<V> prepared = null;
                if (entry.operation() == ProcessorEntry.Operation.CREATE && writesThrough()) {
                    // what the store or the events will refuse, refused before the writer writes
                    prepared = storable(entry.value(), op.keyBytes);
                    decodeForEvents(old);
                    write(key, entry.value());
                }
                return op.create(key, entry.value(), prepared, old);
            }
            case UPDATE -> {
                Expirable<V> prepared = null;
                if (writesThrough()) {
                    prepared = storable(entry.value(), op.keyBytes);
                    decodeForEvents(old);
                    write(key, entry.value());
                }
                return op.update(key, entry.value(), prepared, live);
            }
            case REMOVE -> {
                decodeForEvents(old);
                delete(key);
                if (live != null) {
                    op.gone(EventType.REMOVED, key, live);
                } else if (old != null) {
                    op.gone(EventType.EXPIRED, key, old); // dropped here: nothing else will report it
                }
                return null;
            }
            default -> throw new AssertionError(entry.operation());
        }
    }

    @Override
    public <T> Map<K, EntryProcessorResult<T>> invokeAll(Set<? extends K> keys, EntryProcessor<K, V, T> entryProcessor,
                                                         Object... arguments) {
        ensureOpen();
        checkKeys(keys);
        Objects.requireNonNull(entryProcessor, "entryProcessor");
        Map<K, EntryProcessorResult<T>> results = new HashMap<>();
        for (K key : keys) {
            try {
                T result = invoke(key, entryProcessor, arguments);
                if (result != null) {
                    results.put(key, () -> result);
                }
            } catch (Exception e) {
                EntryProcessorException failure = e instanceof EntryProcessorException processorException
                        ? processorException : new EntryProcessorException(e);
                results.put(key, () -> {
                    throw failure;
                });
            }
        }
        return results;
    }

    // ---------------------------------------------------------------------------------------------------
    // Listeners

    @Override
    public void registerCacheEntryListener(CacheEntryListenerConfiguration<K, V> listenerConfiguration) {
        ensureOpen();
        Objects.requireNonNull(listenerConfiguration, "cacheEntryListenerConfiguration");
        // Throws IllegalArgumentException if that configuration is registered already, as JCache wants.
        synchronized (configuration) { // see getConfiguration
            configuration.addCacheEntryListenerConfiguration(listenerConfiguration);
        }
        ListenerRegistration<K, V> registration;
        try {
            registration = new ListenerRegistration<>(listenerConfiguration);
        } catch (RuntimeException | Error e) {
            // Its listener or filter factory threw: nothing is registered. Left in the configuration, it was
            // reported as a listener of the cache, and every later registration of it refused as a duplicate.
            synchronized (configuration) {
                configuration.removeCacheEntryListenerConfiguration(listenerConfiguration);
            }
            throw e;
        }
        listeners.add(registration);
        if (closed) {
            // close() ran meanwhile (while the factory made the listener) and may have closed the listeners
            // before this one joined them: close it here (a second close does nothing), or nobody would
            listeners.remove(registration);
            registration.close();
        }
    }

    @Override
    public void deregisterCacheEntryListener(CacheEntryListenerConfiguration<K, V> listenerConfiguration) {
        ensureOpen();
        Objects.requireNonNull(listenerConfiguration, "cacheEntryListenerConfiguration");
        for (ListenerRegistration<K, V> registration : listeners) {
            if (registration.configuration().equals(listenerConfiguration)) {
                listeners.remove(registration);
                registration.close();
            }
        }
        synchronized (configuration) { // see getConfiguration
            configuration.removeCacheEntryListenerConfiguration(listenerConfiguration);
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Iteration

    @Override
    public Iterator<Cache.Entry<K, V>> iterator() {
        ensureOpen();
        Iterator<Map.Entry<K, Expirable<V>>> entries = store.entries();
        return new Iterator<>() {
            private CacheEntry<K, V> next;
            /** The key of the next entry as the store gave it; the entry holds a copy (see copyOfKey). */
            private K nextKey;
            /** The key of the entry {@code next()} returned last, null once removed. */
            private K lastKey;

            @Override
            public boolean hasNext() {
                ensureOpen();
                while (next == null && entries.hasNext()) {
                    Map.Entry<K, Expirable<V>> candidate = entries.next();
                    Expirable<V> stored = candidate.getValue();
                    // the clock of this look, not of the iterator's creation: with that one an iteration that
                    // went on handed out entries expired since, and an access expiry renewed them from then
                    long now = wallClock.getAsLong();
                    if (stored.isExpiredAt(now)) {
                        continue;
                    }
                    K key = candidate.getKey();
                    long at = accessExpiry(now, stored.expiresAtMillis());
                    if (at != stored.expiresAtMillis()) {
                        renewAccessed(key, stored.expiresAtMillis(), at);
                    }
                    // the caller may change the entry's key in place: remove() must still find this one
                    next = new CacheEntry<>(copyOfKey(key), stored.value());
                    nextKey = key;
                }
                return next != null;
            }

            @Override
            public Cache.Entry<K, V> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Cache.Entry<K, V> last = next;
                lastKey = nextKey;
                next = null;
                nextKey = null;
                if (statisticsOn()) {
                    statistics.hits(1);
                }
                return last;
            }

            @Override
            public void remove() {
                ensureOpen();
                if (lastKey == null) {
                    throw new IllegalStateException("next() must be called before remove()");
                }
                K key = lastKey;
                lastKey = null;
                Op op = new Op();
                boolean[] removed = new boolean[1];
                compute(key, op, (k, old) -> {
                    decodeForEvents(old); // one its events cannot read fails the remove before the writer deletes
                    try {
                        delete(key);
                    } catch (RuntimeException e) {
                        op.failure = e;
                        return old;
                    }
                    if (old == null) {
                        return null;
                    }
                    if (old.isExpiredAt(op.now)) {
                        // expired since next() handed it out: dropped as a get would drop it, not removed
                        op.gone(EventType.EXPIRED, key, old);
                    } else {
                        op.gone(EventType.REMOVED, key, old);
                        removed[0] = true;
                    }
                    return null;
                });
                op.finish(() -> {
                    if (removed[0] && statisticsOn()) {
                        statistics.removals(1, op.elapsedNanos());
                    }
                });
            }
        };
    }

    // ---------------------------------------------------------------------------------------------------
    // Identity, configuration, management, lifecycle

    @Override
    public String getName() {
        return name;
    }

    @Override
    public CacheManager getCacheManager() {
        return manager;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The configuration is an {@link OffHeapConfiguration} (ask for it or any of its supertypes): a copy
     * of the cache's own, taken at this call. JCache wants the returned value immutable; a copy is as good
     * for the cache, since changing it changes neither the cache nor what later calls return. What the cache
     * itself changes later (listeners registered, statistics or management switched) shows in later copies.
     */
    @Override
    public <C extends Configuration<K, V>> C getConfiguration(Class<C> type) {
        Objects.requireNonNull(type, "type");
        if (type.isInstance(configuration)) {
            OffHeapConfiguration<K, V> copy;
            synchronized (configuration) { // against a listener (de)registration changing its set meanwhile
                copy = new OffHeapConfiguration<>(configuration);
            }
            return type.cast(copy);
        }
        throw new IllegalArgumentException("the configuration of cache '" + name + "' is a "
                + configuration.getClass().getName() + ", not a " + type.getName());
    }

    /**
     * Switches statistics, registering or unregistering the statistics bean. Does nothing once the cache is
     * closed: the manager's {@code enableStatistics} may have found the cache open just before a close.
     */
    void setStatisticsEnabled(boolean enabled) {
        synchronized (configuration) { // see getConfiguration
            configuration.setStatisticsEnabled(enabled);
            statistics.enabled(enabled); // under the same lock: two switches racing leave both in one state
        }
        if (enabled) {
            registerUnlessClosed(statistics, statisticsName);
        } else {
            MBeans.unregister(statistics, statisticsName);
        }
    }

    /** Switches management as {@link #setStatisticsEnabled} switches statistics. */
    void setManagementEnabled(boolean enabled) {
        synchronized (configuration) { // see getConfiguration
            configuration.setManagementEnabled(enabled);
        }
        if (enabled) {
            registerUnlessClosed(configurationBean, configurationName);
        } else {
            MBeans.unregister(configurationBean, configurationName);
        }
    }

    /**
     * Registers a bean of this cache unless it is closed. Under the lock close() sets {@code closed} with:
     * a registration after close() had unregistered its beans (an enableStatistics that found the cache
     * open just before) left the closed cache's bean in the platform server for good, holding the cache,
     * and a new cache of the name found the name taken and got none.
     */
    private synchronized void registerUnlessClosed(Object bean, ObjectName objectName) {
        if (!closed) {
            MBeans.register(bean, objectName);
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Every step runs even where one throws (a user's close() that throws an Error, an MBean server that
        // refuses): the first failure is thrown at the end, after the store freed the off-heap memory.
        Throwable failure = null;
        try {
            if (cleanUpRuns != null) {
                cleanUpRuns.cancel(false);
            }
            // MBeans first: once the name is released a new cache of that name may register its own under the
            // same object names, and unregistering after that would take away the new cache's
            failure = Failures.run(failure, () -> MBeans.unregister(statistics, statisticsName));
            failure = Failures.run(failure,
                    () -> MBeans.unregister(configurationBean, configurationName));
            manager.release(name, this);
            loadExecutor.shutdown();
            // A loadAll task's completion listener that closes the cache runs on the load thread: waiting for
            // that thread to end would wait for itself, the whole 10 seconds.
            if (loading.get() == null) {
                try {
                    loadExecutor.awaitTermination(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            failure = Failures.run(failure, this::closeUserResources);
        } finally {
            evictionsAtClose = evictionsSinceStart(); // still open: the store's own count
            store.close();
        }
        Failures.throwIfAny(failure);
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /**
     * Unwraps to this cache or to the {@link OffHeapCache} that stores its entries. The off-heap cache holds
     * each value as an expiry time followed by the serialized value; use it to read statistics and sizes,
     * not to change entries behind JCache's back.
     */
    @Override
    public <T> T unwrap(Class<T> type) {
        Objects.requireNonNull(type, "type");
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        if (type.isInstance(store)) {
            return type.cast(store);
        }
        throw new IllegalArgumentException("cache '" + name + "' cannot be unwrapped to " + type.getName()
                + "; it unwraps to " + OffHeapJCache.class.getName() + " or " + OffHeapCache.class.getName());
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("cache '" + name + "' is closed");
        }
        if (insideCompute.get() != null) {
            throw new IllegalStateException("cache '" + name + "' was called from its own cache writer, loader,"
                    + " expiry policy or entry processor, which run under the lock of an entry: not supported");
        }
    }

    /**
     * {@link OffHeapCache#compute} with the current thread marked as inside it, so that user code running
     * there (writer, expiry policy, entry processor and its loads) cannot call this cache: the off-heap
     * cache would refuse a call for the same segment, and one for another segment could deadlock with a
     * thread doing the reverse.
     */
    private void compute(K key, Op op, BiFunction<K, Expirable<V>, Expirable<V>> remapping) {
        compute(key, op, remapping, Change.EVERY_CALL);
    }

    /** What a {@link #compute} counts in {@link #changes}. */
    private enum Change {
        /**
         * A write call, counted whatever it finds or does: a read-through load running meanwhile must not
         * store the value it read before it. A removal or conditional write that finds the key absent (a
         * {@code remove(key)} whose writer deleted the key from the source, a {@code replace}) counted
         * nothing, and the load's older value was stored after it.
         */
        EVERY_CALL,
        /** A read's own upkeep (an expired entry dropped, an access expiry written back): counted if it changes the entry. */
        IF_CHANGED,
        /** A read-through load's own store, or a getAll's first store would stop its stores of the stripe's other keys. */
        NEVER
    }

    /**
     * @param op     the operation whose events {@code remapping} records, or null if it records none
     * @param counts what counts in {@link #changes}
     */
    private void compute(K key, Op op, BiFunction<K, Expirable<V>, Expirable<V>> remapping, Change counts) {
        try {
            storeImpl().compute(key, (k, keyBytes, old) -> {
                if (op != null) {
                    op.keyBytes = keyBytes;
                }
                insideCompute.set(Boolean.TRUE);
                Expirable<V> result;
                try {
                    result = remapping.apply(key, old);
                } finally {
                    insideCompute.remove();
                }
                // under the store's lock, before the change shows
                if (counts == Change.EVERY_CALL) {
                    countWrite(key);
                } else if (counts == Change.IF_CHANGED && result != old) {
                    changes.incrementAndGet(changeStripe(key)); // a read's upkeep: no write a loadAll must yield to
                }
                return result;
            });
        } catch (RuntimeException | Error e) {
            forgetUnwritten();
            // The new value never showed (a serializer failed, the value is over the limit, the cache
            // closed): drop the events it made and give up their turns, or the keys' later events would
            // wait for them.
            if (op != null) {
                op.abandonEvents(e);
            }
            throw e;
        }
        if (op != null) {
            op.deliver(); // now, not at the operation's end: its turns would hold up other threads meanwhile
        }
    }

    /**
     * Counts a write call of {@code key}, whatever it found or did, in {@link #changes} and, if a
     * {@code loadAll} loads the key, in {@link #keysBeingLoaded}: a load running meanwhile does not store the
     * value it read before the write. Called before the change shows (under the store's lock of the key,
     * where there is one); the key is serialized only where the loadAll's keys share its stripe.
     */
    private void countWrite(K key) {
        int stripe = changeStripe(key);
        changes.incrementAndGet(stripe);
        KeysBeingLoaded loads = keysBeingLoaded;
        if (loads != null && loads.mayHold(stripe)) {
            loads.written(keyContent(key));
        }
    }

    /** @return the store as its implementation, for what the JCache layer asks beyond its API */
    private OffHeapCacheImpl<K, Expirable<V>> storeImpl() {
        return (OffHeapCacheImpl<K, Expirable<V>>) store;
    }

    /**
     * After a store call that threw: drops the bytes Java serialization made for a key's or value's
     * {@code serializedSize} and keeps for the {@code write} that follows ({@link JavaSerializer}), which
     * never came where the store refused the key or value on that size. Kept, they and the object they
     * came from stayed reachable from this thread until its next call of this cache, if ever.
     */
    private void forgetUnwritten() {
        if (keySerializer instanceof JavaSerializer<K> keys) {
            keys.forgetPending();
        }
        if (valueSerializer instanceof JavaSerializer<V> values) {
            values.forgetPending();
        }
    }

    /**
     * @return a key equal to {@code key} that shares no state with it (the same object for the immutable
     *         built-in types): the iterator hands one to its caller and keeps the other for
     *         {@code remove()}, which a caller changing its key in place must not turn to another entry
     */
    private K copyOfKey(K key) {
        if (key instanceof String || key instanceof Long || key instanceof Integer) {
            return key;
        }
        return keySerializer.read(keyBytes(key));
    }

    /** @return the bytes the store compares {@code key} by, equal and hashing by content */
    private ByteBuffer keyContent(K key) {
        return ByteBuffer.wrap(keyBytes(key).toArray(ValueLayout.JAVA_BYTE));
    }

    /** @return {@code key} as the store's key serializer writes it, the bytes the store compares keys by */
    private MemorySegment keyBytes(K key) {
        int size = keySerializer.serializedSize(key);
        // backed by a long[]: 8-byte aligned like the store's memory, for a serializer that relies on it
        MemorySegment bytes = MemorySegment.ofArray(new long[(size + Long.BYTES - 1) / Long.BYTES]).asSlice(0, size);
        keySerializer.write(key, bytes);
        return bytes;
    }

    private static int changeStripe(Object key) {
        // Array keys are equal by content (the store compares serialized bytes), not by identity: byte[]
        // (the built-in serializer) and any other array (Java serialization) hash by content, or equal keys
        // would count their changes and order their events in different stripes.
        int h = (key instanceof byte[] bytes ? java.util.Arrays.hashCode(bytes)
                : key.getClass().isArray() ? java.util.Arrays.deepHashCode(new Object[] {key})
                : key.hashCode()) * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (CHANGE_STRIPES - 1);
    }

    private void checkKey(K key) {
        Objects.requireNonNull(key, "key");
        if (!keyType.isInstance(key)) {
            throw new ClassCastException("cache '" + name + "' has keys of " + keyType.getName() + ", got a "
                    + key.getClass().getName());
        }
    }

    private void checkValue(V value) {
        Objects.requireNonNull(value, "value");
        if (!valueType.isInstance(value)) {
            throw new ClassCastException("cache '" + name + "' has values of " + valueType.getName()
                    + ", got a " + value.getClass().getName());
        }
    }

    private void checkKeys(Set<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        for (K key : keys) {
            checkKey(key);
        }
    }
}
