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
 * {@link #toString()} renders the whole report as text, as logged by {@code close()}.
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

    /** @return the report as several lines of text: totals, then each leak group with its stack trace, then problems */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append("allocator '").append(allocator).append("' (debug ").append(debugMode.name().toLowerCase(java.util.Locale.ROOT))
                .append("): ").append(liveAllocations).append(" live allocations, ").append(allocatedBytes)
                .append(" bytes allocated, ").append(footprintBytes).append(" bytes footprint");
        if (!leaks.isEmpty()) {
            sb.append("\n").append(debugMode == DebugMode.SAMPLED ? "sampled live allocations" : "live allocations")
                    .append(" by allocation site and thread:");
            for (Leak leak : leaks) {
                sb.append("\n  ").append(leak.count()).append(" allocations, ").append(leak.bytes())
                        .append(" bytes, thread '").append(leak.thread()).append("'");
                for (StackTraceElement e : leak.stack()) {
                    sb.append("\n      at ").append(e);
                }
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
