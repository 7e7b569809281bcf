package dev.offheap.bench.alloc;

import org.openjdk.jmh.annotations.Threads;

/**
 * {@link UninitializedAllocationBenchmark} on two threads at once: the same variants and sizes;
 * allocators that programs share between threads (Netty's, the library's) are shared by both
 * threads. Scores are nanoseconds per operation per thread, so this class's score divided by the
 * one-thread class's at the same variant and size is the slowdown the goal bounds (at most 1.25).
 *
 * <p>That ratio means something only on a machine with two otherwise idle cores: on two cores the
 * JIT, GC and other work compete with the two benchmark threads, so it is an upper bound.
 */
@Threads(2)
public class UninitializedAllocationTwoThreadsBenchmark extends UninitializedAllocationBenchmark {
}
