package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The capacity bounds the memory the system really gives the cache: the resident set of the mappings
 * the cache makes (found as those that appear with it and go with its close), filled to the brim.
 */
class CacheResidentMemoryTest {

    @Test
    void aFullCacheIsNoMoreResidentThanItsCapacity() throws IOException {
        assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"));
        // a capacity just over one huge page: the regions end 64 KiB into the second one
        long capacity = (2L << 20) + (64 << 10);
        Map<String, Mapping> before = mappings();
        OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(capacity).concurrencyLevel(1).build();
        for (long i = 0; i < 100_000; i++) {
            cache.put(i, new byte[100]);
        }
        Map<String, Mapping> filled = mappings();
        cache.close();
        Map<String, Mapping> after = mappings();
        // the cache's mapping: new, gone with the close, advised to use huge pages ("hg"); with the
        // mappings that continue it (the kernel splits a mapping where its advice changes)
        long resident = 0;
        String end = null;
        for (Map.Entry<String, Mapping> m : filled.entrySet()) {
            if (!before.containsKey(m.getKey()) && !after.containsKey(m.getKey()) && m.getValue().hugePages()) {
                end = m.getKey().substring(m.getKey().indexOf('-') + 1);
                resident += m.getValue().rss();
            }
        }
        assumeTrue(end != null, "no huge-page advised mapping of the cache found");
        for (boolean found = true; found; ) {
            found = false;
            for (Map.Entry<String, Mapping> m : filled.entrySet()) {
                if (m.getKey().startsWith(end + "-") && !before.containsKey(m.getKey()) && !after.containsKey(m.getKey())) {
                    end = m.getKey().substring(m.getKey().indexOf('-') + 1);
                    resident += m.getValue().rss();
                    found = true;
                }
            }
        }
        assertThat(resident).as("resident bytes of the cache's mappings, capacity %d", capacity)
                .isPositive().isLessThanOrEqualTo(capacity);
    }

    private record Mapping(long rss, boolean hugePages) {
    }

    /** @return each mapping by its address range: its resident bytes and whether it is advised huge pages */
    private static Map<String, Mapping> mappings() throws IOException {
        Map<String, Mapping> mappings = new HashMap<>();
        String range = null;
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                range = line.substring(0, line.indexOf(' '));
            } else if (line.startsWith("Rss:")) {
                rss = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            } else if (line.startsWith("VmFlags:") && range != null) {
                mappings.put(range, new Mapping(rss, List.of(line.split("\\s+")).contains("hg")));
            }
        }
        return mappings;
    }
}
