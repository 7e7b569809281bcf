package dev.offheap.bench.buffers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The experiment's blocks add up to 96 MiB and every int of them is written, whatever the kind. */
class BufferExperimentTest {
    private static final int BLOCK = 4 * 1024 * 1024;
    private static final int INTS = (int) (BufferExperiment.TOTAL_BYTES / Integer.BYTES);

    @Test
    void blockCountDividesTheTotal() {
        assertThat(BufferExperiment.blockCount(4096)).isEqualTo(24576);
        assertThat(BufferExperiment.blockCount(BLOCK)).isEqualTo(24);
        assertThatThrownBy(() -> BufferExperiment.blockCount(3000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void byteBuffersAreWrittenToTheEnd() {
        ByteBuffer[] blocks = BufferExperiment.heapBuffers(BLOCK);
        assertThat(BufferExperiment.writeInts(blocks, 0)).isEqualTo(INTS);
        assertThat(blocks[23].getInt(BLOCK - 4)).isEqualTo(INTS - 1);
    }

    @Test
    void segmentsAreWrittenToTheEnd() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.slicesOfOneSegment(arena, BLOCK);
            assertThat(BufferExperiment.writeInts(blocks, 5)).isEqualTo(INTS + 5);
            assertThat(blocks[23].get(ValueLayout.JAVA_INT, BLOCK - 4)).isEqualTo(INTS + 4);
        }
    }

    @Test
    void mappedSegmentsReachTheFile(@TempDir Path dir) throws Exception {
        Path file = BufferExperiment.createFile(dir, "test-");
        try (FileChannel channel = BufferExperiment.openReadWrite(file); Arena arena = Arena.ofConfined()) {
            MemorySegment[] blocks = BufferExperiment.mappedSegments(channel, arena, BLOCK);
            BufferExperiment.writeInts(blocks, 0);
        }
        try (FileChannel channel = BufferExperiment.openReadWrite(file)) {
            ByteBuffer last = ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder());
            channel.read(last, BufferExperiment.TOTAL_BYTES - 4);
            assertThat(last.getInt(0)).isEqualTo(INTS - 1);
        }
    }
}
