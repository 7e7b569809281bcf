package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;

class PooledAllocatorOffTest extends AllocatorConformanceTest {
    @Override
    Allocator build(Budget budget) {
        return PooledAllocator.builder().budget(budget).debug(DebugMode.OFF).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.OFF;
    }
}
