package dev.offheap.bench.cache;

import org.openjdk.jmh.annotations.Threads;

/** {@link JCacheListenerBenchmark} on two threads sharing the caches: puts per second summed over both. */
@Threads(2)
public class JCacheListenerTwoThreadsBenchmark extends JCacheListenerBenchmark {
}
