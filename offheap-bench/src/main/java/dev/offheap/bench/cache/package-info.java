/**
 * The cache benchmarks ({@code offheap bench cache}): {@link dev.offheap.cache.OffHeapCache} against
 * Caffeine (on the heap, weighed by value bytes) and OHC 0.7.4 (off the heap, linked implementation,
 * LRU and W-TinyLFU), all in the same run.
 *
 * <ul>
 * <li>{@link dev.offheap.bench.cache.CacheGetBenchmark}, {@link dev.offheap.bench.cache.CachePutBenchmark},
 *     {@link dev.offheap.bench.cache.CacheMixBenchmark} and their two-thread subclasses: throughput of
 *     hits, overwrites and a 90/10 mix at 100-byte and 100,000-byte values; the mix runs with JMH's GC
 *     profiler.
 * <li>{@link dev.offheap.bench.cache.CacheGetAllBenchmark}: bulk gets of 64 keys, {@code getAllPresent}
 *     against a loop of single gets; {@link dev.offheap.bench.cache.JCacheGetAllBenchmark} the same through
 *     the JCache layer ({@code offheap-jcache}).
 * <li>{@link dev.offheap.bench.cache.JCacheListenerBenchmark} and its two-thread subclass: JCache puts
 *     with a synchronous entry listener against puts without one.
 * <li>{@link dev.offheap.bench.cache.CacheBandwidthBenchmark}: bytes per second of copying gets and
 *     puts against {@code MemorySegment.copy} of the same bytes.
 * <li>{@link dev.offheap.bench.cache.CacheFootprintBenchmark}: native bytes per entry, from each
 *     cache's own accounting, Native Memory Tracking and the process's resident set.
 * <li>{@link dev.offheap.bench.cache.HitRatioBenchmark}: hit ratio at equal byte capacity on seeded
 *     Zipf and scan-heavy key streams.
 * </ul>
 *
 * <p>Every benchmark's workload is a {@link dev.offheap.bench.cache.Workload}: a key count and a value
 * size written {@code <keys>x<valueBytes>}, keys are {@code Long}s, values {@code byte[]}s.
 */
package dev.offheap.bench.cache;
