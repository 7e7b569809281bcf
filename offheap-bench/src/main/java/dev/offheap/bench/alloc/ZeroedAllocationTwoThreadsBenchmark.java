package dev.offheap.bench.alloc;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link ZeroedAllocationBenchmark} on two threads at once: the same variants and sizes, shared
 * allocators shared by both threads; nanoseconds per operation per thread. On a two-core machine
 * the JIT, GC and other work compete with the benchmark threads, so the slowdown against one
 * thread is an upper bound.
 */
@Threads(2)
public class ZeroedAllocationTwoThreadsBenchmark extends ZeroedAllocationBenchmark {
}
