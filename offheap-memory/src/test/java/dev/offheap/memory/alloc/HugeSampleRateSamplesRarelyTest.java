package dev.offheap.memory.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A sample rate near {@link Integer#MAX_VALUE} is a valid N: SAMPLED mode then tracks about one
 * allocation in two billion, so a few hundred allocations are, in practice, never sampled.
 */
class HugeSampleRateSamplesRarelyTest {
    @Test
    void pooledAllocatorWithHugeSampleRateTracksAlmostNothing() {
        try (PooledAllocator allocator = PooledAllocator.builder().debug(DebugMode.SAMPLED)
                .sampleRate(Integer.MAX_VALUE).build()) {
            List<MemorySegment> segments = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                segments.add(allocator.allocate(16));
            }
            // each countdown drawn from [N/2, 3N/2] must stay positive: one that overflowed an int sampled
            // the very next allocation, so about every other allocation was tracked
            long tracked = allocator.report().leaks().stream().mapToLong(AllocationReport.Leak::count).sum();
            assertEquals(0, tracked, "allocations tracked out of 500");
            segments.forEach(allocator::free);
        }
    }
}
