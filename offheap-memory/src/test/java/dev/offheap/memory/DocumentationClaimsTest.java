package dev.offheap.memory;

import dev.offheap.memory.alloc.Allocator;
import dev.offheap.memory.alloc.DebugMode;
import dev.offheap.memory.alloc.LargeRegions;
import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.PooledAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the javadoc of dev.offheap.memory and dev.offheap.memory.alloc, README.md and docs/memory.md and
 * docs/alloc.md promise, checked against what the code does. The first tests failed before their fix (the
 * code did not do what its documentation said); the others pin behaviour whose documentation was wrong and
 * was corrected, so that the documents and the code cannot drift apart again unnoticed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DocumentationClaimsTest {

    private static MemoryManager.Builder manager() {
        return MemoryManager.builder().registerMBean(false).leakReporter(report -> { });
    }

    private static Allocator allocator(String kind) {
        return kind.equals("pooled") ? PooledAllocator.builder().debug(DebugMode.OFF).idleRelease(Duration.ZERO).build()
                : NativeAllocator.builder().debug(DebugMode.OFF).build();
    }

    /**
     * Allocator's allocateFrom family "never zeroes"; the copy variant documents that a failed copy frees its
     * allocation, "so nothing stays allocated". allocateFrom(ADDRESS, heap segment) threw the JDK's
     * IllegalArgumentException after allocating, and the block the caller never saw stayed live until close,
     * which then reported it as a leak.
     */
    @ParameterizedTest
    @ValueSource(strings = {"pooled", "native"})
    void anAddressThatCannotBeStoredLeavesNothingAllocated(String kind) {
        try (Allocator allocator = allocator(kind)) {
            MemorySegment heap = MemorySegment.ofArray(new byte[16]);
            assertThatThrownBy(() -> allocator.allocateFrom(ValueLayout.ADDRESS, heap))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(allocator.allocatedBytes()).as("bytes left allocated by the failed allocateFrom").isZero();
            assertThat(allocator.report().liveAllocations()).isZero();

            MemorySegment target = allocator.allocate(8);
            MemorySegment pointer = allocator.allocateFrom(ValueLayout.ADDRESS, target);
            assertThat(pointer.get(ValueLayout.ADDRESS, 0).address()).isEqualTo(target.address());
            allocator.free(pointer);
            allocator.free(target);
            assertThat(allocator.allocatedBytes()).isZero();
        }
    }

    /**
     * A pooled allocator "hands out" native memory, and with a memory manager takes pages for requests above
     * 64 KiB. A HEAP manager's pages are heap segments, all at address 0: every such block was refused by free
     * as "outside this allocator's memory" and its page stayed held until close. Now the builder refuses such
     * a manager; a NATIVE one serves and takes back its pages as documented.
     */
    @Test
    void aPooledAllocatorTakesPagesOnlyFromANativeOrMappedManager() {
        try (MemoryManager heap = manager().type(MemoryType.HEAP).pageSize(256 << 10).totalSize(4 << 20).build()) {
            assertThatThrownBy(() -> PooledAllocator.builder().memoryManager(heap))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap");
        }
        try (MemoryManager mm = manager().pageSize(256 << 10).totalSize(4 << 20).build();
             PooledAllocator pool = PooledAllocator.builder().memoryManager(mm).idleRelease(Duration.ZERO).build()) {
            MemorySegment first = pool.allocate(100_000);
            MemorySegment second = pool.allocate(100_000);
            assertThat(mm.usedPages()).isEqualTo(2);
            pool.free(first);
            pool.free(second);
            assertThat(mm.usedPages()).isZero();
            assertThat(pool.allocatedBytes()).isZero();
        }
    }

    /**
     * usageByOwner(): "keyed by String.valueOf(owner), largest first". Distinct owners with the same text were
     * summed after sorting, so their sum kept the place of the first of them: {y=60 KiB, x=80 KiB}.
     */
    @Test
    void usageByOwnerIsLargestFirstWhenOwnersShareTheirText() {
        Random random = new Random(8);
        try (MemoryManager mm = manager().pageSize(4096).totalSize(4 << 20).build()) {
            Object x1 = named("x");
            Object x2 = named("x");
            int xPages = 5 + random.nextInt(20);
            int yPages = xPages + 1 + random.nextInt(xPages - 1);
            mm.allocatePages(x1, xPages);
            mm.allocatePages("y", yPages);
            mm.allocatePages(x2, xPages);
            Map<String, Long> usage = mm.usageByOwner();
            assertThat(usage).containsEntry("x", 2L * xPages * 4096).containsEntry("y", (long) yPages * 4096);
            assertThat(new ArrayList<>(usage.values())).as("usage by owner, in the map's order")
                    .isSortedAccordingTo((a, b) -> Long.compare(b, a));
            assertThat(usage.keySet()).containsExactly("x", "y");
            mm.releaseAll(x1);
            mm.releaseAll(x2);
            mm.releaseAll("y");
        }
    }

    private static Object named(String text) {
        return new Object() {
            @Override
            public String toString() {
                return text;
            }
        };
    }

    /**
     * AllocationReport#problems: "oldest first (at most the last 100)". close() added its own "closed with
     * live allocations" line to a full list: 101 problems.
     */
    @ParameterizedTest
    @ValueSource(strings = {"pooled", "native"})
    void aClosedAllocatorsReportListsAtMostTheLast100Problems(String kind) {
        Allocator allocator = kind.equals("pooled")
                ? PooledAllocator.builder().debug(DebugMode.SAMPLED).idleRelease(Duration.ZERO).build()
                : NativeAllocator.builder().debug(DebugMode.SAMPLED).build();
        for (int i = 0; i < 150; i++) {
            MemorySegment foreign = MemorySegment.ofArray(new byte[16]);
            assertThatThrownBy(() -> allocator.free(foreign)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(allocator.report().problems()).hasSize(100);
        allocator.allocate(10); // a leak, which close() reports as one more problem
        allocator.close();
        List<String> problems = allocator.report().problems();
        assertThat(problems).hasSize(100);
        assertThat(problems.getLast()).startsWith("closed with 1 live allocations");
    }

    // ------------------------------------------------------------------ documentation corrected to match the code

    /**
     * peakUsedBytes() counts the free pages threads cached at the peak, which the javadoc bounded by "at most
     * 16 per thread"; a thread's cache holds up to 4 MiB of pages (256 of 4 KiB), as docs/memory.md says.
     */
    @Test
    void thePeakCountsUpToAWholeThreadCacheOfFreePages() throws Exception {
        try (MemoryManager mm = manager().pageSize(4096).totalSize(64 << 20).build()) {
            long[] highestUse = new long[1];
            Runnable allocateAndRelease = () -> {
                List<MemorySegment> pages = mm.allocatePages(Thread.currentThread().getName(), 200);
                synchronized (highestUse) {
                    highestUse[0] = Math.max(highestUse[0], mm.usedBytes());
                }
                mm.release(pages); // into this thread's cache: still counted in the budget
            };
            allocateAndRelease.run();
            Thread other = Thread.ofPlatform().start(allocateAndRelease);
            other.join();
            long cachedAtPeak = (mm.peakUsedBytes() - highestUse[0]) / 4096;
            assertThat(cachedAtPeak).as("free pages counted in the peak").isEqualTo(200).isGreaterThan(2 * 16)
                    .isLessThanOrEqualTo(2 * 256);
        }
    }

    /** LargeRegions.allocate: the JDK's WrongThreadException for another thread's confined arena, not IllegalStateException. */
    @ParameterizedTest
    @ValueSource(longs = {64, 4L << 20})
    void aRegionOfAnotherThreadsConfinedArenaIsRefusedWithWrongThreadException(long bytes) throws Exception {
        try (Arena confined = Arena.ofConfined()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    LargeRegions.allocate(bytes, confined);
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            other.join();
            assertThat(thrown.get()).isInstanceOf(WrongThreadException.class);
        }
        Arena closed = Arena.ofShared();
        closed.close();
        assertThatThrownBy(() -> LargeRegions.allocate(bytes, closed)).isInstanceOf(IllegalStateException.class);
    }

    /**
     * HEAP pages are confined to no thread, whatever the PageAccess: the JDK cannot confine a heap segment.
     * And, being byte[] segments, they take only unaligned layouts: the README's {@code page.set(JAVA_LONG, 0,
     * 42L)} on a NATIVE page throws IllegalArgumentException on a HEAP one.
     */
    @Test
    void heapPagesCanBeUsedAndReleasedFromAnyThreadThroughUnalignedLayouts() throws Exception {
        try (MemoryManager mm = manager().type(MemoryType.HEAP).pageAccess(PageAccess.CONFINED).pageSize(4096)
                .totalSize(1 << 20).build()) {
            MemorySegment page = mm.allocatePage("owner");
            assertThatThrownBy(() -> page.set(ValueLayout.JAVA_LONG, 0, 42L)).isInstanceOf(IllegalArgumentException.class);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    page.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);
                    mm.release(page);
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            other.join();
            assertThat(thrown.get()).isNull();
            assertThat(mm.usedPages()).isZero();
        }
    }

    /**
     * A spill callback runs on the requester's thread (SpillCallback): with CONFINED pages of another live
     * thread it frees nothing and the request fails; the README's example, an owner that spills for other
     * threads, works with SHARED pages.
     */
    @ParameterizedTest
    @EnumSource(PageAccess.class)
    void aSpillCallbackReleasesAnotherThreadsPagesOnlyIfTheyAreShared(PageAccess access) throws Exception {
        try (MemoryManager mm = manager().pageAccess(access).pageSize(4096).totalSize(64 * 4096).build()) {
            List<MemorySegment> held = new ArrayList<>();
            CountDownLatch allocated = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().daemon().start(() -> {
                held.addAll(mm.allocatePages("hash-join", 64));
                allocated.countDown();
                try {
                    done.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                assertThat(allocated.await(30, TimeUnit.SECONDS)).isTrue();
                mm.registerSpillCallback("hash-join", (manager, bytesWanted) -> {
                    List<MemorySegment> partition = new ArrayList<>(held.subList(0, 8));
                    manager.release(partition);
                    held.removeAll(partition);
                    return (long) partition.size() * manager.pageSize();
                });
                if (access == PageAccess.SHARED) {
                    MemorySegment page = mm.allocatePage("requester");
                    assertThat(mm.spilledBytes()).isEqualTo(8 * 4096);
                    mm.release(page);
                } else {
                    assertThatThrownBy(() -> mm.allocatePage("requester")).isInstanceOf(BudgetExceededException.class)
                            .hasMessageContaining("gave back 0 B");
                    assertThat(mm.spilledBytes()).isZero();
                }
            } finally {
                done.countDown();
                holder.join(10_000);
            }
        }
    }

    /**
     * PooledAllocator's threading note: another live thread's cache keeps "at most 128 KiB per size class", but
     * a cache holds at least 8 blocks of a class, so 8 free blocks of 64 KiB (512 KiB) stay with it after a trim
     * by another thread, and go back once that thread has ended.
     */
    @Test
    void anotherLiveThreadsCacheKeepsEightBlocksOfTheLargestClassThroughATrim() throws Exception {
        try (PooledAllocator pool = PooledAllocator.builder().idleRelease(Duration.ZERO).build()) {
            CountDownLatch freed = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread owner = Thread.ofPlatform().start(() -> {
                List<MemorySegment> blocks = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    blocks.add(pool.allocateUninitialized(64 << 10));
                }
                blocks.forEach(pool::free);
                freed.countDown();
                try {
                    done.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(freed.await(30, TimeUnit.SECONDS)).isTrue();
            pool.trim();
            assertThat(pool.footprintBytes()).as("footprint with the other thread's cache").isGreaterThanOrEqualTo(512 << 10);
            done.countDown();
            owner.join();
            pool.trim();
            assertThat(pool.footprintBytes()).as("footprint once that thread ended").isLessThan(128 << 10);
        }
    }
}
