package dev.offheap.memory;

class MemoryManagerNativeConfinedTest extends MemoryManagerConformanceTest {
    @Override
    MemoryManager.Builder configure(MemoryManager.Builder builder) {
        return builder.type(MemoryType.NATIVE).pageAccess(PageAccess.CONFINED);
    }

    @Override
    boolean confined() {
        return true;
    }
}
