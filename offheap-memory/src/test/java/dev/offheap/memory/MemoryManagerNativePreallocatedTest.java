package dev.offheap.memory;

class MemoryManagerNativePreallocatedTest extends MemoryManagerConformanceTest {
    @Override
    MemoryManager.Builder configure(MemoryManager.Builder builder) {
        return builder.type(MemoryType.NATIVE).preallocate(true);
    }

    @Override
    boolean confined() {
        return true;
    }
}
