package dev.offheap.jcache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cache.Serializer;
import dev.offheap.jcache.ExpiryCleanUp;
import dev.offheap.jcache.OffHeapCachingProvider;
import dev.offheap.jcache.OffHeapConfiguration;

import java.io.Serializable;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OffHeapJCache#cleanUp()} decides on each entry in place, under its segment's lock: an expired entry
 * is removed atomically (a put of its key racing the sweep is never lost), its EXPIRED event carries the old
 * value to the listeners that asked for it, and values are read only where a listener wants the event.
 */
class TheSweepRemovesExpiredEntriesInPlaceTest {
    private static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    private static final AtomicInteger VALUE_READS = new AtomicInteger();
    /** Run by {@link HookedKeys#read} on the thread it names, once. */
    private static volatile Thread hookedThread;
    private static volatile Runnable hook;

    private final OffHeapCachingProvider provider = new OffHeapCachingProvider();
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    @BeforeEach
    void reset() {
        EVENTS.clear();
        VALUE_READS.set(0);
        hookedThread = null;
        hook = null;
    }

    @AfterEach
    void closeProvider() {
        provider.close();
    }

    /** Integer keys; a read on {@link #hookedThread} runs {@link #hook} first (the sweep reads keys under the lock). */
    public static final class HookedKeys implements Serializer<Integer> {
        @Override
        public int serializedSize(Integer key) {
            return Integer.BYTES;
        }

        @Override
        public void write(Integer key, MemorySegment target) {
            target.set(ValueLayout.JAVA_INT_UNALIGNED, 0, key);
        }

        @Override
        public Integer read(MemorySegment source) {
            Runnable run = hook;
            if (run != null && Thread.currentThread() == hookedThread) {
                hook = null;
                run.run();
            }
            return source.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        }
    }

    /** UTF-8 strings, counting reads. */
    public static final class CountedValues implements Serializer<String> {
        @Override
        public int serializedSize(String value) {
            return value.getBytes(StandardCharsets.UTF_8).length;
        }

        @Override
        public void write(String value, MemorySegment target) {
            MemorySegment.copy(MemorySegment.ofArray(value.getBytes(StandardCharsets.UTF_8)), 0, target, 0,
                    target.byteSize());
        }

        @Override
        public String read(MemorySegment source) {
            VALUE_READS.incrementAndGet();
            return new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        }
    }

    /** Records "name TYPE key old->new" of CREATED and EXPIRED events. */
    public abstract static class Recorder implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryExpiredListener<Integer, String>, Serializable {
        private static final long serialVersionUID = 1L;

