package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What only the pooled allocator promises: shrinking, bounded caches, budget per unit, pages from a manager. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PooledAllocatorTest {

    @Test
    void sizeClassesCoverEverySizeWithAtMostAQuarterWasted() {
        for (long size = 0; size <= SizeClasses.MAX_SMALL; size++) {
            int c = SizeClasses.of(size);
            long classSize = SizeClasses.SIZE[c];
            assertThat(classSize).as("class of %d", size).isGreaterThanOrEqualTo(size);
            if (c > 0) {
                assertThat(SizeClasses.SIZE[c - 1]).as("class below that of %d", size).isLessThan(size);
            }
            assertThat(classSize - Math.max(size, 16)).isLessThanOrEqualTo(Math.max(size, 16) / 4 + 16);
        }
        assertThat(SizeClasses.SIZE[SizeClasses.COUNT - 1]).isEqualTo(SizeClasses.MAX_SMALL);
    }

    @ParameterizedTest
    @ValueSource(longs = {16, 48, 160, 224, 320, 448, 1280, 40960, 57344, 65536})
    void blockIndexFindsExactlyTheBlockStarts(long classSize) {
        int c = SizeClasses.of(classSize);
        Span span = new Span(0, 8, 0, c, false);
        for (long offset = 0; offset < (long) span.units << UnitRange.UNIT_SHIFT; offset += 8) {
            int index = span.blockIndex(offset);
            if (offset % classSize == 0 && offset / classSize < span.blocks) {
                assertThat(index).as("offset %d", offset).isEqualTo((int) (offset / classSize));
            } else {
                assertThat(index).as("offset %d", offset).isEqualTo(-1);
            }
        }
    }

    @Test
    void trimGivesEverythingBackWhenNothingIsLive() {
        try (PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ZERO).build()) {
            List<MemorySegment> live = new ArrayList<>();
            Random random = new Random(1);
            for (int i = 0; i < 20_000; i++) {
                live.add(a.allocateUninitialized(16 + random.nextInt(70_000)));
            }
            assertThat(a.footprintBytes()).isGreaterThan(a.allocatedBytes());
            live.forEach(a::free);
            assertThat(a.allocatedBytes()).isZero();
            a.trim();
            assertThat(a.footprintBytes()).isZero();
        }
    }

    /**
     * The fragmentation goal: after a random mixed-size workload that frees 90% of what it allocated,
     * trim() leaves at most 1.5 times the live bytes held. Sizes from 16 bytes to 64 KiB, uniform or
     * log-uniform (as many of 16-32 bytes as of 32-64 KiB).
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"1, false", "2, false", "3, true", "4, true"})
    void afterFreeingNinetyPercentAtRandomTheFootprintIsAtMostOneAndAHalfTimesTheLiveBytes(long seed, boolean logUniform) {
        try (PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ZERO).build()) {
            Random random = new Random(seed);
            List<MemorySegment> all = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                long size = logUniform ? (long) Math.exp(Math.log(16) + random.nextDouble() * Math.log(4096.0))
                        : 16 + random.nextInt(64 * 1024 - 16);
                MemorySegment s = a.allocateUninitialized(size);
                s.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                all.add(s);
            }
            Collections.shuffle(all, random);
            for (MemorySegment s : all.subList(0, all.size() * 9 / 10)) {
                a.free(s);
            }
            a.trim();
            double ratio = (double) a.footprintBytes() / a.allocatedBytes();
            assertThat(ratio).as("footprint %d / live %d", a.footprintBytes(), a.allocatedBytes()).isLessThanOrEqualTo(1.5);
        }
    }

    @Test
    void manyShortLivedPlatformThreadsDoNotLeakCaches() throws Exception {
        try (PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ZERO).build()) {
            for (int i = 0; i < 10_000; i++) {
                int n = i;
                Thread t = Thread.ofPlatform().start(() -> {
                    MemorySegment s = a.allocate(16 + n % 2000);
                    a.free(s);
                    a.free(a.allocateUninitialized(100));
                });
                t.join();
            }
            assertThat(a.threadCacheCount()).as("caches of ended threads are swept").isLessThanOrEqualTo(70);
            assertThat(a.allocatedBytes()).isZero();
            a.trim();
            assertThat(a.threadCacheCount()).isLessThanOrEqualTo(1);
            assertThat(a.footprintBytes()).isZero();
        }
    }

    @Test
    void manyVirtualThreadsDoNotLeakCaches() throws Exception {
        try (PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ZERO).build();
             ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                int n = i;
                futures.add(executor.submit(() -> {
                    MemorySegment s = a.allocate(16 + n % 3000);
                    Thread.yield();
                    a.free(s);
                }));
            }
            for (var f : futures) {
                f.get();
            }
            executor.shutdown();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            a.trim();
            while (a.threadCacheCount() > 1 && System.nanoTime() < deadline) {
                Thread.sleep(10); // virtual threads may still be finishing after their task returned
                a.trim();
            }
            assertThat(a.threadCacheCount()).isLessThanOrEqualTo(1);
            assertThat(a.allocatedBytes()).isZero();
            assertThat(a.footprintBytes()).isZero();
        }
    }

    @Test
    void idleAllocatorGivesMemoryBackWithoutTrim() throws Exception {
        try (PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ofMillis(20)).build()) {
            long[] footprintWhileBusy = new long[1];
            Thread worker = Thread.ofPlatform().start(() -> {
                List<MemorySegment> live = new ArrayList<>();
                for (int i = 0; i < 5000; i++) {
                    live.add(a.allocate(1000 + i));
                }
                live.forEach(a::free);
                footprintWhileBusy[0] = a.footprintBytes();
            });
            worker.join();
            assertThat(footprintWhileBusy[0]).as("freed blocks stay cached while the thread runs").isPositive();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (a.footprintBytes() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(a.footprintBytes()).isZero();
        }
    }

    @Test
    void budgetIsChargedPerUnitAndReleasedWhenMemoryGoesBack() {
        try (Budget budget = Budget.root("component", 1 << 20);
             PooledAllocator a = PooledAllocator.builder().budget(budget).idleRelease(Duration.ZERO).build()) {
            MemorySegment s = a.allocate(16);
            assertThat(budget.used()).isEqualTo(a.footprintBytes()).isEqualTo(UnitRange.UNIT_BYTES);
            MemorySegment t = a.allocate(32);
            assertThat(budget.used()).isEqualTo(2 * UnitRange.UNIT_BYTES);
            a.free(s);
            a.free(t);
            a.trim();
            assertThat(budget.used()).isZero();
            // memory freed but not trimmed is given back before the budget refuses
            List<MemorySegment> big = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                big.add(a.allocateUninitialized(65_000));
            }
            big.forEach(a::free);
            MemorySegment large = a.allocate(900_000);
            assertThatThrownBy(() -> a.allocate(500_000)).isInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("component");
            a.free(large);
        }
    }

    @Test
    void largeRequestsComeFromManagerPagesWhenOneIsConfigured() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().totalSize(4 << 20).pageSize(256 * 1024)
                .pageAccess(PageAccess.SHARED).registerMBean(false).build()) {
            PooledAllocator a = PooledAllocator.builder().memoryManager(mm).idleRelease(Duration.ZERO).build();
            MemorySegment s = a.allocate(200_000);
            assertThat(mm.usedPages()).isEqualTo(1);
            assertThat(a.footprintBytes()).isEqualTo(256 * 1024);
            s.set(ValueLayout.JAVA_LONG, 199_992, 9L);
            MemorySegment bigger = a.allocate(300_000);
            assertThat(mm.usedPages()).as("larger than a page: from the allocator's own range").isEqualTo(1);
            Thread other = Thread.ofPlatform().start(() -> a.free(s));
            other.join();
            assertThat(mm.usedPages()).isZero();
            a.free(bigger);
            MemorySegment kept = a.allocate(100_000);
            assertThat(mm.usedPages()).isEqualTo(1);
            a.close();
            assertThat(mm.usedPages()).as("close releases the allocator's pages").isZero();
            assertThatThrownBy(() -> kept.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }

    private static MemoryManager sharedPages() {
        return MemoryManager.builder().totalSize(4 << 20).pageSize(256 * 1024)
                .pageAccess(PageAccess.SHARED).registerMBean(false).build();
    }

    @Test
    void aShorterSliceOfAnAllocationOnAManagerPageIsRefusedAndTheAllocationStaysLive() {
        try (MemoryManager mm = sharedPages();
             PooledAllocator a = PooledAllocator.builder().memoryManager(mm).idleRelease(Duration.ZERO).build()) {
            MemorySegment big = a.allocate(100_000);
            big.set(ValueLayout.JAVA_LONG, 0, 7L);
            assertThatThrownBy(() -> a.free(big.asSlice(0, 50_000))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a slice of it?");
            assertThat(a.allocatedBytes()).isEqualTo(100_000);
            assertThat(mm.usedPages()).isEqualTo(1);
            assertThat(big.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7L);
            a.free(big);
            assertThat(mm.usedPages()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = DebugMode.class, names = {"FULL", "SAMPLED"})
    void debugModesTrackAllocationsOnManagerPages(DebugMode mode) {
        try (MemoryManager mm = sharedPages();
             PooledAllocator a = PooledAllocator.builder().memoryManager(mm).debug(mode).sampleRate(1)
                     .idleRelease(Duration.ZERO).build()) {
            MemorySegment big = a.allocate(100_000);
            assertThat(mm.usedPages()).isEqualTo(1);
            assertThat(a.report().leaks()).as("the live allocation on a page is reported").hasSize(1);
            a.free(big);
            assertThat(a.report().leaks()).isEmpty();
            assertThatThrownBy(() -> a.free(big)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free").hasMessageContaining("first freed");
            assertThat(mm.usedPages()).isZero();
        }
    }

    @Test
    void sampledModeAtOneInOneTracksAllocationsThatRefillAnEmptyCache() {
        // a thread's first allocation finds its cache empty; it used to skip the countdown and was never sampled
        try (PooledAllocator a = PooledAllocator.builder().debug(DebugMode.SAMPLED).sampleRate(1)
                .idleRelease(Duration.ZERO).build()) {
            List<MemorySegment> live = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                live.add(a.allocate(16 + (i % 3) * 100));
            }
            AllocationReport r = a.report();
            assertThat(r.leaks().stream().mapToLong(AllocationReport.Leak::count).sum()).isEqualTo(300);
            MemorySegment first = live.getFirst();
            live.forEach(a::free);
            assertThatThrownBy(() -> a.free(first)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("first freed");
        }
    }

    @Test
    void countersAreZeroOnceCloseFreedEverything() {
        PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ZERO).build();
        MemorySegment small = a.allocate(100);
        a.allocate(1000);
        a.allocate(300_000);
        a.free(small);
        a.trim();
        a.close();
        assertThat(a.report().allocatedBytes()).isZero();
        assertThat(a.allocatedBytes()).isZero();
        assertThat(a.footprintBytes()).isZero();
        assertThat(a.report().liveAllocations()).isZero();
    }

    @Test
    void sampledModeTracksAboutOneInNWithItsStack() {
        try (PooledAllocator a = PooledAllocator.builder().debug(DebugMode.SAMPLED).sampleRate(10).idleRelease(Duration.ZERO).build()) {
            List<MemorySegment> live = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                live.add(a.allocate(64));
            }
            AllocationReport r = a.report();
            long tracked = r.leaks().stream().mapToLong(AllocationReport.Leak::count).sum();
            // the interval is random in [5, 15] (mean 10): about 100 of 1000, a few more for the first
            assertThat(tracked).isBetween(60L, 140L);
            assertThat(r.liveAllocations()).isEqualTo(1000);
            assertThat(r.leaks().getFirst().stack().getFirst().getMethodName()).isEqualTo("sampledModeTracksAboutOneInNWithItsStack");
            live.forEach(a::free);
            assertThat(a.report().leaks()).isEmpty();
        }
    }

    @Test
    void debugModeComesFromTheSystemProperty() {
        String before = System.getProperty(DebugMode.PROPERTY);
        try {
            System.setProperty(DebugMode.PROPERTY, "FULL");
            try (PooledAllocator a = PooledAllocator.create()) {
                assertThat(a.debugMode()).isEqualTo(DebugMode.FULL);
            }
            System.setProperty(DebugMode.PROPERTY, "sampled");
            System.setProperty(DebugMode.SAMPLE_RATE_PROPERTY, "7");
            assertThat(DebugMode.defaultMode()).isEqualTo(DebugMode.SAMPLED);
            assertThat(DebugMode.defaultSampleRate()).isEqualTo(7);
            System.setProperty(DebugMode.PROPERTY, "loud");
            assertThatThrownBy(DebugMode::defaultMode).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("loud");
            System.setProperty(DebugMode.SAMPLE_RATE_PROPERTY, "0");
            assertThatThrownBy(DebugMode::defaultSampleRate).isInstanceOf(IllegalArgumentException.class);
        } finally {
            if (before == null) {
                System.clearProperty(DebugMode.PROPERTY);
            } else {
                System.setProperty(DebugMode.PROPERTY, before);
            }
            System.clearProperty(DebugMode.SAMPLE_RATE_PROPERTY);
        }
    }

    @Test
    void builderRefusesBadSettings() {
        PooledAllocator.Builder b = PooledAllocator.builder();
        assertThatThrownBy(() -> b.capacity(1000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1000");
        assertThatThrownBy(() -> b.capacity((1L << 40) + UnitRange.UNIT_BYTES)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.sampleRate(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.idleRelease(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.idleRelease(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.debug(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.name(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void capacityExhaustionIsAnOutOfMemoryErrorThatSaysSo() {
        try (PooledAllocator a = PooledAllocator.builder().capacity(1 << 20).idleRelease(Duration.ZERO).build()) {
            MemorySegment s = a.allocate(600_000);
            assertThatThrownBy(() -> a.allocate(600_000)).isInstanceOf(OutOfMemoryError.class).hasMessageContaining("capacity");
            a.free(s);
            a.free(a.allocate(600_000));
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aDoubleFreeOfABlockDeepInTheCacheIsRefusedAndNeverHandsItOutTwice(DebugMode mode) {
        try (PooledAllocator a = PooledAllocator.builder().debug(mode).idleRelease(Duration.ZERO).build()) {
            MemorySegment keepsTheSpan = a.allocate(32);
            MemorySegment s = a.allocate(32);
            MemorySegment t = a.allocate(32);
            a.free(s);
            a.free(t);
            // s is under t in the freeing thread's cache
            assertThatThrownBy(() -> a.free(s)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free").hasMessageContaining(Long.toHexString(s.address()));
            a.trim(); // back in the central pool: refused there too
            assertThatThrownBy(() -> a.free(s)).isInstanceOf(IllegalStateException.class).hasMessageContaining("double free");
            List<Long> addresses = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                addresses.add(a.allocate(32).address());
            }
            assertThat(addresses).doesNotHaveDuplicates().doesNotContain(keepsTheSpan.address());
        }
    }

    /**
     * The free fast path takes the block's class from the segment's size; where the block's class is
     * another (an aligned allocation takes a class that is a multiple of its alignment) the slow path
     * must free it, and refuse it the second time as a double free; addresses inside blocks are foreign.
     */
    @ParameterizedTest
    @ValueSource(longs = {16, 48, 100, 1000, 5000, 40_000})
    void blocksWhoseClassTheSizeDoesNotGiveAreFreedOnceAndThenRefused(long size) {
        try (PooledAllocator a = PooledAllocator.builder().idleRelease(Duration.ZERO).build()) {
            long alignment = Math.min(4096, Long.highestOneBit(size) * 2);
            MemorySegment aligned = a.allocate(size, alignment);
            assertThat(aligned.address() % alignment).isZero();
            a.free(aligned);
            assertThatThrownBy(() -> a.free(aligned)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free");

            MemorySegment block = a.allocate(size);
            if (size >= 32) {
                assertThatThrownBy(() -> a.free(block.asSlice(16, 16))).isInstanceOf(IllegalArgumentException.class);
            }
            a.free(block);
            assertThatThrownBy(() -> a.free(block)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free");

            assertThat(a.allocatedBytes()).isZero();
            assertThat(a.report().liveAllocations()).isZero();
            List<Long> addresses = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                addresses.add(a.allocate(size).address());
                addresses.add(a.allocate(size, alignment).address());
            }
            assertThat(addresses).doesNotHaveDuplicates();
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {16, 200, 4096, 65536})
    void aBlockFreedByTwoThreadsAtOnceIsFreedOnceAndRefusedOnce(long size) throws Exception {
        try (PooledAllocator a = PooledAllocator.builder().debug(DebugMode.OFF).idleRelease(Duration.ZERO).build();
             ExecutorService pool = Executors.newFixedThreadPool(2)) {
            for (int round = 0; round < 200; round++) {
                MemorySegment s = a.allocate(size);
                CyclicBarrier start = new CyclicBarrier(2);
                Callable<Boolean> freeIt = () -> {
                    start.await();
                    try {
                        a.free(s);
                        return true;
                    } catch (IllegalStateException e) {
                        assertThat(e).hasMessageContaining("double free");
                        return false;
                    }
                };
                Future<Boolean> first = pool.submit(freeIt);
                Future<Boolean> second = pool.submit(freeIt);
                assertThat(List.of(first.get(10, TimeUnit.SECONDS), second.get(10, TimeUnit.SECONDS)))
                        .as("round %d", round).containsExactlyInAnyOrder(true, false);
            }
            // whichever caches took the blocks, no block is ever handed out twice
            Callable<List<Long>> drain = () -> {
                List<Long> got = new ArrayList<>();
                for (int i = 0; i < 600; i++) {
                    got.add(a.allocate(size).address());
                }
                return got;
            };
            List<Long> all = new ArrayList<>(pool.submit(drain).get(10, TimeUnit.SECONDS));
            all.addAll(pool.submit(drain).get(10, TimeUnit.SECONDS));
            all.addAll(drain.call());
            assertThat(all).doesNotHaveDuplicates();
        }
    }

    @Test
    void aStaleSegmentFreedAfterItsBlockWasReusedFreesTheNewAllocationWhichIsThenRefusedOnce() {
        try (PooledAllocator a = PooledAllocator.builder().debug(DebugMode.OFF).idleRelease(Duration.ZERO).build()) {
            MemorySegment stale = a.allocate(48);
            a.free(stale);
            MemorySegment reused = a.allocate(48);
            assertThat(reused.address()).isEqualTo(stale.address());
            // without a generation in the segment this is indistinguishable from freeing reused (documented)
            a.free(stale);
            assertThatThrownBy(() -> a.free(reused)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free");
            MemorySegment next = a.allocate(48);
            MemorySegment other = a.allocate(48);
            assertThat(next.address()).isNotEqualTo(other.address());
        }
    }

    @Test
    void aFreeAfterCloseIsIgnoredEvenIfItWouldBeADoubleFree() {
        PooledAllocator a = PooledAllocator.builder().debug(DebugMode.OFF).idleRelease(Duration.ZERO).build();
        MemorySegment s = a.allocate(64);
        a.free(s);
        a.close();
        a.free(s);
        assertThat(a.report().problems()).noneSatisfy(p -> assertThat(p).contains("double free"));
    }
}
