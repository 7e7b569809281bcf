package dev.offheap.memory.alloc;

import java.lang.foreign.MemorySegment;

final class CommonChecks {
    private CommonChecks() {
    }

    static void assertZero(MemorySegment s) {
        AllocatorConformanceTest.assertZero(s);
    }
}
