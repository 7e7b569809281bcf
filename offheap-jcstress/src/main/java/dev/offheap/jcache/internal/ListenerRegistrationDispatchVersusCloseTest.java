package dev.offheap.jcache.internal;

import java.io.Closeable;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.configuration.Factory;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryListener;
import javax.cache.event.EventType;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A synchronous listener's event racing its deregistration: one actor dispatches a CREATED event through
 * the {@link ListenerRegistration}, the other closes the registration. The registration counts the calls
 * in progress in one atomic int with a closed bit; whoever takes the count to zero once the bit is set
 * closes the listener. Whichever way they interleave, the listener must never be called once its
 * {@code close()} has begun (nor have {@code close()} run while its call is in progress), and its
 * {@code close()} must run exactly once: on the closing thread if no call was in progress, else on the
 * dispatching thread when its call returns.
 *
 * <p>The listener tells a call that overlaps or follows its close with two volatile flags written before
 * each reads the other's (a Dekker pair: at least one of them sees the other's write).
 *
 * <p>Result: the events the listener got, its calls that overlapped or followed its close, the times its
 * {@code close()} ran, and the thread that ran it (1 the closing actor, 2 the dispatching actor, 0 none).
 */
@JCStressTest
@Description("ListenerRegistration: a synchronous dispatch racing close(); the listener is never called after "
        + "its close(), which runs exactly once.")
@Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "the call returned before close(): the closing thread closed the listener")
@Outcome(id = "0, 0, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "close() came first: the dispatch dropped the event, the closing thread closed the listener")
@Outcome(id = "1, 0, 1, 2", expect = Expect.ACCEPTABLE_INTERESTING,
        desc = "close() came during the call: the dispatching thread closed the listener once its call returned")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "the listener was called during or after its close(), closed twice or never, or lost the event "
                + "while open")
@State
public class ListenerRegistrationDispatchVersusCloseTest {
    /** The event's source: never called, but an event needs one. */
    @SuppressWarnings("unchecked")
    private static final Cache<Integer, String> SOURCE = (Cache<Integer, String>) Proxy.newProxyInstance(
            Cache.class.getClassLoader(), new Class<?>[] {Cache.class}, (proxy, method, args) -> {
                throw new UnsupportedOperationException(method.getName());
            });
    private static final List<JCacheEntryEvent<Integer, String>> EVENTS =
            List.of(new JCacheEntryEvent<>(SOURCE, EventType.CREATED, 1, "one", null, false));

    private final Listener listener = new Listener();
    private final ListenerRegistration<Integer, String> registration;
    private volatile Thread closer;
    private volatile Thread dispatcher;

    public ListenerRegistrationDispatchVersusCloseTest() {
        Listener made = listener;
        Factory<CacheEntryListener<Integer, String>> factory = () -> made;
        registration = new ListenerRegistration<>(
                new MutableCacheEntryListenerConfiguration<>(factory, null, false, true));
    }

    /** Counts its calls and closes, and each call or close that overlaps or follows a close. */
    private final class Listener implements CacheEntryCreatedListener<Integer, String>, Closeable {
        private volatile boolean inCall;
        private volatile boolean closed;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger late = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        /** 1 closed by the closing actor, 2 by the dispatching one, 3 by another thread. */
        volatile int closedBy;

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends Integer, ? extends String>> events) {
            inCall = true;
            if (closed) {
                late.incrementAndGet();
            }
            for (CacheEntryEvent<? extends Integer, ? extends String> ignored : events) {
                calls.incrementAndGet();
            }
            inCall = false;
        }

        @Override
        public void close() {
            closed = true;
            if (inCall) {
                late.incrementAndGet();
            }
            closes.incrementAndGet();
            Thread current = Thread.currentThread();
            closedBy = current == closer ? 1 : current == dispatcher ? 2 : 3;
        }
    }

    @Actor
    public void dispatch() {
        dispatcher = Thread.currentThread();
        registration.dispatch(EVENTS);
    }

    @Actor
    public void close() {
        closer = Thread.currentThread();
        registration.close();
    }

    @Arbiter
    public void inspect(IIII_Result r) {
        r.r1 = listener.calls.get();
        r.r2 = listener.late.get();
        r.r3 = listener.closes.get();
        r.r4 = listener.closedBy;
    }
}
