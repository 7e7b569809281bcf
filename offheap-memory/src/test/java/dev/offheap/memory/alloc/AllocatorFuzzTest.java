package dev.offheap.memory.alloc;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Random sequences of allocations, frees, bad frees and trims of a {@link PooledAllocator} and of a
 * {@link NativeAllocator} over malloc, in every debug mode, checked against a model of the live
 * allocations: every allocation has its size and alignment, zeroed ones
 * read as zero, no two live allocations overlap, every allocation keeps the bytes written into it
 * until it is freed, bad frees (a slice, a foreign segment, a second free) are refused with
 * IllegalArgumentException or IllegalStateException and change nothing, and the allocator's counts
 * match the model after every step.
 *
 * <p>During {@code ./mvnw verify} this runs in regression mode over the committed inputs in
 * {@code src/test/resources/dev/offheap/memory/alloc/AllocatorFuzzTestInputs}; with
 * {@code JAZZER_FUZZ=1} Jazzer generates new inputs, guided by coverage (crashes found become new
 * files there).
 */
class AllocatorFuzzTest {

    /** The largest allocation an input can ask for: past the small classes, into large runs of units. */
    private static final int MAX_SIZE = 300_000;
    /**
     * Bytes every allocation copies its contents from, at an offset of its own: two allocations that
     * overlapped would find each other's bytes where their own should be.
     */
    private static final MemorySegment PATTERN = pattern();
    private static final MemorySegment ZEROS = Arena.global().allocate(MAX_SIZE);
    private static final MemorySegment FOREIGN = Arena.global().allocate(8192, 4096);

    private record Live(MemorySegment segment, long patternOffset) {
    }

    @FuzzTest(maxDuration = "30s")
    void pooledAllocatorMatchesAModelOfTheLiveAllocations(FuzzedDataProvider data) {
        DebugMode mode = mode(data);
        try (PooledAllocator allocator = PooledAllocator.builder().debug(mode).sampleRate(data.consumeInt(1, 8))
                .idleRelease(Duration.ofHours(1)).build()) {
            run(data, allocator, mode);
            allocator.trim();
            assertThat(allocator.footprintBytes()).as("footprint after everything was freed and trimmed").isZero();
        }
    }

    @FuzzTest(maxDuration = "30s")
    void nativeAllocatorMatchesAModelOfTheLiveAllocations(FuzzedDataProvider data) {
        DebugMode mode = mode(data);
        try (NativeAllocator allocator = NativeAllocator.builder().kind(NativeAllocator.Kind.MALLOC).debug(mode)
                .sampleRate(data.consumeInt(1, 8)).build()) {
            run(data, allocator, mode);
            assertThat(allocator.footprintBytes()).as("footprint after everything was freed").isZero();
        }
    }

    /**
     * FULL gives every allocation a shared scope of its own (a handshake per free): rarer, so the
     * fuzzer's time goes mostly to the fast paths.
     */
    private static DebugMode mode(FuzzedDataProvider data) {
        int choice = data.consumeInt(0, 7);
        return choice == 0 ? DebugMode.FULL : choice <= 2 ? DebugMode.SAMPLED : DebugMode.OFF;
    }

