package dev.offheap.bench.buffers;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The fixed shape of seed 003's experiment, shared by the round and the heap-cost benchmarks:
 * {@value #TOTAL_BYTES} bytes held in blocks of one size, written with ints from the first block
 * to the last. Every block kind has its own create and write method, so that each benchmark fork
 * (one per benchmark method) only ever sees one kind of buffer or segment at its call sites.
 *
 * <p>All ByteBuffers use the native byte order, as the segments do ({@link ValueLayout#JAVA_INT}
 * is native-endian): the experiment compares where the bytes live, not byte swapping.
 */
final class BufferExperiment {
    /** 96 MiB, the seed's total. */
    static final long TOTAL_BYTES = 96L << 20;

    /** Directory of the on-disk mapped file: {@code -Doffheap.bench.dir=...}, else java.io.tmpdir. */
    static final String DISK_DIR_PROPERTY = "offheap.bench.dir";

    /** The tmpfs directory of the shared-memory mapped file. */
    static final Path SHM_DIR = Path.of("/dev/shm");

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    private BufferExperiment() {
    }

    static int blockCount(int blockSize) {
        if (blockSize <= 0 || TOTAL_BYTES % blockSize != 0) {
            throw new IllegalArgumentException("blockSize " + blockSize + " does not divide " + TOTAL_BYTES);
        }
        return (int) (TOTAL_BYTES / blockSize);
    }

    // ---- creating blocks -------------------------------------------------------------------

    static ByteBuffer[] heapBuffers(int blockSize) {
        ByteBuffer[] blocks = new ByteBuffer[blockCount(blockSize)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = ByteBuffer.allocate(blockSize).order(ByteOrder.nativeOrder());
        }
        return blocks;
    }

    static ByteBuffer[] directBuffers(int blockSize) {
        ByteBuffer[] blocks = new ByteBuffer[blockCount(blockSize)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = ByteBuffer.allocateDirect(blockSize).order(ByteOrder.nativeOrder());
        }
        return blocks;
    }

    /** One {@code FileChannel.map} per block, as the seed did; unmapped only when the GC collects them. */
    static ByteBuffer[] mappedBuffers(FileChannel channel, int blockSize) throws IOException {
        ByteBuffer[] blocks = new ByteBuffer[blockCount(blockSize)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = channel.map(FileChannel.MapMode.READ_WRITE, (long) i * blockSize, blockSize)
                    .order(ByteOrder.nativeOrder());
        }
        return blocks;
    }

    /** One allocation per block, all from the given arena. */
    static MemorySegment[] nativeSegments(Arena arena, int blockSize) {
        MemorySegment[] blocks = new MemorySegment[blockCount(blockSize)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = arena.allocate(blockSize, Long.BYTES);
        }
        return blocks;
    }

    /** One allocation of the whole size from the given arena, cut into blocks with {@code asSlice}. */
    static MemorySegment[] slicesOfOneSegment(Arena arena, int blockSize) {
        MemorySegment whole = arena.allocate(TOTAL_BYTES, Long.BYTES);
        MemorySegment[] blocks = new MemorySegment[blockCount(blockSize)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = whole.asSlice((long) i * blockSize, blockSize);
        }
        return blocks;
    }

    /** One {@code FileChannel.map} per block into the given arena: unmapped when the arena closes. */
    static MemorySegment[] mappedSegments(FileChannel channel, Arena arena, int blockSize) throws IOException {
        MemorySegment[] blocks = new MemorySegment[blockCount(blockSize)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = channel.map(FileChannel.MapMode.READ_WRITE, (long) i * blockSize, blockSize, arena);
        }
        return blocks;
    }

    // ---- writing ---------------------------------------------------------------------------

    /** Writes consecutive ints from {@code first}, block after block; returns the next value. */
    static int writeInts(ByteBuffer[] blocks, int first) {
        int value = first;
        for (ByteBuffer block : blocks) {
            int limit = block.capacity();
            for (int offset = 0; offset < limit; offset += Integer.BYTES) {
                block.putInt(offset, value++);
            }
        }
        return value;
    }

    /** Writes consecutive ints from {@code first}, block after block; returns the next value. */
    static int writeInts(MemorySegment[] blocks, int first) {
        int value = first;
        for (MemorySegment block : blocks) {
            long limit = block.byteSize();
            for (long offset = 0; offset < limit; offset += Integer.BYTES) {
                block.set(INT, offset, value++);
            }
        }
        return value;
    }

    /** Writes consecutive ints from {@code first}, page after page; returns the next value. */
    static int writeInts(Iterable<MemorySegment> blocks, int first) {
        int value = first;
        for (MemorySegment block : blocks) {
            long limit = block.byteSize();
            for (long offset = 0; offset < limit; offset += Integer.BYTES) {
                block.set(INT, offset, value++);
            }
        }
        return value;
    }

    // ---- files -----------------------------------------------------------------------------

    static Path diskDirectory() {
        return Path.of(System.getProperty(DISK_DIR_PROPERTY, System.getProperty("java.io.tmpdir")));
    }

    /** A fresh file of {@link #TOTAL_BYTES} (sparse), sized up front so mapping never grows it. */
    static Path createFile(Path directory, String prefix) {
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException("no directory " + directory + " for the mapped file");
        }
        try {
            Path file = Files.createTempFile(directory, prefix, ".dat");
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(TOTAL_BYTES);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the mapped file in " + directory, e);
        }
    }

    static FileChannel openReadWrite(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    static void deleteQuietly(Path file) {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            System.err.println("could not delete " + file + ": " + e);
        }
    }

    // ---- heap measurement ------------------------------------------------------------------

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    /**
     * Heap in use after two full collections ({@code System.gc()} is a stop-the-world full GC
     * with the JDK's default collectors unless {@code -XX:+ExplicitGCInvokesConcurrent} is set).
     * Noise: a few KiB, from JMH's own threads.
     */
    static long usedHeapAfterGc() {
        System.gc();
        System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed();
    }

    /** The JDK's pools of direct and mapped ByteBuffers ("direct", "mapped", "mapped - 'non-volatile memory'"). */
    private static final List<BufferPoolMXBean> BYTE_BUFFER_POOLS = ManagementFactory
            .getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(p -> p.getName().equals("direct") || p.getName().startsWith("mapped"))
            .toList();

    /** How long {@link #awaitByteBuffersFreed} waits for the JDK's cleaner thread. */
    private static final long FREE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /**
     * @return the direct and mapped ByteBuffers not freed yet: alive, or unreachable with their
     *     cleanup (free or unmap) not yet run by the JDK's cleaner thread
     */
    static long byteBuffersNotFreed() {
        long count = 0;
        for (BufferPoolMXBean pool : BYTE_BUFFER_POOLS) {
            count += pool.getCount();
        }
        return count;
    }

    /**
     * Waits until the direct and mapped ByteBuffers that were dropped since
     * {@link #byteBuffersNotFreed()} returned {@code count} are freed, collecting meanwhile. A
     * collection only finds dropped buffers; their cleanups run afterwards on the JDK's cleaner
     * thread, and until they have run each buffer's cleanup objects (its cleaner entry and
     * deallocator, about as large as the buffer object) are still on the heap. A heap reading taken
     * before that counts them: the next measurement's "before" would then include the previous
     * invocation's leftovers, which are gone by its "after".
     *
     * @param count a value of {@link #byteBuffersNotFreed()} from before the buffers were made
     * @throws IllegalStateException if they are not freed within a minute
     */
    static void awaitByteBuffersFreed(long count) {
        long deadline = System.nanoTime() + FREE_TIMEOUT_NANOS;
        while (byteBuffersNotFreed() > count) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException((byteBuffersNotFreed() - count)
                        + " dropped ByteBuffers still not freed by the JDK's cleaner thread after a minute");
            }
            System.gc();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
