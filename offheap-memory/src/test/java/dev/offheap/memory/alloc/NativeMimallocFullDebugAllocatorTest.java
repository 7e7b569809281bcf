package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

class NativeMimallocFullDebugAllocatorTest extends AllocatorConformanceTest {
    @BeforeAll
    static void needsMimalloc() {
        assumeTrue(NativeAllocator.isMimallocAvailable(), "libmimalloc2.0 is not installed");
    }

    @Override
    Allocator build(Budget budget) {
        return NativeAllocator.builder().kind(NativeAllocator.Kind.MIMALLOC).budget(budget).debug(DebugMode.FULL).build();
    }

    @Override
    DebugMode mode() {
        return DebugMode.FULL;
    }
}
