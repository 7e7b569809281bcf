package dev.offheap.cli.sample;

import dev.offheap.bench.Baseline;

/**
 * Stands in for a throughput benchmark class named in the committed sample JSON: the report finds
 * its baseline by reflection. It is not a JMH benchmark, so no test runs it.
 */
public class ThroughputSample {
    /** The baseline. */
    @Baseline
    public void pooled() {
    }

    /** A variant. */
    public void arena() {
    }
}
