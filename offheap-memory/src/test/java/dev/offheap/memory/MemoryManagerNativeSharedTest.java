package dev.offheap.memory;

class MemoryManagerNativeSharedTest extends MemoryManagerConformanceTest {
    @Override
    MemoryManager.Builder configure(MemoryManager.Builder builder) {
        return builder.type(MemoryType.NATIVE).pageAccess(PageAccess.SHARED);
    }
}
