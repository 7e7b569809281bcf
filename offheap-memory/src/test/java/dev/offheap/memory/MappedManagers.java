package dev.offheap.memory;

import dev.offheap.memory.internal.MappedFileHeader;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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

    /**
     * Makes a manager's file for {@code total} bytes of 4 KiB pages without reserving its blocks: the header, then
     * {@code total} bytes of holes.
     *
     * @return the file
     */
    static Path sparseManagersFile(Path file, long total) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            MappedFileHeader.write(channel, 4096, total);
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(MappedFileHeader.BYTES + total);
        }
        return file;
    }
}
