package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link Segments#swap}'s javadoc says of memory mapped twice: two mappings of one file have
 * different addresses, so the swap cannot see that they are the same memory. A region swapped with
 * itself through the two mappings ends as it was; partly overlapping regions of the two mappings
 * are not refused as they are within one mapping.
 */
class SwapThroughTwoMappingsOfOneFileTest {

    private static final int SIZE = 8192;

    @TempDir
    Path dir;

    @Test
    void aRegionSwappedWithItselfThroughTwoMappingsEndsAsItWas() throws IOException {
        try (Arena arena = Arena.ofShared();
                FileChannel ch = FileChannel.open(dir.resolve("twice"), StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment first = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE, arena);
            MemorySegment second = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE, arena);
            assertThat(first.address()).isNotEqualTo(second.address());
            byte[] bytes = new byte[SIZE];
            new Random(11).nextBytes(bytes);
            MemorySegment.copy(bytes, 0, first, ValueLayout.JAVA_BYTE, 0, SIZE);
            assertThat(second.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytes);

            // the 8-byte loop, its tail, and the bulk path (256 bytes and more)
            for (int n : new int[] {1, 7, 8, 33, 255, 256, 5000}) {
                Segments.swap(first, 10, second, 10, n);
                Segments.swap(second, SIZE - n, first, SIZE - n, n);
                assertThat(first.toArray(ValueLayout.JAVA_BYTE)).as("n=%d", n).isEqualTo(bytes);
            }

            // not seen as an overlap: no exception (within one mapping this is refused)
            Segments.swap(first, 10, second, 11, 16);
        }
    }
}
