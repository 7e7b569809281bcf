package dev.offheap.bench.cache;

import org.openjdk.jmh.annotations.Threads;

/** {@link CachePutBenchmark} on two threads sharing each cache: puts per second summed over both. */
@Threads(2)
public class CachePutTwoThreadsBenchmark extends CachePutBenchmark {
}
