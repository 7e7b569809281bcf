package dev.offheap.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import dev.offheap.memory.Budget;
import dev.offheap.memory.ByteSize;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Java examples of docs/cache.md ("Usage" and "Serving large values without the heap") and the
 * Micrometer binder's javadoc example, run as written (with the helpers they leave to the reader filled in)
 * and checked against what their comments and the text around them say.
 */
class CacheDocExamplesTest {

    private final List<String> removals = new ArrayList<>();
    private final AtomicInteger fetches = new AtomicInteger();

    private void log(Long key, RemovalCause cause) {
        removals.add(key + " " + cause);
    }

    private byte[] fetch(Long key) {
        fetches.incrementAndGet();
        return new byte[] {key.byteValue(), 2, 3};
    }

    private static long crc(MemorySegment segment) {
        long sum = 0;
        for (byte b : segment.toArray(ValueLayout.JAVA_BYTE)) {
            sum = sum * 31 + b;
        }
        return sum;
    }

    private static byte[] init() {
        return new byte[] {0};
    }

    private static byte[] update(byte[] old) {
        byte[] next = Arrays.copyOf(old, old.length + 1);
        next[old.length] = 9;
        return next;
    }

    @Test
    void theUsageExampleCopiesLoadsReadsInPlaceComputesAndClosesAsItsCommentsSay() {
        MeterRegistry meterRegistry = new SimpleMeterRegistry();
        try (Budget parentBudget = Budget.root("parent", 1L << 30)) {
            OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                    .capacity(256L << 20)                        // bytes, tables and headers included; required
                    .maxEntryBytes(4L << 20)                     // default capacity / 16
                    .evictionPolicy(EvictionPolicy.W_TINY_LFU)   // default; or LRU
                    .expireAfterWrite(Duration.ofMinutes(10))    // and/or expireAfterAccess; put(k, v, ttl) per entry
                    .cleanUpInterval(Duration.ofSeconds(30))     // expired entries leave even when no writes come
                    .concurrencyLevel(16)                        // about this many independent segments
                    .recordStats(true)                           // default on
                    .removalListener((key, value, cause) -> log(key, cause))
                    .loader(key -> fetch(key))                   // for get(key) and getAll(keys)
                    .budget(parentBudget)                        // charged the whole capacity at build
                    .name("offers")                              // MBean dev.offheap:type=Cache,name="offers"
                    .build();
            assertThat(parentBudget.used()).as("charged the whole capacity at build").isEqualTo(256L << 20);
            assertThat(((OffHeapCacheImpl<?, ?>) cache).shardCount()).as("about 16 independent segments").isEqualTo(16);

            byte[] bytes = {1, 2, 3, 4};
            cache.put(1L, bytes);
            byte[] copy = cache.getIfPresent(1L);                // a new array: values are copies
            assertThat(copy).isEqualTo(bytes).isNotSameAs(bytes);
            assertThat(cache.getIfPresent(1L)).isNotSameAs(copy);
            byte[] loaded = cache.get(2L, key -> fetch(key));    // one load per key; waiters share its result
            assertThat(loaded).containsExactly(2, 2, 3);
            assertThat(cache.get(2L, key -> fetch(key))).containsExactly(2, 2, 3);
            assertThat(fetches.get()).isEqualTo(1);
            assertThat(cache.get(3L)).as("the builder's loader").containsExactly(3, 2, 3);
            assertThat(cache.getAll(List.of(1L, 4L))).containsOnlyKeys(1L, 4L);
            long checksum = cache.read(1L, segment -> crc(segment)); // in place; the segment dies after the call
            assertThat(checksum).isEqualTo(crc(MemorySegment.ofArray(bytes)));
            MemorySegment[] escaped = new MemorySegment[1];
            cache.read(1L, segment -> escaped[0] = segment);
            assertThatThrownBy(() -> escaped[0].get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            cache.compute(1L, (key, old) -> old == null ? init() : update(old));
            assertThat(cache.getIfPresent(1L)).containsExactly(1, 2, 3, 4, 9);
            cache.compute(5L, (key, old) -> old == null ? init() : update(old));
            assertThat(cache.getIfPresent(5L)).containsExactly(0);
            assertThat(removals).containsExactly("1 REPLACED");
            java.util.concurrent.ConcurrentMap<Long, byte[]> map = cache.asMap(); // for code that takes a map
            assertThat(map.get(5L)).containsExactly(0);
            assertThat(map).containsKeys(1L, 2L, 3L, 4L, 5L);
            new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(meterRegistry); // optional Micrometer
            assertThat(meterRegistry.get("cache.gets").tag("result", "hit").functionCounter().count()).isPositive();
            assertThat(meterRegistry.get("cache.size").gauge().value()).isEqualTo(5);
            assertThat(meterRegistry.get("cache.memory.capacity").gauge().value()).isEqualTo(256L << 20);
            assertThatThrownBy(() -> cache.put(6L, new byte[5 << 20])).as("over maxEntryBytes")
                    .isInstanceOf(ValueTooLargeException.class);
            cache.close();                                       // frees everything; later calls throw
            assertThatThrownBy(() -> cache.getIfPresent(1L)).isInstanceOf(IllegalStateException.class);
            assertThat(parentBudget.used()).as("given back at close").isZero();
        }
    }

    @Test
    void theDefaultMaxEntrySizeIsASixteenthOfTheCapacity() {
        try (OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(256L << 20).build()) {
            cache.put(1L, new byte[(16 << 20) - 1024]);
            assertThat(cache.getIfPresent(1L)).hasSize((16 << 20) - 1024);
            assertThatThrownBy(() -> cache.put(2L, new byte[16 << 20])).isInstanceOf(ValueTooLargeException.class);
        }
    }

    /** "Serving large values without the heap". */
    @Test
    void readOrLoadServesAStoredValueFromTheCachesMemoryOnHitsAndMisses() throws Exception {
        final long MAX_BLOB = 1 << 20;
        long id = 7L;
        AtomicInteger storeReads = new AtomicInteger();
        interface Store {
            long readInto(Long key, MemorySegment buffer);
        }
        Store store = (key, buffer) -> {
            storeReads.incrementAndGet();
            long size = 100_000;
            buffer.asSlice(0, size).fill((byte) key.longValue());
            return size;
        };
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        WritableByteChannel channel = Channels.newChannel(sink);

        try (OffHeapCache<Long, MemorySegment> blobs = OffHeapCache.builder(Serializer.longs(), Serializer.segments())
                .capacity(ByteSize.parse("4g")).build()) {
            ThreadLocal<MemorySegment> buffers = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(MAX_BLOB));
            for (int round = 0; round < 2; round++) {
                long written = blobs.readOrLoad(id, key -> {
                    MemorySegment buffer = buffers.get();
                    long size = store.readInto(key, buffer);          // e.g. a JDBC binary stream or a FileChannel read
                    return buffer.asSlice(0, size);
                }, segment -> {                                       // served from the cache's memory
                    try {
                        return channel.write(segment.asByteBuffer());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);              // the reader is a Function: no checked exceptions
                    }
                });
                assertThat(written).isEqualTo(100_000);
            }
            assertThat(storeReads.get()).as("loaded on the miss only").isEqualTo(1);
            byte[] served = sink.toByteArray();
            assertThat(served).hasSize(200_000);
            for (byte b : served) {
                if (b != 7) {
                    throw new AssertionError("served a byte other than the stored ones: " + b);
                }
            }
            assertThat(blobs.stats().hitCount()).isEqualTo(1);
            assertThat(blobs.stats().missCount()).isEqualTo(1);
        }
    }

    /**
     * "A value over 16 KiB is staged for the store in native memory rather than in a heap array, so with
     * Serializer.segments() and a loader that fills a native buffer its thread reuses, neither a hit nor a miss
     * puts a copy of the value on the heap."
     */
    @Test
    void servingLargeValuesWithReadOrLoadPutsNoCopyOfThemOnTheHeap() {
        final long MAX_BLOB = 1 << 20;
        final int size = 200_000;
        long[] served = new long[1];
        WritableByteChannel channel = new WritableByteChannel() {
            @Override
            public int write(java.nio.ByteBuffer src) {
                int n = src.remaining();
                served[0] += src.get(src.position()) + n;     // touches the bytes, keeps none
                src.position(src.limit());
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (OffHeapCache<Long, MemorySegment> blobs = OffHeapCache.builder(Serializer.longs(), Serializer.segments())
                .capacity(ByteSize.parse("64m")).build()) {
            ThreadLocal<MemorySegment> buffers = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(MAX_BLOB));
            java.util.function.LongUnaryOperator serve = id -> blobs.readOrLoad(id, key -> {
                MemorySegment buffer = buffers.get();
                buffer.asSlice(0, size).fill((byte) 1);
                return buffer.asSlice(0, size);
            }, segment -> {
                try {
                    return channel.write(segment.asByteBuffer());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            for (long id = 0; id < 50; id++) {          // warm up: misses, then hits
                serve.applyAsLong(id);
                serve.applyAsLong(id);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (long id = 1000; id < 1040; id++) {     // 40 misses and 40 hits of 200,000 bytes each
                serve.applyAsLong(id);
                serve.applyAsLong(id);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("heap bytes allocated by 80 calls that served 16,000,000 bytes")
                    .isLessThan(size);
        }
    }

    /** OffHeapCacheMetrics' javadoc: "every meter carries the tag cache=&lt;name&gt;". */
    @Test
    void theMetricsBindersJavadocExampleTagsEveryMeterWithTheCachesName() {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
            cache.put("a", "1");
            cache.getIfPresent("a");
            cache.getIfPresent("b");
            assertThat(registry.getMeters()).isNotEmpty()
                    .allSatisfy(m -> assertThat(m.getId().getTag("cache")).isEqualTo("offers"));
            assertThat(registry.get("cache.gets").tag("result", "hit").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("cache.gets").tag("result", "miss").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("cache.size").gauge().value()).isEqualTo(1);
            Map<String, Boolean> names = new java.util.TreeMap<>();
            registry.getMeters().forEach(m -> names.put(m.getId().getName(), true));
            assertThat(names).containsKeys("cache.gets", "cache.evictions", "cache.eviction.weight", "cache.load",
                    "cache.load.duration", "cache.size", "cache.expirations", "cache.weight", "cache.memory.used",
                    "cache.memory.capacity").doesNotContainKey("cache.puts");
        }
    }
}
