package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.cache.Cache;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import org.junit.jupiter.api.Test;

/**
 * Deregistering a synchronous listener closes it (a {@code Closeable} one), and from then on it gets no
 * event: not one of an operation that was delivering events as it was deregistered, and no call once its
 * {@code close()} ran.
 *
 * <p>An operation delivers each event to the listeners registered when it began: a listener deregistered
 * meanwhile (here by the listener before it, on the same event) was still called after its close.
 */
class ADeregisteredListenerIsNotCalledAfterItsCloseTest extends JCacheTestBase {

    /** What the listener that is deregistered saw, in order: "created k" for events, "closed". */
    static final List<String> SEEN = Collections.synchronizedList(new ArrayList<>());
    /** The configuration the first listener deregisters, and the cache it does it on. */
    static volatile CacheEntryListenerConfiguration<String, String> toDeregister;
    static volatile Cache<String, String> cache;

    public static final class Deregistering implements CacheEntryCreatedListener<String, String> {
        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            if (toDeregister != null) {
                cache.deregisterCacheEntryListener(toDeregister);
                toDeregister = null;
            }
        }
    }

    public static final class Recording implements CacheEntryCreatedListener<String, String>, Closeable {
        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            for (CacheEntryEvent<? extends String, ? extends String> event : events) {
                SEEN.add("created " + event.getKey());
            }
        }

        @Override
        public void close() {
            SEEN.add("closed");
        }
    }

    /** Deregisters itself on its first event; records its calls and its close. */
    public static final class DeregisteringItself implements CacheEntryCreatedListener<String, String>, Closeable {
        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            SEEN.add("enter");
            if (toDeregister != null) {
                cache.deregisterCacheEntryListener(toDeregister);
                toDeregister = null;
            }
            SEEN.add("return");
        }

        @Override
        public void close() {
            SEEN.add("closed");
        }
    }

    @Test
    void aListenerThatDeregistersItselfIsClosedAfterItsCallReturns() {
        SEEN.clear();
        cache = manager.createCache("itself", small(String.class, String.class));
        CacheEntryListenerConfiguration<String, String> itself = new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(DeregisteringItself.class), null, false, true);
        cache.registerCacheEntryListener(itself);
        toDeregister = itself;

        cache.put("k", "v");
        cache.put("later", "v");

        assertThat(SEEN).containsExactly("enter", "return", "closed");
    }

    @Test
    void aListenerDeregisteredWhileAnEventIsDeliveredGetsNoEventAfterItsClose() {
        SEEN.clear();
        cache = manager.createCache("deregistered", small(String.class, String.class));
        cache.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(Deregistering.class), null, false, true));
        CacheEntryListenerConfiguration<String, String> recording = new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(Recording.class), null, false, true);
        cache.registerCacheEntryListener(recording);
        cache.put("before", "v");
        toDeregister = recording;

        cache.put("during", "v"); // the first listener deregisters the second on this event
        cache.put("after", "v");

        assertThat(SEEN).containsExactly("created before", "closed");
    }
}
