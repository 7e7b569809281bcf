package dev.offheap.bench;

import java.util.Optional;

/**
 * Something a benchmark needs from the machine (a native library, a file system) that may be
 * missing. Named by {@link Requires}; implementations have a public no-argument constructor and
 * are cheap to ask more than once.
 */
public interface Precondition {
    /**
     * Checks the machine this JVM runs on. Called on any thread, possibly more than once.
     *
     * @return empty when the benchmark can run here; otherwise why not and what to install, in one
     *     line a user can act on
     */
    Optional<String> unmet();
}
