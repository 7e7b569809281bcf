package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Turns of the per-key event order that must not be left open or held long: each case stalled other
 * writers for the 2 s give-up (or spun a core) in the first version of the ordering.
 */
class JCacheEventTurnsTest extends ThreadedJCacheTest {
    private long timedPut(Cache<Integer, String> cache, int key, String value) throws Exception {
        Future<Long> took = pool.submit(() -> {
            long started = System.nanoTime();
            cache.put(key, value);
            return System.nanoTime() - started;
        });
        return took.get(30, TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------------------------------------
    // 1. A synchronous listener that throws an Error (an assertion) leaves the op's later turns open.

    @Test
    @Timeout(30)
    void aListenerThrowingAnErrorDoesNotHoldUpTheOpsLaterKeys() throws Exception {
        CacheEntryCreatedListener<Integer, String> listener = events -> events.forEach(e -> {
            if (e.getKey() == 1) {
                throw new AssertionError("a listener's assertion failed on key 1");
            }
        });
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(listener), null, false, true));
        Cache<Integer, String> cache = manager.createCache("error-listener", configuration);

        Map<Integer, String> both = new LinkedHashMap<>();
        both.put(1, "one");
        both.put(2, "two");
        assertThatThrownBy(() -> cache.putAll(both)).isInstanceOf(AssertionError.class);
        // key 2's CREATED event of that putAll took a ticket; its turn must not stay open
        assertThat(timedPut(cache, 2, "again")).as("the next put of key 2 waited for the dropped turn")
                .isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    // ---------------------------------------------------------------------------------------------
    // 2. A read-through load runs while the op holds the EXPIRED event's turn: other writers of the
    //    stripe wait for the loader.

    @Test
    @Timeout(30)
    void aSlowReadThroughLoadDoesNotHoldUpOtherWritersOfTheKey() throws Exception {
        CountDownLatch loading = new CountDownLatch(1);
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 50)));
        configuration.setReadThrough(true);
        configuration.setCacheLoaderFactory(new FactoryBuilder.SingletonFactory<>(new CacheLoader<Integer, String>() {
            @Override
            public String load(Integer key) {
                loading.countDown();
                try {
                    Thread.sleep(3_000); // a slow source
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "loaded";
            }

            @Override
            public Map<Integer, String> loadAll(Iterable<? extends Integer> keys) {
                throw new UnsupportedOperationException();
            }
        }));
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        CacheEntryCreatedListener<Integer, String> listener = events -> events.forEach(e -> seen.add(e.getValue()));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(listener), null, false, false)); // asynchronous
        Cache<Integer, String> cache = manager.createCache("slow-loader", configuration);

        cache.put(1, "short-lived");
        Thread.sleep(100);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            Future<String> read = reader.submit(() -> cache.get(1)); // drops the expired entry, then loads
            assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(timedPut(cache, 1, "written meanwhile"))
                    .as("a put of the key while another thread's loader runs waited for that loader")
                    .isLessThan(TimeUnit.SECONDS.toNanos(1));
            read.get(10, TimeUnit.SECONDS);
        } finally {
            reader.shutdownNow();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 3. getAll: a value that fails to deserialize after an expired key's EXPIRED event took its ticket.

    @Test
    @Timeout(30)
    void aGetAllThatFailsToDecodeAValueGivesUpTheTurnsOfItsEarlierEvents() throws Exception {
        OffHeapConfiguration<Integer, Object> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, Object.class);
        configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(new Duration(TimeUnit.MILLISECONDS, 400)));
        List<Object> seen = Collections.synchronizedList(new ArrayList<>());
        CacheEntryCreatedListener<Integer, Object> listener = events -> events.forEach(e -> seen.add(e.getValue()));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(listener), null, false, true));
        Cache<Integer, Object> cache = manager.createCache("unreadable", configuration);

        cache.put(1, "short-lived");
        Thread.sleep(500); // key 1 expired
        cache.put(2, new FailingSerializables.Unreadable()); // live for 400 ms
        LinkedHashSet<Integer> keys = new LinkedHashSet<>(List.of(1, 2));
        assertThatThrownBy(() -> cache.getAll(keys)).isInstanceOf(RuntimeException.class);
        Future<Long> took = pool.submit(() -> {
            long started = System.nanoTime();
            cache.put(1, "after");
            return System.nanoTime() - started;
        });
        assertThat(took.get(30, TimeUnit.SECONDS)).as("the next put of key 1 waited for the failed getAll's turn")
                .isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    // ---------------------------------------------------------------------------------------------
    // 4. byte[] keys: equal keys (same bytes) of different arrays go to different stripes.

    static final class ByteKeyRecorder implements CacheEntryCreatedListener<byte[], String>,
            CacheEntryUpdatedListener<byte[], String> {
        final List<String[]> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends byte[], ? extends String>> events) {
            events.forEach(e -> seen.add(new String[] {null, e.getValue()}));
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends byte[], ? extends String>> events) {
            events.forEach(e -> seen.add(new String[] {e.getOldValue(), e.getValue()}));
        }
    }

    @Test
    @Timeout(60)
    void theEventsOfAByteArrayKeyArriveInOrder() throws Exception {
        ByteKeyRecorder recorder = new ByteKeyRecorder();
        OffHeapConfiguration<byte[], String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(byte[].class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(recorder), null, true, true));
        Cache<byte[], String> cache = manager.createCache("byte-keys", configuration);
        int rounds = 5_000;
        together(4, 50, thread -> {
            for (int i = 0; i < rounds; i++) {
                cache.put(new byte[] {7, 7, 7}, thread + ":" + i); // one key, a new array each time
            }
        });
        List<String[]> events;
        synchronized (recorder.seen) {
            events = new ArrayList<>(recorder.seen);
        }
        assertThat(events).hasSize(4 * rounds);
        int inversions = 0;
        String current = null;
        for (String[] event : events) {
            if (!java.util.Objects.equals(event[0], current)) {
                inversions++;
            }
            current = event[1];
        }
        assertThat(inversions).as("UPDATED events whose old value is not the previous event's value").isZero();
    }

    // ---------------------------------------------------------------------------------------------
    // 5. A bulk operation holds a turn in every stripe from its first store call until its delivery after
    //    its last: writers of any key wait for the whole bulk operation.

    @Test
    @Timeout(60)
    void aLargeRemoveAllDoesNotHoldUpWritersOfOtherKeys() throws Exception {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(256L << 20).setTypes(Integer.class, String.class);
        Cache<Integer, String> cache = manager.createCache("bulk", configuration);
        int entries = 400_000;
        Map<Integer, String> batch = new java.util.HashMap<>();
        for (int i = 0; i < entries; i++) {
            batch.put(i, "value " + i);
            if (batch.size() == 10_000) {
                cache.putAll(batch);
                batch.clear();
            }
        }
        CacheEntryCreatedListener<Integer, String> listener = events -> { };
        cache.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(listener), null, false, false)); // asynchronous, does nothing
        CountDownLatch started = new CountDownLatch(1);
        Future<Long> removeAll = pool.submit(() -> {
            started.countDown();
            long t0 = System.nanoTime();
            cache.removeAll();
            return System.nanoTime() - t0;
        });
        started.await();
        long worst = 0;
        int puts = 0;
        while (!removeAll.isDone()) {
            long t0 = System.nanoTime();
            cache.put(-1 - (puts % 100), "other"); // keys removeAll never sees
            worst = Math.max(worst, System.nanoTime() - t0);
            puts++;
        }
        System.out.printf("removeAll took %d ms; %d puts meanwhile, the slowest %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(removeAll.get()), puts, TimeUnit.NANOSECONDS.toMillis(worst));
        // with the turns held to the end, a put waited for (nearly) the whole removeAll
        assertThat(worst).as("the slowest put of another key during removeAll()").isLessThan(removeAll.get() / 3);
    }

    // ---------------------------------------------------------------------------------------------
    // 6. A thread with its interrupt flag set that waits for its turn: LockSupport.parkNanos returns at
    //    once, so the wait spins on a core.

    @Test
    @Timeout(30)
    void anInterruptedThreadWaitingForItsTurnDoesNotSpin() throws Exception {
        CountDownLatch inListener = new CountDownLatch(1);
        CacheEntryCreatedListener<Integer, String> slow = events -> events.forEach(e -> {
            if (e.getValue().equals("slow")) {
                inListener.countDown();
                try {
                    Thread.sleep(1_500); // a slow listener, under the 2 s give-up
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(slow), null, false, true));
        Cache<Integer, String> cache = manager.createCache("interrupted", configuration);
        Future<?> first = pool.submit(() -> cache.put(1, "slow"));
        assertThat(inListener.await(10, TimeUnit.SECONDS)).isTrue();
        Future<long[]> second = pool.submit(() -> {
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            Thread.currentThread().interrupt(); // say a cancelled task, a request thread being shut down
            long cpu0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            cache.remove(1); // REMOVED, waits for the slow CREATED's turn
            long[] result = {System.nanoTime() - t0, threads.getCurrentThreadCpuTime() - cpu0};
            assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
            return result;
        });
        long[] took = second.get(20, TimeUnit.SECONDS);
        first.get(10, TimeUnit.SECONDS);
        System.out.printf("waited %d ms, on a core %d ms%n", took[0] / 1_000_000, took[1] / 1_000_000);
        assertThat(took[0]).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(took[1]).as("CPU time of the wait (a spin takes all of it)").isLessThan(took[0] / 2);
    }

    // ---------------------------------------------------------------------------------------------
    // 7. Two caches whose synchronous listeners mirror into each other: each thread holds a turn of one
    //    cache and waits for a turn of the other.

    @Test
    @Timeout(60)
    void twoCachesMirroringEachOtherDoNotStall() throws Exception {
        OffHeapConfiguration<Integer, String> configuration = new OffHeapConfiguration<>();
        configuration.setCapacityBytes(8L << 20).setTypes(Integer.class, String.class);
        Cache<Integer, String> a = manager.createCache("mirror-a", configuration);
        Cache<Integer, String> b = manager.createCache("mirror-b", configuration);
        a.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(new Mirror(b)), null, false, true));
        b.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(new Mirror(a)), null, false, true));
        long[] worst = new long[2];
        together(2, 30, thread -> {
            Cache<Integer, String> mine = thread == 0 ? a : b;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            for (int i = 0; System.nanoTime() < deadline; i++) {
                long t0 = System.nanoTime();
                mine.put(i % 4, thread + ":" + i);
                worst[thread] = Math.max(worst[thread], System.nanoTime() - t0);
            }
        });
        System.out.printf("slowest puts %d ms, %d ms%n", worst[0] / 1_000_000, worst[1] / 1_000_000);
        assertThat(Math.max(worst[0], worst[1])).as("the slowest put").isLessThan(TimeUnit.SECONDS.toNanos(1));
    }

    /** Copies each created or updated value into the other cache, unless it holds it already, one level deep. */
    static final class Mirror implements CacheEntryCreatedListener<Integer, String>,
            CacheEntryUpdatedListener<Integer, String> {
        private final Cache<Integer, String> other;

        Mirror(Cache<Integer, String> other) {
            this.other = other;
        }

        /**
         * Set while this thread copies: a copy's own events in the other cache are not copied back. With two
         * threads writing different values, copying back and forth recursed until the stack overflowed.
         */
        private static final ThreadLocal<Boolean> COPYING = new ThreadLocal<>();

        private void copy(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            if (COPYING.get() != null) {
                return;
            }
            COPYING.set(Boolean.TRUE);
            try {
                for (CacheEntryEvent<? extends Integer, ? extends String> e : events) {
                    if (!e.getValue().equals(other.get(e.getKey()))) {
                        other.put(e.getKey(), e.getValue());
                    }
                }
            } finally {
                COPYING.remove();
            }
        }

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            copy(events);
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            copy(events);
        }
    }
}