        abstract String name();

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            record(events);
        }

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            record(events);
        }

        private void record(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            for (CacheEntryEvent<? extends Integer, ? extends String> e : events) {
                EVENTS.add(name() + " " + e.getEventType() + " " + e.getKey() + " "
                        + (e.isOldValueAvailable() ? e.getOldValue() : "-") + "->" + e.getValue());
            }
        }
    }

    /** Listens with old values. */
    public static final class WithOld extends Recorder {
        private static final long serialVersionUID = 1L;

        @Override
        String name() {
            return "with";
        }
    }

    /** Listens without old values. */
    public static final class WithoutOld extends Recorder {
        private static final long serialVersionUID = 1L;

        @Override
        String name() {
            return "without";
        }
    }

    /** Wants CREATED events only. */
    public static final class CreatedOnly implements CacheEntryCreatedListener<Integer, String>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            events.forEach(e -> EVENTS.add("created " + e.getKey()));
        }
    }

    /** A cache on the test's clock whose entries live 10 ms. */
    @SafeVarargs
    private OffHeapJCache<Integer, String> cache(String name, Class<? extends CacheEntryListener<Integer, String>>... listeners) {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setTypes(Integer.class, String.class);
        configuration.setCapacityBytes(4L << 20);
        configuration.setStatisticsEnabled(true);
        configuration.setKeySerializerFactory(FactoryBuilder.factoryOf(HookedKeys.class));
        configuration.setValueSerializerFactory(FactoryBuilder.factoryOf(CountedValues.class));
        configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 10)));
        for (Class<? extends CacheEntryListener<Integer, String>> listener : listeners) {
            configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                    FactoryBuilder.factoryOf(listener), null, listener != WithoutOld.class, true));
        }
        Cache<Integer, String> cache = provider.getCacheManager().createCache(name, configuration);
        @SuppressWarnings("unchecked")
        OffHeapJCache<Integer, String> offHeap = cache.unwrap(OffHeapJCache.class);
        offHeap.wallClock(clock::get);
        return offHeap;
    }

    @Test
    void aPutOfTheKeyTheSweepIsRemovingWaitsForTheRemovalAndIsKept() throws Exception {
        OffHeapJCache<Integer, String> cache = cache("race", WithOld.class);
        cache.put(1, "old");
        clock.addAndGet(1_000);
        EVENTS.clear();
        Thread putter = new Thread(() -> cache.put(1, "new"));
        hookedThread = Thread.currentThread();
        // under the segment's lock, as the sweep takes the expired entry's key: a put of that key starts and
        // waits for the lock
        hook = () -> {
            putter.start();
            while (putter.getState() != Thread.State.WAITING && putter.getState() != Thread.State.TIMED_WAITING
                    && putter.isAlive()) {
                Thread.onSpinWait();
            }
        };

        long removed = cache.cleanUp();
        putter.join();

        assertThat(removed).isEqualTo(1);
        assertThat(hook).as("the sweep read the key of the entry it removed").isNull();
        assertThat(cache.get(1)).as("the put that raced the sweep is kept").isEqualTo("new");
        assertThat(EVENTS).containsExactly("with EXPIRED 1 old->old", "with CREATED 1 -->new");
        assertThat(cache.statisticsBean().getCacheEvictions()).as("an expiry is no eviction").isZero();
    }

    @Test
    void expiredEventsCarryTheOldValueOnlyToTheListenersThatAskedForIt() {
        OffHeapJCache<Integer, String> cache = cache("old values", WithOld.class, WithoutOld.class);
        for (int i = 0; i < 20; i++) {
            cache.put(i, "v" + i);
        }
        clock.addAndGet(5);
        cache.put(100, "live"); // expires 5 ms after the others
        clock.addAndGet(6);
        EVENTS.clear();

        assertThat(cache.cleanUp()).isEqualTo(20);

        for (int i = 0; i < 20; i++) {
            assertThat(EVENTS).contains("with EXPIRED " + i + " v" + i + "->v" + i, "without EXPIRED " + i + " -->null");
        }
        assertThat(EVENTS).hasSize(40);
        assertThat(cache.get(100)).as("the live entry is left").isEqualTo("live");
        clock.addAndGet(5);
        assertThat(cache.cleanUp()).as("and swept once its time has come").isEqualTo(1);
        assertThat(EVENTS).contains("with EXPIRED 100 live->live");
    }

    @Test
    void withoutAListenerOfExpiredEventsTheSweepReadsNoValue() {
        OffHeapJCache<Integer, String> created = cache("created only", CreatedOnly.class);
        OffHeapJCache<Integer, String> none = cache("no listener");
        for (int i = 0; i < 50; i++) {
            created.put(i, "v" + i);
            none.put(i, "v" + i);
        }
        clock.addAndGet(1_000);
        VALUE_READS.set(0);

        assertThat(created.cleanUp()).isEqualTo(50);
        assertThat(none.cleanUp()).isEqualTo(50);

        assertThat(VALUE_READS).hasValue(0);
        assertThat(EVENTS).hasSize(50).allMatch(e -> e.startsWith("created "));
        assertThat(created.unwrap(dev.offheap.cache.OffHeapCache.class).size()).isZero();
        assertThat(none.unwrap(ExpiryCleanUp.class).cleanUp()).isZero();
    }
}
