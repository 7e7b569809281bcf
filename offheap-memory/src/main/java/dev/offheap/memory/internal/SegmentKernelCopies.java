package dev.offheap.memory.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Copies of {@link SegmentKernels}, one per concrete segment class, so that hot loops stay
 * monomorphic when a program uses heap, native and mapped segments together.
 *
 * <p>Why: a JIT call site such as {@code segment.get(JAVA_LONG, offset)} records the receiver
 * classes it has seen. Once it has seen three or more (heap, native, mapped) it becomes
 * megamorphic, the accessor is no longer inlined, and loops over segments run many times slower.
 * The profile belongs to the bytecode, so the fix is more bytecode: this class defines
 * {@value #SLOTS} hidden classes from {@code SegmentKernels.class}'s own bytes
 * ({@link MethodHandles.Lookup#defineHiddenClass}), and hands copy <i>n</i> only segments of the
 * <i>n</i>-th distinct class that asks. Segment classes beyond the slots share the original
 * class, which may then be megamorphic but stays correct.
 *
 * <p>Callers dispatch with a chain of {@code ==} tests on {@link #slotClass} fields and then call
 * the copy held in a {@code static final} field (see {@code Segments}): the JIT treats those
 * fields as constants, knows each copy's exact class and inlines it.
 *
 * <p>Thread-safety: slots are claimed under a lock and published through volatile fields; a
 * thread that does not yet see a claimed slot takes the slow path, which returns the same copy.
 * Once all slots are claimed the slow path takes no lock.
 */
public final class SegmentKernelCopies {

    /** How many segment classes get a copy of their own. */
    public static final int SLOTS = 4;

    /** The copy for the first segment class claiming a slot. */
    public static final SegmentKernel K0 = defineCopy();
    /** The copy for the second segment class. */
    public static final SegmentKernel K1 = defineCopy();
    /** The copy for the third segment class. */
    public static final SegmentKernel K2 = defineCopy();
    /** The copy for the fourth segment class. */
    public static final SegmentKernel K3 = defineCopy();
    /** The shared copy for segment classes beyond the slots. */
    public static final SegmentKernel SHARED = new SegmentKernels();

    // Not final: claimed lazily. Plain reads are fine for the fast path: a stale null only sends
    // the caller to kernelFor, which reads under the lock.
    private static volatile Class<?> c0;
    private static volatile Class<?> c1;
    private static volatile Class<?> c2;
    private static volatile Class<?> c3;

    private SegmentKernelCopies() {
    }

    /** The segment class served by copy {@code slot} (0..3), or {@code null} when unclaimed. */
    public static Class<?> slotClass(int slot) {
        return switch (slot) {
            case 0 -> c0;
            case 1 -> c1;
            case 2 -> c2;
            case 3 -> c3;
            default -> throw new IndexOutOfBoundsException("slot " + slot + " of " + SLOTS);
        };
    }

    /** Fast-path class of slot 0. */
    public static Class<?> c0() {
        return c0;
    }

    /** Fast-path class of slot 1. */
    public static Class<?> c1() {
        return c1;
    }

    /** Fast-path class of slot 2. */
    public static Class<?> c2() {
        return c2;
    }

    /** Fast-path class of slot 3. */
    public static Class<?> c3() {
        return c3;
    }

    /**
     * The copy for segments of class {@code segmentClass}, claiming a free slot on first use.
     * The slow path of the dispatch; also what tests use to check the assignment. Takes the lock only
     * to claim a slot: classes beyond the slots come here on every call, from any number of threads.
     */
    public static SegmentKernel kernelFor(Class<?> segmentClass) {
        // Slots are claimed in order and never change: once the last is claimed (read first, so that the
        // volatile reads below see the earlier claims) a class that is in none of them never will be.
        Class<?> last = c3;
        SegmentKernel claimed = claimedBy(segmentClass, last);
        if (claimed != null) {
            return claimed;
        }
        if (last != null) {
            return SHARED;
        }
        return claim(segmentClass);
    }

    /** @return the copy of a slot {@code segmentClass} holds (slot 3 as read into {@code last}), or null */
    private static SegmentKernel claimedBy(Class<?> segmentClass, Class<?> last) {
        if (segmentClass == c0) {
            return K0;
        }
        if (segmentClass == c1) {
            return K1;
        }
        if (segmentClass == c2) {
            return K2;
        }
        if (segmentClass == last) {
            return K3;
        }
        return null;
    }

    private static synchronized SegmentKernel claim(Class<?> segmentClass) {
        // again under the lock: another thread may have claimed a slot for this class meanwhile
        SegmentKernel claimed = claimedBy(segmentClass, c3);
        if (claimed != null) {
            return claimed;
        }
        if (c0 == null) {
            c0 = segmentClass;
            return K0;
        }
        if (c1 == null) {
            c1 = segmentClass;
            return K1;
        }
        if (c2 == null) {
            c2 = segmentClass;
            return K2;
        }
        if (c3 == null) {
            c3 = segmentClass;
            return K3;
        }
        return SHARED;
    }

    private static SegmentKernel defineCopy() {
        try (InputStream in = SegmentKernels.class.getResourceAsStream("SegmentKernels.class")) {
            if (in == null) {
                throw new IllegalStateException("SegmentKernels.class not found as a resource");
            }
            byte[] bytes = in.readAllBytes();
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return (SegmentKernel) copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class))
                    .invoke();
        } catch (IOException | ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot define a copy of SegmentKernels", e);
        }
    }
}