    /** Runs the input's operations; on return every allocation is checked and freed. */
    private static void run(FuzzedDataProvider data, Allocator allocator, DebugMode mode) {
        List<Live> live = new ArrayList<>();
        TreeMap<Long, Long> ranges = new TreeMap<>();
        List<MemorySegment> freed = new ArrayList<>();
        int operations = 0;
        while (data.remainingBytes() > 0 && operations++ < 300) {
            switch (data.consumeInt(0, 9)) {
                case 0, 1, 2, 3 -> allocate(data, allocator, live, ranges);
                case 4, 5 -> {
                    if (!live.isEmpty()) {
                        Live victim = live.remove(data.consumeInt(0, live.size() - 1));
                        checkContents(victim);
                        ranges.remove(victim.segment.address());
                        allocator.free(victim.segment);
                        freed.add(victim.segment);
                        if (mode == DebugMode.FULL && victim.segment.byteSize() > 0) {
                            // every FULL allocation has a scope of its own, closed by free
                            assertThatThrownBy(() -> victim.segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0))
                                    .isInstanceOf(IllegalStateException.class);
                        }
                    }
                }
                case 6 -> {
                    if (!freed.isEmpty()) {
                        MemorySegment stale = freed.get(data.consumeInt(0, freed.size() - 1));
                        // a second free is only refused while the memory is not someone's again: where a
                        // live allocation now covers it, the allocator cannot tell the two apart (nor can malloc)
                        if (!overlaps(ranges, stale.address(), stale.byteSize())) {
                            refused(() -> allocator.free(stale), "second free in mode " + mode + " of " + stale);
                        }
                    }
                }
                case 7 -> {
                    if (!live.isEmpty()) {
                        Live target = live.get(data.consumeInt(0, live.size() - 1));
                        long size = target.segment.byteSize();
                        if (size >= 2) {
                            long offset = data.consumeLong(1, size - 1);
                            MemorySegment slice = target.segment.asSlice(offset);
                            assertThatThrownBy(() -> allocator.free(slice))
                                    .as("a slice at %d of the live %s (mode %s)", offset, target.segment, mode)
                                    .isInstanceOf(IllegalArgumentException.class);
                            // a prefix slice: refused wherever the allocator knows the allocation's size (an
                            // untracked pooled block of 64 KiB or less has no room for it, as documented)
                            if (!(allocator instanceof PooledAllocator) || mode == DebugMode.FULL
                                    || size > SizeClasses.MAX_SMALL) {
                                MemorySegment prefix = target.segment.asSlice(0, data.consumeLong(0, size - 1));
                                assertThatThrownBy(() -> allocator.free(prefix))
                                        .as("a prefix of %d bytes of the live %s (mode %s)", prefix.byteSize(),
                                                target.segment, mode)
                                        .isInstanceOf(IllegalArgumentException.class);
                            }
                        }
                    }
                }
                case 8 -> {
                    // native memory no allocator hands out again while it lives: a block from malloc
                    // could have the address of an allocation this one freed, and a free of it then
                    // reads as a second free of that allocation (the debug modes say so)
                    MemorySegment foreign = data.consumeBoolean()
                            ? MemorySegment.ofArray(new byte[data.consumeInt(0, 64)])
                            : FOREIGN.asSlice(data.consumeInt(0, 4096), data.consumeInt(1, 4096));
                    assertThatThrownBy(() -> allocator.free(foreign)).as("a foreign %s (mode %s)", foreign, mode)
                            .isInstanceOf(IllegalArgumentException.class);
                }
                default -> {
                    if (allocator instanceof PooledAllocator pooled) {
                        pooled.trim();
                    }
                }
            }
            assertThat(allocator.allocatedBytes()).as("allocated bytes").isEqualTo(liveBytes(live));
            assertThat(allocator.report().liveAllocations()).as("live allocations").isEqualTo(live.size());
        }
        for (Live l : live) {
            checkContents(l);
            allocator.free(l.segment);
        }
        assertThat(allocator.allocatedBytes()).isZero();
        assertThat(allocator.report().liveAllocations()).isZero();
    }

    private static void allocate(FuzzedDataProvider data, Allocator allocator, List<Live> live,
                                 TreeMap<Long, Long> ranges) {
        int size = switch (data.consumeInt(0, 7)) {
            case 0 -> data.consumeInt(65_536, MAX_SIZE);
            case 1, 2 -> data.consumeInt(1024, 65_536);
            default -> data.consumeInt(0, 1024);
        };
        long alignment = 1L << data.consumeInt(0, 12);
        boolean zeroed = data.consumeBoolean();
        MemorySegment segment = zeroed ? allocator.allocate(size, alignment) : allocator.allocateUninitialized(size, alignment);
        assertThat(segment.byteSize()).isEqualTo(size);
        assertThat(segment.address() % alignment).as("aligned to %d", alignment).isZero();
        if (zeroed && size > 0) {
            assertThat(MemorySegment.mismatch(segment, 0, size, ZEROS, 0, size)).as("zeroed").isEqualTo(-1L);
        }
        long patternOffset = data.consumeInt(0, MAX_SIZE);
        if (size == 0) {
            // no allocation: the allocator's empty segment, whose free does nothing
            assertThat(segment.address()).as("address of the empty segment").isZero();
            allocator.free(segment);
            return;
        }
        if (overlaps(ranges, segment.address(), size)) {
            fail("allocation of %d bytes at 0x%x overlaps a live one: %s", size, segment.address(), ranges);
        }
        ranges.put(segment.address(), segment.address() + size);
        MemorySegment.copy(PATTERN, patternOffset, segment, 0, size);
        live.add(new Live(segment, patternOffset));
    }

    private static boolean overlaps(TreeMap<Long, Long> ranges, long start, long size) {
        Map.Entry<Long, Long> below = ranges.floorEntry(start);
        if (below != null && below.getValue() > start) {
            return true;
        }
        Long above = ranges.ceilingKey(start);
        return above != null && above < start + size;
    }

    private static void checkContents(Live l) {
        long size = l.segment.byteSize();
        assertThat(MemorySegment.mismatch(l.segment, 0, size, PATTERN, l.patternOffset, l.patternOffset + size))
                .as("bytes of the allocation at 0x%x (%d bytes) as written", l.segment.address(), size)
                .isEqualTo(-1L);
    }

    private static long liveBytes(List<Live> live) {
        long sum = 0;
        for (Live l : live) {
            sum += l.segment.byteSize();
        }
        return sum;
    }

    /** A free that must be refused: IllegalArgumentException or IllegalStateException, as the allocator documents. */
    private static void refused(Runnable badFree, String what) {
        try {
            badFree.run();
        } catch (IllegalArgumentException | IllegalStateException expected) {
            return;
        }
        fail("accepted: " + what);
    }

    private static MemorySegment pattern() {
        byte[] bytes = new byte[2 * MAX_SIZE];
        new Random(42).nextBytes(bytes);
        MemorySegment segment = Arena.global().allocate(bytes.length);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, segment, 0, bytes.length);
        return segment;
    }
}
