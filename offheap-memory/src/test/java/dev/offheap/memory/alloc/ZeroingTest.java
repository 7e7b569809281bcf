package dev.offheap.memory.alloc;

import dev.offheap.memory.internal.SegmentKernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The zeroing of allocated blocks: every byte of the block, not one byte beside it. */
class ZeroingTest {
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42})
    void zeroesExactlyTheBlockAtAnyOffsetAndSize(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(80_000, 64);
            for (int round = 0; round < 200; round++) {
                long size = switch (round % 4) {
                    case 0 -> random.nextLong(0, 64);
                    case 1 -> SegmentKernels.VECTOR_FILL_FROM + random.nextLong(-9, 9);
                    case 2 -> random.nextLong(SegmentKernels.VECTOR_FILL_FROM, 10_000);
                    default -> random.nextLong(60_000, 70_000);
                };
                long offset = random.nextLong(0, 64) + 8;
                memory.fill((byte) 0xA5);
                MemorySegment block = memory.asSlice(offset, size);
                assertThat(Zeroing.zero(block)).isSameAs(block);
                for (long i = 0; i < size; i++) {
                    assertThat(block.get(ValueLayout.JAVA_BYTE, i)).as("byte %d of %d at offset %d", i, size, offset)
                            .isZero();
                }
                assertThat(memory.get(ValueLayout.JAVA_BYTE, offset - 1)).as("the byte before").isEqualTo((byte) 0xA5);
                assertThat(memory.get(ValueLayout.JAVA_BYTE, offset + size)).as("the byte after").isEqualTo((byte) 0xA5);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {100, 4096})
    void aBlockOfAClosedScopeThrowsInsteadOfBeingWritten(long size) {
        Arena arena = Arena.ofShared();
        MemorySegment block = arena.allocate(size);
        arena.close();
        assertThatThrownBy(() -> Zeroing.zero(block)).isInstanceOf(IllegalStateException.class);
    }
}
