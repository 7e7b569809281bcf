package dev.offheap.memory;

import java.nio.file.Path;

/** Builders of small MAPPED managers for the tests of mapped files: 4 KiB pages, no MBean. */
final class MappedManagers {
    private MappedManagers() {
    }

    /** @return a builder of a manager of {@code bytes} over {@code file} */
    static MemoryManager.Builder mapped(Path file, long bytes) {
        return MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED).mappedFile(file).pageSize(4096)
                .totalSize(bytes);
    }

    /** @return a builder of a manager of 1 MiB over {@code file} */
    static MemoryManager.Builder mapped(Path file) {
        return mapped(file, 1L << 20);
    }
}
