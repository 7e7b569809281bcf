package dev.offheap.memory.alloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;

/**
 * The live allocations of a {@link NativeAllocator}: address to value (the requested size plus flag
 * bits), in lock-striped open-addressing tables of primitive longs, so that recording an
 * allocation costs one uncontended lock and no object. Stripes are chosen by a hash of the address;
 * threads that allocate and free different blocks rarely meet on one stripe.
 */
final class AddressTable {
    private static final int STRIPES = 64;
    private static final long EMPTY = 0;

    /**
     * Stripes are allocated one after another, so without padding two of them share a cache line and
     * two threads that write different stripes (the lock, the counters) still take the line from each
     * other. The JVM lays out a superclass's fields first: 64 bytes of it before a stripe's fields and 64
     * of the subclass's after keep every stripe's fields on lines of their own.
     */
    @SuppressWarnings("unused") // padding only
    private static class StripePaddingBefore {
        private long p0, p1, p2, p3, p4, p5, p6, p7;
    }

    private static class StripeFields extends StripePaddingBefore {
        /** 0 free, 1 held: see {@link #lock}. */
        @SuppressWarnings("unused") // through LOCK
        private int lock;
        long[] keys = new long[16];
        long[] values = new long[16];
        int size;
        long bytes;
        boolean closed;
    }

    @SuppressWarnings("unused") // padding only
    private static final class Stripe extends StripeFields {
        private long q0, q1, q2, q3, q4, q5, q6, q7;
    }

    private static final VarHandle LOCK;

