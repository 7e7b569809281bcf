package dev.offheap.cli.bench;

import org.openjdk.jmh.runner.options.TimeValue;

/**
 * How long {@code offheap bench} measures. Each mode overrides the forks and the warmup and
 * measurement iterations and times of every benchmark; everything else a class's annotations say
 * ({@code @Fork(jvmArgsAppend)}, {@code @Threads}, {@code @BenchmarkMode}, {@code @Param}, ...)
 * still applies.
 */
public enum BenchMode {
    /** The default: a first look in a few minutes. */
    QUICK(1, 1, TimeValue.milliseconds(300), 2, TimeValue.milliseconds(300)),
    /** The numbers that are committed to docs/benchmarks. */
    FULL(2, 3, TimeValue.seconds(1), 5, TimeValue.seconds(1)),
    /** CI: proves every benchmark still runs, nothing more. */
    SMOKE(1, 1, TimeValue.milliseconds(100), 1, TimeValue.milliseconds(100));

    final int forks;
    final int warmupIterations;
    final TimeValue warmupTime;
    final int measurementIterations;
    final TimeValue measurementTime;

    BenchMode(int forks, int warmupIterations, TimeValue warmupTime, int measurementIterations,
            TimeValue measurementTime) {
        this.forks = forks;
        this.warmupIterations = warmupIterations;
        this.warmupTime = warmupTime;
        this.measurementIterations = measurementIterations;
        this.measurementTime = measurementTime;
    }

    /** @return the name used on the command line and in reports */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** @return the settings in words, e.g. {@code 1 fork, 2 warmup × 500 ms, 3 measurement × 500 ms} */
    public String describe() {
        return describe(null);
    }

    /**
     * @param forks the forks that replace the mode's ({@code --forks}), or null for the mode's
     * @return the settings in words, with those forks
     */
    public String describe(Integer forks) {
        int n = forks != null ? forks : this.forks;
        return n + (n == 1 ? " fork, " : " forks, ") + warmupIterations + " warmup × " + warmupTime + ", "
                + measurementIterations + " measurement × " + measurementTime;
    }
}
