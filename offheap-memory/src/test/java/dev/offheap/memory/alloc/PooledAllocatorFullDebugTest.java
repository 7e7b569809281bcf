package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;

class PooledAllocatorFullDebugTest extends AllocatorConformanceTest {
    @Override
    Allocator build(Budget budget) {
        return PooledAllocator.builder().budget(budget).debug(DebugMode.FULL).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.FULL;
    }
}