    static {
        try {
            LOCK = MethodHandles.lookup().findVarHandle(StripeFields.class, "lock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Stripe[] stripes = new Stripe[STRIPES];

    /*
     * A stripe is held for a few probes of its arrays (or one doubling of them), so a spin lock is enough:
     * one compare-and-set to take it and a release store to give it back, where a monitor costs a
     * compare-and-set each way. Waiters spin briefly, then yield.
     */
    private static void lock(Stripe s) {
        if (!LOCK.compareAndSet(s, 0, 1)) {
            lockContended(s);
        }
    }

    private static void lockContended(Stripe s) {
        for (int spins = 0; !LOCK.compareAndSet(s, 0, 1); spins++) {
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    private static void unlock(Stripe s) {
        LOCK.setRelease(s, 0);
    }

    /** The requested size of an allocation, from its value. */
    private final LongUnaryOperator sizeOf;

    /** @param sizeOf gives the requested size of an allocation from the value stored with it */
    AddressTable(LongUnaryOperator sizeOf) {
        this.sizeOf = sizeOf;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    private static long mix(long address) {
        long h = (address >>> 4) * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }

    /**
     * The stripe of an address: by its 64 KiB region, not by the address itself. C allocators hand a
     * thread blocks from regions of their own (mimalloc's pages, glibc's per-thread arenas), so a
     * thread's allocations mostly fall in a few stripes and two threads rarely write the same stripe. By
     * address, every block of a region landed in another stripe: two threads that allocate and free
     * their own blocks each wrote all 64 stripes in turn, and each took the stripes' cache lines from
     * the other (mimalloc at two threads: about 60 ns per 16-byte allocate + free, against 11 ns bare).
     */
    private Stripe stripe(long address) {
        return stripes[(int) (mix(address >>> STRIPE_REGION_SHIFT) >>> 58)];
    }

    /** Addresses in the same 64 KiB share a stripe. */
    private static final int STRIPE_REGION_SHIFT = 16;

    /**
     * Adds an allocation; its size counts in {@link #bytes()}.
     *
     * @return false if the table was closed (nothing added)
     */
    boolean put(long address, long value) {
        Stripe s = stripe(address);
        lock(s);
        try {
            if (s.closed) {
                return false;
            }
            if ((s.size + 1) * 2 > s.keys.length) {
                grow(s);
            }
            insert(s.keys, s.values, address, value);
            s.size++;
            s.bytes += sizeOf.applyAsLong(value);
            return true;
        } finally {
            unlock(s);
        }
    }

    /** What {@link #remove} returns when the entry there has another size: nothing was removed. */
    static final long WRONG_SIZE = -2;

    /**
     * Removes an allocation if it has the expected size.
     *
     * @param expectedBytes the size the caller frees; an entry of another size (the caller holds a
     *                      slice of it) stays
     * @return its value; -1 if absent (or the table is closed); {@link #WRONG_SIZE} if the entry there
     *         has another size
     */
    long remove(long address, long expectedBytes) {
        Stripe s = stripe(address);
        lock(s);
        try {
            int i = s.closed ? -1 : slotOf(s.keys, address);
            if (i < 0) {
                return -1;
            }
            long value = s.values[i];
            long bytes = sizeOf.applyAsLong(value);
            if (bytes != expectedBytes) {
                return WRONG_SIZE;
            }
            deleteAt(s, i);
            s.size--;
            s.bytes -= bytes;
            return value;
        } finally {
            unlock(s);
        }
    }

    /** @return the requested size of the live allocation at {@code address}, or -1 if there is none */
    long sizeAt(long address) {
        Stripe s = stripe(address);
        lock(s);
        try {
            int i = slotOf(s.keys, address);
            return i < 0 ? -1 : sizeOf.applyAsLong(s.values[i]);
        } finally {
            unlock(s);
        }
    }

    /** @return the slot of {@code address} in a stripe's keys, or -1 if it is not there */
    private static int slotOf(long[] keys, long address) {
        int mask = keys.length - 1;
        for (int i = (int) mix(address) & mask; keys[i] != EMPTY; i = (i + 1) & mask) {
            if (keys[i] == address) {
                return i;
            }
        }
        return -1;
    }

    /** Visits and removes every entry, and refuses additions from now on. */
    void closeAndDrain(LongBinaryOperator visitor) {
        for (Stripe s : stripes) {
            lock(s);
            try {
                s.closed = true;
                for (int i = 0; i < s.keys.length; i++) {
                    if (s.keys[i] != EMPTY) {
                        visitor.applyAsLong(s.keys[i], s.values[i]);
                    }
                }
                s.keys = new long[1];
                s.values = new long[1];
                s.size = 0;
                s.bytes = 0;
            } finally {
                unlock(s);
            }
        }
    }

    /**
     * Finds the live allocation that covers {@code address} without starting there: what a free of a
     * slice of it would name. A pass over every entry, for the failure path only.
     *
     * @return the start of that allocation, or -1 if no live allocation covers {@code address}
     */
    long startCovering(long address) {
        for (Stripe s : stripes) {
            lock(s);
            try {
                for (int i = 0; i < s.keys.length; i++) {
                    long start = s.keys[i];
                    if (start != EMPTY && start < address && address - start < sizeOf.applyAsLong(s.values[i])) {
                        return start;
                    }
                }
            } finally {
                unlock(s);
            }
        }
        return -1;
    }

    long bytes() {
        long sum = 0;
        for (Stripe s : stripes) {
            lock(s);
            try {
                sum += s.bytes;
            } finally {
                unlock(s);
            }
        }
        return sum;
    }

    long count() {
        long sum = 0;
        for (Stripe s : stripes) {
            lock(s);
            try {
                sum += s.size;
            } finally {
                unlock(s);
            }
        }
        return sum;
    }

    private static void insert(long[] keys, long[] values, long key, long value) {
        int mask = keys.length - 1;
        int i = (int) mix(key) & mask;
        while (keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
    }

    private static void grow(Stripe s) {
        long[] oldKeys = s.keys;
        long[] oldValues = s.values;
        long[] keys = new long[oldKeys.length * 2];
        long[] values = new long[keys.length];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                insert(keys, values, oldKeys[i], oldValues[i]);
            }
        }
        s.keys = keys;
        s.values = values;
    }

    /** Linear-probing deletion that shifts later entries back, so lookups never stop at a hole. */
    private static void deleteAt(Stripe s, int hole) {
        long[] keys = s.keys;
        long[] values = s.values;
        int mask = keys.length - 1;
        int i = hole;
        while (true) {
            i = (i + 1) & mask;
            if (keys[i] == EMPTY) {
                break;
            }
            int home = (int) mix(keys[i]) & mask;
            // move keys[i] into the hole if its home is not in (hole, i] (cyclically)
            boolean between = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
            if (!between) {
                keys[hole] = keys[i];
                values[hole] = values[i];
                hole = i;
            }
        }
        keys[hole] = EMPTY;
        values[hole] = 0;
    }
}
