package dev.offheap.bench.cache;

import org.openjdk.jmh.annotations.Threads;

/** {@link CacheMixBenchmark} on two threads sharing each cache: operations per second summed over both. */
@Threads(2)
public class CacheMixTwoThreadsBenchmark extends CacheMixBenchmark {
}
