package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Segments#readBytes} given a negative length throws {@link IndexOutOfBoundsException} whose
 * message gives the index, the length and the size, as the class javadoc promises for every bad region
 * and as {@link Segments#writeBytes} does. It gave the JDK's "The provided elementCount is negative: -1",
 * with neither the index nor any size.
 */
class ReadBytesNegativeLengthMessageTest {

    @Test
    void negativeLengthGivesIndexLengthAndSizeAndWritesNothing() {
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> segments = List.of(
                    MemorySegment.ofArray(new byte[40]),
                    MemorySegment.ofArray(new long[6]).asSlice(3, 40),
                    arena.allocate(45).asSlice(5),
                    MemorySegment.ofBuffer(ByteBuffer.allocateDirect(40)));
            for (MemorySegment s : segments) {
                s.fill((byte) 0x33);
                for (int length : new int[] {-1, -7, Integer.MIN_VALUE}) {
                    byte[] dst = new byte[23];
                    assertThatThrownBy(() -> Segments.readBytes(s, 5, dst, 11, length))
                            .as("%s length %d", s, length)
                            .isInstanceOf(IndexOutOfBoundsException.class)
                            .hasMessageContaining("11")
                            .hasMessageContaining(Integer.toString(length))
                            .hasMessageContaining("23");
                    assertThat(dst).containsOnly(0);
                    // the counterpart names the same numbers
                    assertThatThrownBy(() -> Segments.writeBytes(s, 5, dst, 11, length))
                            .isInstanceOf(IndexOutOfBoundsException.class)
                            .hasMessageContaining("11")
                            .hasMessageContaining(Integer.toString(length))
                            .hasMessageContaining("23");
                }
            }
        }
    }
}
