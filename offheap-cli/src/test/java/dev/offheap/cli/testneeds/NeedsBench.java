package dev.offheap.cli.testneeds;

import dev.offheap.bench.Baseline;
import dev.offheap.bench.Precondition;
import dev.offheap.bench.Requires;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * A test-only benchmark with preconditions: one method needs nothing, one needs what is always
 * there, one needs a library no machine has (the CLI must leave it out with the reason), and one's
 * precondition throws.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
public class NeedsBench {
    /** The reason {@link MissingLibrary} gives. */
    public static final String MISSING = "libexample.so.1 is not installed; install the Debian package libexample1";

    private long x = 1;

    /** Never unmet. */
    public static final class AlwaysThere implements Precondition {
        /** Creates the check. */
        public AlwaysThere() {
        }

        @Override
        public Optional<String> unmet() {
            return Optional.empty();
        }
    }

    /** Always unmet. */
    public static final class MissingLibrary implements Precondition {
        /** Creates the check. */
        public MissingLibrary() {
        }

        @Override
        public Optional<String> unmet() {
            return Optional.of(MISSING);
        }
    }

    /** Cannot decide. */
    public static final class Broken implements Precondition {
        /** Creates the check. */
        public Broken() {
        }

        @Override
        public Optional<String> unmet() {
            throw new IllegalStateException("probe crashed");
        }
    }

    /** @return a changing value */
    @Benchmark
    @Baseline
    public long plain() {
        return x = x * 31 + 7;
    }

    /** @return a changing value */
    @Benchmark
    @Requires(AlwaysThere.class)
    public long needsWhatIsThere() {
        return x = x * 17 + 3;
    }

    /** @return never runs through the CLI */
    @Benchmark
    @Requires(MissingLibrary.class)
    public long needsMissingLibrary() {
        throw new IllegalStateException(MISSING);
    }

    /** @return never runs through the CLI */
    @Benchmark
    @Requires(Broken.class)
    public long needsBrokenCheck() {
        throw new IllegalStateException("the precondition could not be checked");
    }
}
