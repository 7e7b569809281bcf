package dev.offheap.memory.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A lock-free LIFO stack of page slot numbers {@code 0..capacity-1}, each present at most once.
 *
 * <p>A Treiber stack whose links live in an {@code int[]} indexed by slot, so pushing and popping
 * allocate nothing. The head packs a version in its upper 32 bits with the top slot in the lower
 * 32; every successful update bumps the version, so a pop that read a stale link fails its
 * compare-and-set instead of corrupting the stack (the ABA problem).
 *
 * <p>Thread-safe. The caller guarantees a slot is pushed only when it is not in the stack; the
 * page manager's per-slot state (leased or not, changed by compare-and-set) provides that.
 */
public final class SlotStack {
    private static final int EMPTY = -1;
    private static final VarHandle HEAD;
    private static final VarHandle NEXT = MethodHandles.arrayElementVarHandle(int[].class);

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(SlotStack.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int[] next;
    @SuppressWarnings("unused") // accessed through HEAD
    private volatile long head = pack(0, EMPTY);

    /**
     * Creates an empty stack for slots below {@code capacity}.
     *
     * @param capacity the number of distinct slots
     */
    public SlotStack(int capacity) {
        this.next = new int[capacity];
    }

    /**
     * Pushes a slot that is not in the stack.
     *
     * @param slot the slot number
     */
    public void push(int slot) {
        long current;
        do {
            current = (long) HEAD.getVolatile(this);
            NEXT.setRelease(next, slot, (int) current);
        } while (!HEAD.weakCompareAndSet(this, current, pack(version(current) + 1, slot)));
    }

    /**
     * Pushes {@code count} slots that are not in the stack with one compare-and-set: the slots are
     * linked to each other first, and only the last link changes while other threads push and pop.
     * {@code slots[from]} ends on top.
     *
     * @param slots the slot numbers, distinct
     * @param from  index of the first slot in {@code slots}
     * @param count how many; 0 does nothing
     */
    public void pushAll(int[] slots, int from, int count) {
        if (count <= 0) {
            return;
        }
        for (int i = from; i < from + count - 1; i++) {
            NEXT.setRelease(next, slots[i], slots[i + 1]);
        }
        int first = slots[from];
        int last = slots[from + count - 1];
        long current;
        do {
            current = (long) HEAD.getVolatile(this);
            NEXT.setRelease(next, last, (int) current);
        } while (!HEAD.weakCompareAndSet(this, current, pack(version(current) + 1, first)));
    }

    /**
     * Pops up to {@code count} slots with one compare-and-set. The links walked between reading the
     * head and setting it are consistent whenever the set succeeds: a link changes only when its
     * slot is pushed, which needs a pop of that slot first, and each of both bumps the version.
     *
     * @param into  where the popped slots go
     * @param from  index in {@code into} of the first
     * @param count how many at most
     * @return how many were popped: {@code count}, or fewer when the stack held fewer
     */
    public int popAll(int[] into, int from, int count) {
        long current;
        int taken;
        int top;
        do {
            current = (long) HEAD.getVolatile(this);
            top = (int) current;
            taken = 0;
            while (taken < count && top != EMPTY) {
                into[from + taken++] = top;
                top = (int) NEXT.getAcquire(next, top);
            }
            if (taken == 0) {
                return 0;
            }
        } while (!HEAD.weakCompareAndSet(this, current, pack(version(current) + 1, top)));
        return taken;
    }

    /** @return the slot on top, removed, or -1 when empty */
    public int pop() {
        long current;
        int top;
        do {
            current = (long) HEAD.getVolatile(this);
            top = (int) current;
            if (top == EMPTY) {
                return EMPTY;
            }
        } while (!HEAD.weakCompareAndSet(this, current, pack(version(current) + 1, (int) NEXT.getAcquire(next, top))));
        return top;
    }

    /** @return whether the stack held no slot at the moment of the call */
    public boolean isEmpty() {
        return (int) (long) HEAD.getVolatile(this) == EMPTY;
    }

    private static long pack(long version, int slot) {
        return (version << 32) | (slot & 0xFFFF_FFFFL);
    }

    private static long version(long packed) {
        return packed >>> 32;
    }
}
