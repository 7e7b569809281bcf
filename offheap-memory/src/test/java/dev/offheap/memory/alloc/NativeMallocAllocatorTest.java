package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;

class NativeMallocAllocatorTest extends AllocatorConformanceTest {
    @Override
    Allocator build(Budget budget) {
        return NativeAllocator.builder().kind(NativeAllocator.Kind.MALLOC).budget(budget).debug(DebugMode.OFF).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.OFF;
    }

    @Override
    Class<? extends RuntimeException> doubleFreeException() {
        return IllegalArgumentException.class;
    }
}
