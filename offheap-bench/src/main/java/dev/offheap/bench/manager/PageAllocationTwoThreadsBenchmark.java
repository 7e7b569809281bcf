package dev.offheap.bench.manager;

import dev.offheap.memory.MemoryManager;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Threads;

/**
 * Allocate + touch + release of {@code pageCount} pages of {@code pageSize} bytes, on two threads at once, each with its own owner.
 * The same code as {@link PageAllocationBenchmark}, on two threads: JMH sums the threads' throughput, so this class's {@code managerConfined} score divided by that class's is the scaling the goal asks for (at least 1.6).
 *
 * <p>The scaling only means something on a machine with two otherwise idle cores.
 *
 * <p>Mode: {@link Mode#Throughput} in operations (one operation = all {@code pageCount} pages
 * allocated, touched and released) per millisecond, summed over the threads; higher is better,
 * so "N times faster than the baseline" is a score ratio of N. Touching writes the first and the
 * last long of every page.
 *
 * <p>The variants:
 * <ul>
 * <li>{@code flinkUnsafe} (baseline): Flink 1.20's off-heap page,
 *     {@code MemorySegmentFactory.allocateOffHeapUnsafeMemory(pageSize, owner, cleanup)} and
 *     {@code free()}: {@code Unsafe.allocateMemory} / {@code freeMemory} plus a DirectByteBuffer
 *     wrapper. Flink's own MemoryManager adds budget bookkeeping on top; this is its floor.
 *     Works on JDK 25 as is; its fork adds {@link PageOps#FLINK_JVM_ARG} only to silence the
 *     Unsafe deprecation warning.
 * <li>{@code managerConfined}: a NATIVE {@link MemoryManager} with CONFINED pages (pre-allocated,
 *     16 MiB); {@code allocatePage(owner)} + {@code release(page)} for one page,
 *     {@code allocatePages(owner, n)} + {@code release(list)} for more.
 * <li>{@code managerShared}: the same with SHARED pages; each release closes a shared scope,
 *     which costs a JVM-wide handshake.
 * <li>{@code arenaConfined}, {@code arenaShared}: one {@code Arena.ofConfined()} /
 *     {@code Arena.ofShared()} per page, {@code allocate(pageSize)} and {@code close()}.
 * </ul>
 * Goals checked: manager allocate+release of one page at least 5x Flink's and at least 100x
 * {@code Arena.ofShared()} per page; at two threads at least 1.6x the one-thread throughput.
 */
@Threads(2)
public class PageAllocationTwoThreadsBenchmark extends PageAllocationBenchmark {
}
