package dev.offheap.memory.alloc;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.internal.VirtualMemory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Memory that a structure frees right after closing the shared arena of its segments stays there for a
 * grace period first ({@link VirtualMemory#RELEASE_GRACE_MILLIS}). A shared arena's close can let a thread
 * that is inside an access make one more load or store after the close returns (JDK-8364167): over
 * unmapped memory that one access kills the JVM. These tests read and write straight at the old
 * addresses, as only such a straggler would, inside the grace, and see the memory go after it. They hold
 * the frees back ({@link VirtualMemory#holdFrees()}) while they read: a test thread that a loaded machine
 * stalls for longer than the grace would otherwise read unmapped memory and kill the test JVM.
 */
class FreedMemoryOutlivesItsScopesForAGraceTest {

    /**
     * A range given back stays mapped for a grace period, purged: an access that slips past its shared
     * arena's close (JDK-8364167) reads zero or writes into nothing, where an unmapped range would crash
     * the JVM. Then it is unmapped. Read straight from the address here, as only such an access would.
     */
    @Test
    @SuppressWarnings({"restricted", "try"}) // the hold is only held
    void aClosedAllocatorsRangeStaysMappedAndPurgedThroughTheGraceThenIsUnmapped() throws Exception {
        Assumptions.assumeTrue(VirtualMemory.LINUX, "purged memory reads zero and /proc/self/maps exists on Linux only");
        PooledAllocator pool = PooledAllocator.builder().capacity(32L << 20).idleRelease(Duration.ZERO).build();
        MemorySegment small = pool.allocate(64);
        MemorySegment large = pool.allocate(1 << 20);
        small.fill((byte) 7);
        large.fill((byte) 9);
        long closing;
        try (VirtualMemory.FreesHeld held = VirtualMemory.holdFrees()) {
            long releasingBefore = VirtualMemory.releasingBytes();
            closing = System.nanoTime();
            pool.close();
            MemorySegment stillMapped = MemorySegment.ofAddress(large.address()).reinterpret(1 << 20);
            MemorySegment smallStillMapped = MemorySegment.ofAddress(small.address()).reinterpret(64);
            assertThat(stillMapped.get(ValueLayout.JAVA_LONG, 0)).as("purged at close").isZero();
            assertThat(smallStillMapped.get(ValueLayout.JAVA_LONG, 8)).isZero();
            stillMapped.set(ValueLayout.JAVA_LONG, 4096, 42L); // a straggler's store: harmless
            assertThat(VirtualMemory.releasingBytes()).isGreaterThanOrEqualTo(releasingBefore + (32L << 20));
            assertThat(mappingsCovering(large.address())).as("mapped through the grace").isNotEmpty();
        }

        assertThat(eventually(() -> mappingsCovering(large.address()).isEmpty())).as("unmapped after the grace").isTrue();
        assertThat(millisSince(closing)).as("not before the grace ended").isGreaterThanOrEqualTo(VirtualMemory.RELEASE_GRACE_MILLIS);
    }

    @Test
    @SuppressWarnings("try") // the hold is only held
    void aLargeRegionOfAClosedArenaIsPurgedAndUnmappedAfterTheGrace() throws Exception {
        Assumptions.assumeTrue(VirtualMemory.LINUX, "large regions are mapped by the library on Linux only");
        Arena arena = Arena.ofShared();
        MemorySegment region = LargeRegions.allocate(4L << 20, arena);
        region.fill((byte) 3);
        long address = region.address();
        long closing;
        try (VirtualMemory.FreesHeld held = VirtualMemory.holdFrees()) {
            closing = System.nanoTime();
            arena.close();
            assertThat(mappingsCovering(address)).as("mapped through the grace").isNotEmpty();
        }
        assertThat(eventually(() -> mappingsCovering(address).isEmpty())).as("unmapped after the grace").isTrue();
        assertThat(millisSince(closing)).as("not before the grace ended").isGreaterThanOrEqualTo(VirtualMemory.RELEASE_GRACE_MILLIS);
    }

    @Test
    @SuppressWarnings({"restricted", "try"}) // the hold is only held
    void aClosedNativeAllocatorsLiveBlocksGoBackToTheCLibraryAfterTheGrace() throws Exception {
        NativeAllocator malloc = NativeAllocator.malloc();
        MemorySegment small = malloc.allocate(64);
        MemorySegment large = malloc.allocate(1 << 20); // over 256 KiB: a scope of its own, and malloc's own mapping
        small.fill((byte) 0x11);
        large.fill((byte) 0x22);
        int waitingBefore;
        try (VirtualMemory.FreesHeld held = VirtualMemory.holdFrees()) {
            waitingBefore = VirtualMemory.freesWaiting();
            malloc.close();
            assertThat(small.scope().isAlive()).as("inaccessible at once").isFalse();
            assertThat(large.scope().isAlive()).isFalse();
            // not given back to malloc yet: as they were, where free() would have unmapped the large one
            MemorySegment largeStillThere = MemorySegment.ofAddress(large.address()).reinterpret(1 << 20);
            assertThat(largeStillThere.get(ValueLayout.JAVA_BYTE, (1 << 20) - 1)).isEqualTo((byte) 0x22);
            assertThat(MemorySegment.ofAddress(small.address()).reinterpret(64).get(ValueLayout.JAVA_BYTE, 63))
                    .isEqualTo((byte) 0x11);
            largeStillThere.set(ValueLayout.JAVA_LONG, 8, 42L); // a straggler's store: harmless
            assertThat(VirtualMemory.freesWaiting()).as("the blocks wait for the grace").isGreaterThanOrEqualTo(waitingBefore + 1);
        }
        assertThat(eventually(() -> VirtualMemory.freesWaiting() <= waitingBefore)).as("freed after the grace").isTrue();
    }

    /** The lines of /proc/self/maps whose range holds {@code address}. */
    private static List<String> mappingsCovering(long address) {
        List<String> covering = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String line : lines) {
            String range = line.substring(0, line.indexOf(' '));
            int dash = range.indexOf('-');
            long start = Long.parseUnsignedLong(range.substring(0, dash), 16);
            long end = Long.parseUnsignedLong(range.substring(dash + 1), 16);
            if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                covering.add(line);
            }
        }
        return covering;
    }

    @Test
    @SuppressWarnings({"restricted", "try"}) // the hold is only held
    void aClosedManagersNativeChunksArePurgedAtOnceAndFreedAfterTheGrace() throws Exception {
        Assumptions.assumeTrue(VirtualMemory.LINUX, "purged memory reads zero on Linux only");
        MemoryManager manager = MemoryManager.builder().name("grace").type(MemoryType.NATIVE).totalSize(32L << 20)
                .pageSize(64 << 10).registerMBean(false).build();
        MemorySegment page = manager.allocatePage("owner");
        page.fill((byte) 5);
        int waitingBefore;
        try (VirtualMemory.FreesHeld held = VirtualMemory.holdFrees()) {
            waitingBefore = VirtualMemory.freesWaiting();
            manager.close();
            assertThat(page.scope().isAlive()).as("the page itself is revoked at once").isFalse();
            // a 16 MiB chunk comes from malloc's own mapping, which free() unmaps: read now, it must still be there
            MemorySegment stillThere = MemorySegment.ofAddress(page.address()).reinterpret(64 << 10);
            assertThat(stillThere.get(ValueLayout.JAVA_LONG, 0)).as("purged at close").isZero();
            stillThere.set(ValueLayout.JAVA_LONG, 8, 42L); // a straggler's store: harmless
            assertThat(VirtualMemory.freesWaiting()).as("its one chunk (made on first use) waits for the grace")
                    .isGreaterThanOrEqualTo(waitingBefore + 1);
        }
        assertThat(eventually(() -> VirtualMemory.freesWaiting() <= waitingBefore)).as("freed after the grace").isTrue();
    }

    @Test
    @SuppressWarnings({"restricted", "try"}) // the hold is only held
    void aClosedStackAllocatorsChunksStayAsTheyWereThroughTheGraceThenAreFreed() throws Exception {
        StackAllocator stacks = StackAllocator.builder().stackSize(1 << 20).build();
        long address;
        try (StackAllocator.Frame frame = stacks.pushFrame()) {
            MemorySegment segment = frame.allocate(1 << 16);
            segment.fill((byte) 0x5A);
            address = segment.address();
        }
        int waitingBefore;
        try (VirtualMemory.FreesHeld held = VirtualMemory.holdFrees()) {
            waitingBefore = VirtualMemory.freesWaiting();
            stacks.close();
            // a 1 MiB chunk comes from malloc's own mapping, which free() unmaps at once
            MemorySegment stillThere = MemorySegment.ofAddress(address).reinterpret(1 << 16);
            assertThat(stillThere.get(ValueLayout.JAVA_BYTE, 100)).as("not freed yet").isEqualTo((byte) 0x5A);
            stillThere.set(ValueLayout.JAVA_LONG, 8, 42L);
            assertThat(VirtualMemory.freesWaiting()).isGreaterThanOrEqualTo(waitingBefore + 1);
        }
        assertThat(eventually(() -> VirtualMemory.freesWaiting() <= waitingBefore)).as("freed after the grace").isTrue();
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }
}
