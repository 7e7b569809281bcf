package dev.offheap.memory.internal;

import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * For close paths that go on past a failure and throw the first at the end. Not an API: the library's
 * modules share it.
 */
public final class Failures {
    private Failures() {
    }

    /**
     * @param first the failure kept so far, or null
     * @param next  a later failure
     * @return {@code first} with {@code next} added to its suppressed ones, or {@code next} if there was none.
     *         The same instance twice (a callback that throws one shared exception each time) is kept once:
     *         {@code addSuppressed} of itself throws IllegalArgumentException, which would end the close midway
     */
    public static Throwable firstOrSuppressed(Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        if (first != next) {
            first.addSuppressed(next);
        }
        return first;
    }

    /**
     * Runs one step of a close that goes on whatever a step throws.
     *
     * @param failure the failure kept so far, or null
     * @param step    the step
     * @return {@code failure} if the step threw nothing, else what {@link #firstOrSuppressed} keeps of
     *         {@code failure} and the step's failure
     */
    public static Throwable run(Throwable failure, Runnable step) {
        try {
            step.run();
            return failure;
        } catch (Throwable t) {
            return firstOrSuppressed(failure, t);
        }
    }

    /**
     * Runs {@code step} for each of {@code items}, going on past a step that throws (anything, a checked
     * exception thrown undeclared too) until {@code stop} says no later step can succeed, and past a failure
     * of the iteration itself: a bulk operation that does every part it can and reports the first failure.
     *
     * @return what {@link #firstOrSuppressed} keeps of the failures, in order, or null if there was none
     */
    public static <T> Throwable forEach(Iterable<T> items, Consumer<? super T> step, BooleanSupplier stop) {
        Throwable failure = null;
        try {
            for (T item : items) {
                try {
                    step.accept(item);
                } catch (Throwable e) {
                    failure = firstOrSuppressed(failure, e);
                    if (stop.getAsBoolean()) {
                        break;
                    }
                }
            }
        } catch (Throwable e) {
            // the iteration's own failure: the failures before it are not lost
            failure = firstOrSuppressed(failure, e);
        }
        return failure;
    }

    /**
     * Throws {@code failure} as it is, checked or not (a callback's exception, which a close gives out
     * unchanged); does nothing for null.
     *
     * @param failure what {@link #firstOrSuppressed} kept, or null
     */
    public static void throwIfAny(Throwable failure) {
        if (failure != null) {
            throw Failures.<RuntimeException>unchecked(failure);
        }
    }

    /**
     * Rethrows what a downcall's {@code invokeExact} threw: a RuntimeException or an Error as it is,
     * anything else (the checked Throwable the method handle declares) wrapped.
     *
     * @param failure what the call threw
     * @return never returns; declared so that callers can write {@code throw Failures.nativeCallFailed(e)}
     * @throws IllegalStateException wrapping {@code failure} if it is checked
     */
    public static RuntimeException nativeCallFailed(Throwable failure) {
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error err) {
            throw err;
        }
        throw new IllegalStateException("native call failed", failure);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T unchecked(Throwable t) throws T {
        throw (T) t;
    }
}
