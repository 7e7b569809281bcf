package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;

class NativeMallocFullDebugAllocatorTest extends AllocatorConformanceTest {
    @Override
    Allocator build(Budget budget) {
        return NativeAllocator.builder().kind(NativeAllocator.Kind.MALLOC).budget(budget).debug(DebugMode.FULL).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.FULL;
    }
}
