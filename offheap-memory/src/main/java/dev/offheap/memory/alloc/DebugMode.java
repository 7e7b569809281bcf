package dev.offheap.memory.alloc;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How much an allocator records about its allocations, to find leaks, double frees and use after
 * free. Every builder starts from {@link #defaultMode()}, which the system property
 * {@value #PROPERTY} ({@code off}, {@code sampled} or {@code full}) sets for the whole process, so a
 * program can be switched into debugging without a code change.
 *
 * <table class="striped">
 *   <caption>What each mode records and costs</caption>
 *   <thead><tr><th>mode</th><th>records</th><th>detects</th><th>cost</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@link #OFF}</td><td>counters only</td><td>foreign frees, frees of a segment that is
 *       not the start of a block; double frees only where that is free to check (see each allocator)</td>
 *       <td>none beyond the allocator's own</td></tr>
 *   <tr><td>{@link #SAMPLED}</td><td>stack trace and thread of 1 allocation in N
 *       ({@value #SAMPLE_RATE_PROPERTY}, default 4096)</td><td>leaks and double frees of the sampled
 *       allocations, with stack traces</td><td>a counter decrement per allocation; meant to stay on in
 *       production</td></tr>
 *   <tr><td>{@link #FULL}</td><td>stack trace and thread of every allocation and free</td>
 *       <td>every leak, double free and foreign free, with both stack traces; use after free throws
 *       {@link IllegalStateException} because each allocation gets a scope of its own</td>
 *       <td>a stack walk, a map update and a shared arena per allocation: microseconds; for tests and
 *       debugging</td></tr>
 *   </tbody>
 * </table>
 */
public enum DebugMode {
    /** No tracking. */
    OFF,
    /** One allocation in N is tracked with its stack trace and thread. */
    SAMPLED,
    /** Every allocation is tracked, and freed segments become inaccessible. */
    FULL;

    /** System property that sets {@link #defaultMode()}: {@code off}, {@code sampled} or {@code full}. */
    public static final String PROPERTY = "offheap.alloc.debug";
    /** System property that sets {@link #defaultSampleRate()}: a positive integer N (1 in N is tracked). */
    public static final String SAMPLE_RATE_PROPERTY = "offheap.alloc.debug.sampleRate";
    /**
     * Sample rate used when {@value #SAMPLE_RATE_PROPERTY} is not set: 1 allocation in 4096. A
     * tracked allocation and its free cost about 2 to 3 microseconds (a stack capture and map
     * updates), so at 1 in 4096 they add under 1 ns to the average allocation; 1 in 128 added 15 to
     * 25 ns, more than the pooled allocator's whole fast path. A lower N finds rare leaks sooner at a
     * proportional cost.
     */
    public static final int DEFAULT_SAMPLE_RATE = 4096;

    /**
     * Draws whether an allocation made now is tracked, for allocations off the per-thread countdowns
     * (large blocks): every one in FULL, a random 1 in {@code sampleRate} in SAMPLED, none in OFF.
     */
    boolean tracksNext(int sampleRate) {
        return this == FULL || this == SAMPLED && ThreadLocalRandom.current().nextInt(sampleRate) == 0;
    }

    /**
     * The mode every allocator builder starts with: the value of the system property
     * {@value #PROPERTY} (case-insensitive), or {@link #OFF} when it is not set. Read on every call,
     * so a test may change it before building an allocator.
     *
     * @return the default mode
     * @throws IllegalArgumentException if the property is set to something other than
     *                                  {@code off}, {@code sampled} or {@code full}
     */
    public static DebugMode defaultMode() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return OFF;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "off" -> OFF;
            case "sampled" -> SAMPLED;
            case "full" -> FULL;
            default -> throw new IllegalArgumentException("system property " + PROPERTY + " must be off, sampled or full, was '"
                    + value + "'");
        };
    }

    /**
     * The sample rate every allocator builder starts with: the system property
     * {@value #SAMPLE_RATE_PROPERTY}, or {@value #DEFAULT_SAMPLE_RATE} when it is not set.
     *
     * @return N, where 1 allocation in N is tracked in {@link #SAMPLED} mode; at least 1
     * @throws IllegalArgumentException if the property is not a positive integer in ASCII digits
     */
    public static int defaultSampleRate() {
        String value = System.getProperty(SAMPLE_RATE_PROPERTY);
        if (value == null || value.isBlank()) {
            return DEFAULT_SAMPLE_RATE;
        }
        // ASCII only: parseInt takes any script's digits, so "１６" was 16
        if (value.chars().allMatch(c -> c < 0x80)) {
            try {
                int rate = Integer.parseInt(value.strip());
                if (rate >= 1) {
                    return rate;
                }
            } catch (NumberFormatException ignored) {
                // reported below with the property's name
            }
        }
        throw new IllegalArgumentException("system property " + SAMPLE_RATE_PROPERTY + " must be a positive integer, was '"
                + value + "'");
    }
}
