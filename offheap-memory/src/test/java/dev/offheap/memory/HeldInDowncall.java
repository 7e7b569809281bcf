package dev.offheap.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For tests: a downcall ({@code qsort} over two longs of a segment) whose comparator upcall waits. While
 * it waits, the Linker holds the segment's scope acquired, as any native function working on the segment
 * would: {@code Arena.close} and every revocation of that scope are refused with
 * {@link IllegalStateException} until {@link #release()}. The call runs on a daemon thread of its own.
 */
public final class HeldInDowncall {
    private static final MethodHandle QSORT = qsort();
    private static final MethodHandle COMPARE = compareHandle();

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;

    /**
     * Starts the downcall and returns once it is inside its comparator, holding {@code segment}'s scope.
     *
     * @param segment at least 16 bytes; its two longs may be swapped by the sort
     * @throws InterruptedException if interrupted while waiting for the call to start
     */
    public HeldInDowncall(MemorySegment segment) throws InterruptedException {
        thread = new Thread(() -> {
            try (Arena upcalls = Arena.ofConfined()) {
                QSORT.invokeExact(segment, 2L, 8L, comparator(entered, release, upcalls));
            } catch (Throwable e) {
                failure.set(e);
                entered.countDown();
            }
        }, "held-in-downcall");
        thread.setDaemon(true);
        thread.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).as("the downcall reached its upcall").isTrue();
        assertThat(failure.get()).as("the downcall started").isNull();
    }

    /**
     * Lets the downcall return, waits until it has, and checks that it ran without failing.
     *
     * @throws InterruptedException if interrupted while waiting for the call's thread
     */
    public void release() throws InterruptedException {
        release.countDown();
        thread.join(10_000);
        assertThat(thread.isAlive()).as("the downcall returned").isFalse();
        assertThat(failure.get()).as("the downcall failed").isNull();
    }

    /**
     * @return libc's {@code qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *))},
     *         a downcall that works on a segment and calls back into Java while it holds the segment's scope
     */
    // downcallHandle is restricted: the descriptor is qsort's
    @SuppressWarnings("restricted")
    public static MethodHandle qsort() {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find("qsort").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
    }

    private static MethodHandle compareHandle() {
        try {
            return MethodHandles.lookup().findStatic(HeldInDowncall.class, "compare", MethodType.methodType(int.class,
                    CountDownLatch.class, CountDownLatch.class, MemorySegment.class, MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // upcallStub is restricted: the comparator's descriptor matches compare's bound type
    @SuppressWarnings("restricted")
    private static MemorySegment comparator(CountDownLatch entered, CountDownLatch release, Arena arena) {
        return Linker.nativeLinker().upcallStub(MethodHandles.insertArguments(COMPARE, 0, entered, release),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS), arena);
    }

    /** An upcall must never throw (that ends the JVM): it waits for the release, or at most 20 s. */
    @SuppressWarnings("unused") // through COMPARE
    private static int compare(CountDownLatch entered, CountDownLatch release, MemorySegment a, MemorySegment b) {
        entered.countDown();
        try {
            release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
