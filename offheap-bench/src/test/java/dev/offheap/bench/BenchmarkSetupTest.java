package dev.offheap.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.github.benmanes.caffeine.cache.Cache;
import dev.offheap.bench.cache.CacheBandwidthBenchmark;
import dev.offheap.bench.cache.CacheStates;
import dev.offheap.memory.alloc.LargeRegions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Benchmark states that did not set up what their benchmarks claim to measure. The states live in
 * their benchmarks' packages with package-private fields (JMH's generated code reads them there), so
 * this test reads those fields reflectively.
 */
class BenchmarkSetupTest {

    /**
     * The cache suite's Caffeine was filled with the 8 shared value templates, so its heap held 8 value
     * arrays where a service's cache (and the {@code CacheFootprintBenchmark}'s) holds one per entry; the
     * puts of the put and mix benchmarks then replaced them with fresh copies while they were measured,
     * so the heap the collector traced grew from one iteration to the next.
     */
    @Test
    void caffeineIsFilledWithAValueArrayOfItsOwnPerEntry() throws Exception {
        CacheStates.Keys keys = new CacheStates.Keys();
        keys.workload = "64x100";
        keys.setUp();
        CacheStates.OnHeapCallerMaintenance state = new CacheStates.OnHeapCallerMaintenance();
        state.setUp(keys);
        try {
            @SuppressWarnings("unchecked")
            Cache<Long, byte[]> cache = (Cache<Long, byte[]>) read(CacheStates.Caffeines.class, state, "cache");
            Object workload = read(CacheStates.Keys.class, keys, "w");
            Long[] keyArray = (Long[]) read(workload.getClass(), workload, "keys");
            byte[][] templates = (byte[][]) read(workload.getClass(), workload, "templates");
            for (int i = 0; i < keyArray.length; i++) {
                byte[] value = cache.getIfPresent(keyArray[i]);
                byte[] template = templates[i % templates.length];
                assertThat(value).as("value of key %d", i).isEqualTo(template).isNotSameAs(template);
            }
        } finally {
            state.tearDown();
        }
    }

    /**
     * {@code CacheBandwidthBenchmark}'s bare copies (the floors the cache's copies are judged against)
     * read and wrote a region from {@code Arena.allocate}, on 4 KiB pages, while the cache keeps its
     * entries in {@link LargeRegions}, advised to use transparent huge pages: the floor paid TLB misses
     * the cache does not. Where the system gives a large region the huge-page advice, the benchmark's
     * region must have it too.
     */
    @Test
    void bandwidthRegionIsMemoryOfTheCachesKind() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/self/smaps")), "Linux /proc/self/smaps");
        long bytes = 4 * LargeRegions.HUGE_PAGE_BYTES;
        boolean cacheKindAdvised;
        try (Arena arena = Arena.ofConfined()) {
            cacheKindAdvised = hugePageAdvised(LargeRegions.allocate(bytes, arena).address());
        }
        assumeTrue(cacheKindAdvised, "this system gives no huge-page advice to the cache's regions");

        CacheStates.Keys keys = new CacheStates.Keys();
        keys.workload = (bytes / 100_000 + 1) + "x100000";
        keys.setUp();
        CacheBandwidthBenchmark.Region region = new CacheBandwidthBenchmark.Region();
        region.setUp(keys);
        try {
            MemorySegment values = (MemorySegment) read(CacheBandwidthBenchmark.Region.class, region, "values");
            assertThat(hugePageAdvised(values.address()))
                    .as("the region of the bare copies is advised to use huge pages, as the cache's memory is")
                    .isTrue();
        } finally {
            region.tearDown();
        }
    }

    private static Object read(Class<?> owner, Object instance, String name) throws ReflectiveOperationException {
        Field field = owner.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(instance);
    }

    /** @return whether the mapping of this process that holds {@code address} has MADV_HUGEPAGE ("hg") */
    private static boolean hugePageAdvised(long address) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        boolean inside = false;
        for (String line : lines) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && line.substring(0, dash).chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long end = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                inside = Long.compareUnsigned(start, address) <= 0 && Long.compareUnsigned(address, end) < 0;
            } else if (inside && line.startsWith("VmFlags:")) {
                return List.of(line.substring("VmFlags:".length()).trim().split("\\s+")).contains("hg");
            }
        }
        throw new IllegalStateException("no mapping holds address 0x" + Long.toHexString(address));
    }
}
