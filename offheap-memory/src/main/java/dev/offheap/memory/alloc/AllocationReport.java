package dev.offheap.memory.alloc;

import java.util.List;
import java.util.Objects;

/**
 * A snapshot of what an {@link Allocator} holds: live bytes, native footprint, and, in a debug mode,
 * the live allocations grouped by the stack trace and thread that allocated them, and the problems
 * (double frees, foreign frees) seen so far.
 *
 * <p>In {@link DebugMode#OFF} {@link #leaks()} is empty; in {@link DebugMode#SAMPLED} it lists only
 * the sampled allocations, so its byte counts are a sample (about 1 in the sample rate), not a total.
 * {@link #toString()} renders the report as text, as logged by {@code close()} and given by
 * {@link AllocatorMXBean#report()}: the totals, the {@value #MAX_LEAK_GROUPS_IN_TEXT} leak groups with
 * the most bytes at most (with one line for the groups left out), and the problems. The record itself
 * keeps every group, and its numbers are exact.
 *
 * @param allocator       the allocator's name
 * @param debugMode       the allocator's debug mode
 * @param allocatedBytes  bytes of live allocations, as requested
 * @param footprintBytes  native bytes the allocator holds from the system, caches and free lists included
 * @param liveAllocations live allocations (all of them, tracked or not)
 * @param leaks           tracked live allocations grouped by (stack trace, thread), most bytes first
 * @param problems        descriptions of double frees and foreign frees seen, oldest first (at most
 *                        the last 100)
 */
public record AllocationReport(String allocator, DebugMode debugMode, long allocatedBytes, long footprintBytes,
                               long liveAllocations, List<Leak> leaks, List<String> problems) {

    /**
     * Leak groups {@link #toString()} lists at most: the first ones of {@link #leaks()}, those with the most
     * bytes. In {@link DebugMode#FULL} every (stack, thread) pair is a group, so a pool whose threads come and
     * go, each with a name of its own, makes one per thread and site: a million live allocations of that kind
     * made a text of about 1 GB, logged at close and sent over JMX. A group's stack has at most 24 frames.
     */
    public static final int MAX_LEAK_GROUPS_IN_TEXT = 100;

    /**
     * Copies the lists.
     *
     * @throws NullPointerException if a reference component is null
     */
    public AllocationReport {
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(debugMode, "debugMode");
        leaks = List.copyOf(leaks);
        problems = List.copyOf(problems);
    }

    /**
     * Tracked live allocations that share an allocation site and thread.
     *
     * @param thread the name of the allocating thread
     * @param stack  the stack trace of the allocation, innermost caller first (allocator frames left out)
     * @param count  how many allocations
     * @param bytes  their requested bytes in total
     */
    public record Leak(String thread, List<StackTraceElement> stack, long count, long bytes) {
        /**
         * Copies the stack.
         *
         * @throws NullPointerException if {@code thread} or {@code stack} is null
         */
        public Leak {
            Objects.requireNonNull(thread, "thread");
            stack = List.copyOf(stack);
        }
    }

    /** @return the tracked live bytes, the sum of {@link #leaks()} */
    public long trackedLeakBytes() {
        long sum = 0;
        for (Leak leak : leaks) {
            sum += leak.bytes();
        }
        return sum;
    }

    /**
     * @return the report as several lines of text: totals, then the leak groups with their stack traces (the
     * first {@value #MAX_LEAK_GROUPS_IN_TEXT} of {@link #leaks()} at most, those with the most bytes, and a
     * line saying how many groups, allocations and bytes are left out), then the problems
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append("allocator '").append(allocator).append("' (debug ").append(debugMode.name().toLowerCase(java.util.Locale.ROOT))
                .append("): ").append(liveAllocations).append(" live allocations, ").append(allocatedBytes)
                .append(" bytes allocated, ").append(footprintBytes).append(" bytes footprint");
        if (!leaks.isEmpty()) {
            int listed = Math.min(leaks.size(), MAX_LEAK_GROUPS_IN_TEXT);
            sb.append("\n").append(debugMode == DebugMode.SAMPLED ? "sampled live allocations" : "live allocations")
                    .append(" by allocation site and thread");
            if (listed < leaks.size()) {
                sb.append(" (").append(leaks.size()).append(" groups, the ").append(listed).append(" with the most bytes listed)");
            }
            sb.append(":");
            for (Leak leak : leaks.subList(0, listed)) {
                sb.append("\n  ").append(leak.count()).append(" allocations, ").append(leak.bytes())
                        .append(" bytes, thread '").append(leak.thread()).append("'");
                for (StackTraceElement e : leak.stack()) {
                    sb.append("\n      at ").append(e);
                }
            }
            if (listed < leaks.size()) {
                long count = 0;
                long bytes = 0;
                for (Leak leak : leaks.subList(listed, leaks.size())) {
                    count += leak.count();
                    bytes += leak.bytes();
                }
                sb.append("\n  ... ").append(leaks.size() - listed).append(" more groups (").append(count)
                        .append(" allocations, ").append(bytes).append(" bytes) left out of this text");
            }
        }
        if (!problems.isEmpty()) {
            sb.append("\nproblems:");
            for (String p : problems) {
                sb.append("\n  ").append(p.replace("\n", "\n  "));
            }
        }
        return sb.toString();
    }
}
