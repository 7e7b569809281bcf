package dev.offheap.cli.compare;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Makes the calling thread's timed waits wake on time. Linux lets a timer of a normal thread fire up
 * to its "timer slack" late (50 microseconds by default), so that wake-ups can be batched; an open
 * loop's request thread that parks until its next request's scheduled start then starts it that much
 * late, and the delay lands in every latency it records. {@code prctl(PR_SET_TIMERSLACK, 1)} sets the
 * slack of the calling thread to 1 nanosecond. Elsewhere, or where the call fails, nothing changes.
 *
 * <p>Threading: each call affects only the calling thread.
 */
final class TimerSlack {
    private static final int PR_SET_TIMERSLACK = 29;
    private static final int PR_GET_TIMERSLACK = 30;
    private static final MethodHandle PRCTL = lookupPrctl();

    private TimerSlack() {
    }

    /** @return whether the calling thread's timer slack is now 1 nanosecond */
    static boolean minimize() {
        if (PRCTL == null) {
            return false;
        }
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, 1L) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** @return the calling thread's timer slack in nanoseconds, or -1 where it cannot be read */
    static long current() {
        if (PRCTL == null) {
            return -1;
        }
        try {
            return (int) PRCTL.invokeExact(PR_GET_TIMERSLACK, 0L);
        } catch (Throwable e) {
            return -1;
        }
    }

    // downcallHandle is restricted: PR_SET_TIMERSLACK and PR_GET_TIMERSLACK read and write no memory
    @SuppressWarnings("restricted")
    private static MethodHandle lookupPrctl() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("prctl")
                    .map(address -> linker.downcallHandle(address,
                            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                            Linker.Option.firstVariadicArg(1)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            // no native access granted, or no linker on this platform: waits keep the default slack
            return null;
        }
    }
}
