package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cache.OffHeapCache;

import java.io.Closeable;
import java.io.Serial;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.cache.Cache;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import org.junit.jupiter.api.Test;

/**
 * Registering or deregistering a listener while its cache closes leaves the listener closed once and the
 * cache's off-heap memory freed.
 *
 * <p>A deregistration and a close both closed the asynchronous listener's registration: the second one's
 * task was refused by the executor the first had shut down, and the {@code RejectedExecutionException}
 * left {@code close()} before the off-heap cache was closed (its native memory, and the listeners after
 * it, never freed), or left {@code deregisterCacheEntryListener} where the close came first. A
 * registration that found the cache open but joined its listeners after the close had closed them was
 * never closed: a {@code Closeable} listener kept what it held.
 *
 * <p>The interleavings are forced through user code the calls run: a listener configuration's
 * {@code equals} (a deregistration compares with it, past its check that the cache is open), a listener's
 * {@code close()} (the cache's close calls it, past its look at the registered listeners) and a listener
 * factory's {@code create()} (a registration calls it, past its check that the cache is open).
 */
class ListenerRegistrationRacingCloseTest extends JCacheTestBase {

    /** A listener configuration whose {@code equals}, once armed, lets the test know and waits for it. */
    static final class WaitingConfiguration extends MutableCacheEntryListenerConfiguration<String, String> {
        @Serial
        private static final long serialVersionUID = 1L;
        static final AtomicBoolean ARMED = new AtomicBoolean();
        static final CountDownLatch COMPARING = new CountDownLatch(1);
        static final CountDownLatch GO = new CountDownLatch(1);

        WaitingConfiguration(Factory<? extends CacheEntryListener<? super String, ? super String>> factory) {
            super(factory, null, false, true);
        }

        @Override
        public boolean equals(Object other) {
            if (ARMED.compareAndSet(true, false)) {
                COMPARING.countDown();
                await(GO);
            }
            return super.equals(other);
        }

        @Override
        public int hashCode() {
            return super.hashCode();
        }
    }

    /** A synchronous listener whose {@code close()} lets the test know and waits for it. */
    static final class WaitingListener implements CacheEntryCreatedListener<String, String>, Closeable {
        static final CountDownLatch CLOSING = new CountDownLatch(1);
        static final CountDownLatch GO = new CountDownLatch(1);

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
        }

        @Override
        public void close() {
            CLOSING.countDown();
            await(GO);
        }
    }

    /** A listener that counts its closes. */
    static final class CountingListener implements CacheEntryCreatedListener<String, String>, Closeable {
        static final AtomicInteger CLOSES = new AtomicInteger();

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
        }

        @Override
        public void close() {
            CLOSES.incrementAndGet();
        }
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static Thread start(Runnable task, AtomicReference<Throwable> failure) {
        Thread thread = new Thread(() -> {
            try {
                task.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        thread.start();
        return thread;
    }

    @Test
    void closeRacingADeregistrationClosesTheListenerOnceAndFreesTheCache() throws InterruptedException {
        Cache<String, String> cache = manager.createCache("deregistering", small(String.class, String.class));
        cache.registerCacheEntryListener(new WaitingConfiguration(WaitingListener::new));
        CacheEntryListenerConfiguration<String, String> asynchronous = new MutableCacheEntryListenerConfiguration<>(
                () -> (CacheEntryCreatedListener<String, String>) events -> { }, null, false, false);
        cache.registerCacheEntryListener(asynchronous);
        cache.put("k", "v");

        AtomicReference<Throwable> deregisterFailure = new AtomicReference<>();
        AtomicReference<Throwable> closeFailure = new AtomicReference<>();
        WaitingConfiguration.ARMED.set(true);
        Thread deregistering = start(() -> cache.deregisterCacheEntryListener(asynchronous), deregisterFailure);
        WaitingConfiguration.COMPARING.await(); // past the open check, comparing with the first configuration
        Thread closing = start(cache::close, closeFailure);
        WaitingListener.CLOSING.await(); // closing the listeners, both of them in its view
        WaitingConfiguration.GO.countDown();
        deregistering.join(); // has taken the asynchronous listener out and closed it
        WaitingListener.GO.countDown();
        closing.join();

        assertThat(deregisterFailure.get()).isNull();
        assertThat(closeFailure.get()).isNull();
        assertThat(cache.isClosed()).isTrue();
        assertThat(cache.unwrap(OffHeapCache.class).isClosed()).as("the off-heap memory freed").isTrue();
    }

    @Test
    void aListenerRegisteredWhileTheCacheClosesIsClosed() throws InterruptedException {
        Cache<String, String> cache = manager.createCache("registering", small(String.class, String.class));
        CountDownLatch creating = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        CountingListener.CLOSES.set(0);
        CacheEntryListenerConfiguration<String, String> configuration = new MutableCacheEntryListenerConfiguration<>(
                () -> {
                    creating.countDown();
                    await(go);
                    return new CountingListener();
                }, null, false, true);

        AtomicReference<Throwable> registerFailure = new AtomicReference<>();
        Thread registering = start(() -> cache.registerCacheEntryListener(configuration), registerFailure);
        creating.await(); // past the open check, making the listener
        cache.close();
        go.countDown();
        registering.join();

        assertThat(registerFailure.get()).isNull();
        assertThat(CountingListener.CLOSES.get()).as("listener closes").isEqualTo(1);
    }
}
