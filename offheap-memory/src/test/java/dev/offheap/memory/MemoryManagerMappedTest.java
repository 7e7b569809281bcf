package dev.offheap.memory;

import java.util.concurrent.atomic.AtomicInteger;

/** MAPPED memory in a temporary file on disk (default CONFINED access). */
class MemoryManagerMappedTest extends MemoryManagerConformanceTest {
    private static final AtomicInteger FILES = new AtomicInteger();

    @Override
    MemoryManager.Builder configure(MemoryManager.Builder builder) {
        return builder.type(MemoryType.MAPPED).mappedFile(tempDir.resolve("pages-" + FILES.incrementAndGet() + ".bin"));
    }

    @Override
    boolean confined() {
        return true;
    }
}
