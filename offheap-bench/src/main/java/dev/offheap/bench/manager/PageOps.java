package dev.offheap.bench.manager;

import dev.offheap.bench.baseline.ThirdPartyForks;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageGroup;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.PageAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.apache.flink.core.memory.MemorySegmentFactory;

/**
 * One allocate + touch + release of {@code count} pages, per way of getting a page. Shared by the
 * one- and two-thread allocation benchmarks so that both measure exactly the same code. Touching
 * writes the first and the last long of every page, so no allocation can be optimized away and
 * every page is really backed by memory; the sum of the values written is returned to the
 * Blackhole.
 */
final class PageOps {
    /** The JMH forks of this package: two per benchmark for the committed run. */
    static final int FORKS = 2;

    /** Flink's fork (see {@link ThirdPartyForks}); the library's forks never get it. */
    static final String FLINK_JVM_ARG = ThirdPartyForks.UNSAFE_MEMORY_ACCESS_ALLOWED;

    private static final Runnable NO_CLEANUP = () -> { };
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private PageOps() {
    }

    static MemoryManager nativeManager(String name, long totalBytes, int pageSize, PageAccess access) {
        return MemoryManager.builder()
                .name(name)
                .totalSize(totalBytes)
                .pageSize(pageSize)
                .type(MemoryType.NATIVE)
                .pageAccess(access)
                .preallocate(true)
                .registerMBean(false)
                .build();
    }

    static long touch(MemorySegment page, long value) {
        page.set(LONG, 0, value);
        page.set(LONG, page.byteSize() - Long.BYTES, value);
        return value;
    }

    static long flink(int pageSize, int count, Object owner) {
        long sum = 0;
        if (count == 1) {
            org.apache.flink.core.memory.MemorySegment page =
                    MemorySegmentFactory.allocateOffHeapUnsafeMemory(pageSize, owner, NO_CLEANUP);
            page.putLong(0, 1L);
            page.putLong(pageSize - Long.BYTES, 1L);
            page.free();
            return 1;
        }
        org.apache.flink.core.memory.MemorySegment[] pages = new org.apache.flink.core.memory.MemorySegment[count];
        for (int i = 0; i < count; i++) {
            pages[i] = MemorySegmentFactory.allocateOffHeapUnsafeMemory(pageSize, owner, NO_CLEANUP);
            pages[i].putLong(0, i);
            pages[i].putLong(pageSize - Long.BYTES, i);
            sum += i;
        }
        for (org.apache.flink.core.memory.MemorySegment page : pages) {
            page.free();
        }
        return sum;
    }

    static long manager(MemoryManager manager, int count, Object owner) {
        if (count == 1) {
            MemorySegment page = manager.allocatePage(owner);
            long sum = touch(page, 1L);
            manager.release(page);
            return sum;
        }
        List<MemorySegment> pages = manager.allocatePages(owner, count);
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += touch(pages.get(i), i);
        }
        manager.release(pages);
        return sum;
    }

    /** {@link #manager}, with the pages allocated and released as one {@link PageGroup}. */
    static long managerGroup(MemoryManager manager, int count, Object owner) {
        long sum = 0;
        try (PageGroup group = manager.allocateGroup(owner, count)) {
            for (int i = 0; i < count; i++) {
                sum += touch(group.page(i), i + 1);
            }
        }
        return sum;
    }

    /**
     * The floor of a revocable page: an {@code Arena.ofConfined()} per page, the page a
     * {@code reinterpret} of a slice of memory allocated once, the arena closed on release. No pool,
     * no owners, no checks. Arenas and pages go into {@code floor}'s arrays so that they escape, as a
     * manager's pages do (a page that does not escape costs nothing: C2 removes its arena).
     */
    @SuppressWarnings("restricted") // the slices lie inside memory the state allocated and keeps
    static long revocableFloor(FloorPages floor, int pageSize, int count) {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            Arena arena = Arena.ofConfined();
            MemorySegment page = floor.memory.asSlice((long) i * pageSize, pageSize).reinterpret(arena, null);
            floor.arenas[i] = arena;
            floor.pages[i] = page;
            sum += touch(page, i + 1);
        }
        for (int i = 0; i < count; i++) {
            ((Arena) floor.arenas[i]).close();
        }
        return sum;
    }

    /** What {@link #revocableFloor} needs: the memory its pages are cut from, and where they escape to. */
    abstract static class FloorPages {
        private Arena owner;
        MemorySegment memory;
        // Object[]: a store into an array of an interface type pays a type check that a manager's own
        // per-page table (an Object[]) does not
        Object[] arenas;
        Object[] pages;

        void allocate(int pageSize, int count) {
            owner = Arena.ofShared();
            memory = owner.allocate((long) pageSize * count, Long.BYTES);
            arenas = new Object[count];
            pages = new Object[count];
        }

        void free() {
            owner.close();
        }
    }

    static long confinedArenas(int pageSize, int count) {
        if (count == 1) {
            try (Arena arena = Arena.ofConfined()) {
                return touch(arena.allocate(pageSize, Long.BYTES), 1L);
            }
        }
        Arena[] arenas = new Arena[count];
        long sum = 0;
        for (int i = 0; i < count; i++) {
            arenas[i] = Arena.ofConfined();
            sum += touch(arenas[i].allocate(pageSize, Long.BYTES), i);
        }
        for (Arena arena : arenas) {
            arena.close();
        }
        return sum;
    }

    static long sharedArenas(int pageSize, int count) {
        if (count == 1) {
            try (Arena arena = Arena.ofShared()) {
                return touch(arena.allocate(pageSize, Long.BYTES), 1L);
            }
        }
        Arena[] arenas = new Arena[count];
        long sum = 0;
        for (int i = 0; i < count; i++) {
            arenas[i] = Arena.ofShared();
            sum += touch(arenas[i].allocate(pageSize, Long.BYTES), i);
        }
        for (Arena arena : arenas) {
            arena.close();
        }
        return sum;
    }
}
