package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;

class NativeMallocSampledAllocatorTest extends AllocatorConformanceTest {
    @Override
    Allocator build(Budget budget) {
        return NativeAllocator.builder().kind(NativeAllocator.Kind.MALLOC).budget(budget).debug(DebugMode.SAMPLED)
                .sampleRate(2).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.SAMPLED;
    }

    @Override
    Class<? extends RuntimeException> doubleFreeException() {
        return IllegalArgumentException.class;
    }
}
