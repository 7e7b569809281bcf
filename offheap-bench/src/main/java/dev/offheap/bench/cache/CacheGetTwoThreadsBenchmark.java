package dev.offheap.bench.cache;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link CacheGetBenchmark} on two threads sharing each cache: gets per second summed over both.
 * Reads of one cache should not block each other; the scaling means something only on a machine with
 * two otherwise idle cores.
 */
@Threads(2)
public class CacheGetTwoThreadsBenchmark extends CacheGetBenchmark {
}
