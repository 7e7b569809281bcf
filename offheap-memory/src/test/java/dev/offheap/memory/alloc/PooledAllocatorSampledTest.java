package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;

class PooledAllocatorSampledTest extends AllocatorConformanceTest {
    @Override
    Allocator build(Budget budget) {
        return PooledAllocator.builder().budget(budget).debug(DebugMode.SAMPLED).sampleRate(3).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.SAMPLED;
    }
}
