/**
 * jcstress tests of the lock-free primitives in {@code offheap-memory}: the page manager's free-slot
 * stack ({@link dev.offheap.memory.internal.SlotStack}) and {@link dev.offheap.memory.Budget}; and of the
 * cache's optimistic reads ({@link dev.offheap.jcstress.CacheGetVersusMovingPutTest}). The tests of the
 * JCache layer's package-private classes sit in their package, {@code dev.offheap.jcache.internal}, and those of
 * the memory manager's sweep of idle owners' records, which use a package-private seam, in {@code dev.offheap.memory}.
 *
 * <p>Each test is a small concurrent scenario whose actors run against one fresh state, millions of
 * times, across JIT modes; the arbiter, which runs after all actors, drains or inspects the state so
 * that a lost or duplicated slot, or a byte counted on one level of a budget tree and not on
 * another, shows up in the result tuple. Every tuple that a correct implementation can produce is
 * listed as {@code ACCEPTABLE} (or {@code ACCEPTABLE_INTERESTING} where it needs a race to appear);
 * everything else falls into a {@code FORBIDDEN} default outcome, so a broken implementation fails
 * the run instead of merely printing unusual numbers.
 *
 * <p>The tests run on the class path, where the non-exported {@code internal} packages are reachable.
 * See the module's README for how to run them.
 */
package dev.offheap.jcstress;
