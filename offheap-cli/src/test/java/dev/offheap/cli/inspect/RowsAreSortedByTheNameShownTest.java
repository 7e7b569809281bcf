package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code inspect} sorted its rows by the MBean's canonical name: a name that needs quoting in an object name
 * ({@code *}, {@code z,1}) came before every other, its quote sorting first, and {@code x-10} before
 * {@code x-2}. Rows are now in the order of the names they show, numbers in names compared as numbers.
 */
class RowsAreSortedByTheNameShownTest {
    private static final List<String> NAMES_IN_ORDER = List.of("sort-*", "sort-b", "sort-x-2", "sort-x-10", "sort-z,1");

    @Test
    void managersAndCachesAreInTheOrderOfTheirNames() throws Exception {
        List<AutoCloseable> open = new ArrayList<>();
        try {
            for (String name : List.of("sort-x-10", "sort-z,1", "sort-b", "sort-x-2", "sort-*")) {
                open.add(MemoryManager.builder().name(name).totalSize(64 * 1024).pageSize(64 * 1024)
                        .type(MemoryType.HEAP).build());
                open.add(OffHeapCache.builder(Serializer.longs(), Serializer.strings()).name(name).capacity(1 << 20)
                        .build());
            }
            Snapshot s = Snapshot.collect(ManagementFactory.getPlatformMBeanServer(), ProcessHandle.current().pid(), false);
            assertThat(s.managers().stream().map(Snapshot.Manager::name).filter(NAMES_IN_ORDER::contains).toList())
                    .isEqualTo(NAMES_IN_ORDER);
            assertThat(s.caches().stream().map(Snapshot.Cache::name).filter(NAMES_IN_ORDER::contains).toList())
                    .isEqualTo(NAMES_IN_ORDER);
        } finally {
            for (AutoCloseable c : open.reversed()) {
                c.close();
            }
        }
    }

    @Test
    void numbersOfAnyLengthCompareAsNumbers() {
        List<String> names = new ArrayList<>(List.of("a100000000000000000000", "a10", "b", "a02", "a2", "a9", "a",
                "a99999999999999999999"));
        names.sort(Snapshot.NAME_ORDER);
        assertThat(names).containsExactly("a", "a02", "a2", "a9", "a10", "a99999999999999999999",
                "a100000000000000000000", "b");
    }
}
