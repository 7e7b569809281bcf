package dev.offheap.bench.segments;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The regions the access benchmarks loop over, one kind per benchmark method: only the memory
 * the running method needs is allocated (read from the method name), so a 1 GiB fork holds one
 * region of 1 GiB (two for the heap ByteBuffer, which wraps its own array).
 *
 * <p>Sizes: {@code 32768} (32 KiB, the Flink benchmarks' segment) and {@code 1073741824} (1 GiB,
 * the largest region one fork holds with {@code -Xmx3g}). A MemoryManager page is at most 64 MiB,
 * so the {@code managerPage} variants loop over {@code bytes / pageSize} pages of
 * {@code min(bytes, 64 MiB)} each: the same number of bytes, in 16 pages for 1 GiB.
 */
@State(Scope.Benchmark)
public class Regions {

    /** The staging array of the library's way to write single bytes (fits in L1). */
    public static final int STAGING_BYTES = 4096;

    /** Bytes per region. */
    @Param({"32768", "1073741824"})
    public int bytes;

    public byte[] array;
    public int[] intArray;
    public long[] longArray;
    public ByteBuffer heapBuffer;
    public ByteBuffer directBuffer;
    public MemorySegment heapSegment;
    public MemorySegment nativeSegment;
    public MemorySegment mappedSegment;
    public MemorySegment[] pages;
    public byte[] staging;
    public byte[] chunk;

    private Arena arena;
    private MemoryManager manager;
    private Path file;

    @Setup(Level.Trial)
    public void allocate(BenchmarkParams params) throws IOException {
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        arena = Arena.ofShared();
        staging = new byte[STAGING_BYTES];
        chunk = new byte[1024];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) (i * 31);
        }
        switch (method) {
            case "byteArray" -> array = new byte[bytes];
            case "intArray" -> intArray = new int[bytes / Integer.BYTES];
            case "longArray" -> longArray = new long[bytes / Long.BYTES];
            case "heapByteBuffer" -> heapBuffer = ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder());
            case "directByteBuffer" -> directBuffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            case "heapSegment" -> heapSegment = MemorySegment.ofArray(new byte[bytes]);
            case "nativeSegment", "library" -> nativeSegment = arena.allocate(bytes, 64);
            case "mappedSegment" -> {
                file = Files.createTempFile(Path.of("/tmp"), "offheap-segments", ".bin");
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    mappedSegment = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
                }
            }
            case "managerPage" -> {
                int pageSize = Math.min(bytes, MemoryManager.MAX_PAGE_SIZE);
                manager = MemoryManager.builder().totalSize(bytes).pageSize(pageSize).type(MemoryType.NATIVE).build();
                pages = new MemorySegment[bytes / pageSize];
                for (int i = 0; i < pages.length; i++) {
                    pages[i] = manager.allocatePage(this);
                }
            }
            default -> throw new IllegalStateException("no region for benchmark method " + method);
        }
        // Touch every page once so that no variant pays first-touch page faults in measurement.
        MemorySegment any = any();
        for (long i = 0; i < any.byteSize(); i += 4096) {
            any.set(ValueLayout.JAVA_BYTE, i, (byte) 1);
        }
        if (pages != null) {
            for (MemorySegment p : pages) {
                p.fill((byte) 1);
            }
        }
    }

    private MemorySegment any() {
        if (array != null) {
            return MemorySegment.ofArray(array);
        } else if (intArray != null) {
            return MemorySegment.ofArray(intArray);
        } else if (longArray != null) {
            return MemorySegment.ofArray(longArray);
        } else if (heapBuffer != null) {
            return MemorySegment.ofBuffer(heapBuffer);
        } else if (directBuffer != null) {
            return MemorySegment.ofBuffer(directBuffer);
        } else if (heapSegment != null) {
            return heapSegment;
        } else if (nativeSegment != null) {
            return nativeSegment;
        } else if (mappedSegment != null) {
            return mappedSegment;
        }
        return MemorySegment.NULL;
    }

    @TearDown(Level.Trial)
    public void release() throws IOException {
        if (manager != null) {
            for (MemorySegment p : pages) {
                manager.release(p);
            }
            manager.close();
        }
        arena.close();
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }
}
