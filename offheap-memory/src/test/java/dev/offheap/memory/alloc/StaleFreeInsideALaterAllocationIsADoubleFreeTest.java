package dev.offheap.memory.alloc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link NativeAllocator} segment with a scope of its own (above {@link NativeAllocator#OWN_SCOPE_THRESHOLD}
 * bytes in every mode) is stale once freed: free closed its scope. Freeing it again was refused as a double free
 * only while a later allocation started at its very address. When the C allocator placed a later, larger
 * allocation at a lower address over it (neighbouring blocks freed, then one block over several of them), the
 * stale free found no allocation at its address but one covering it, and was refused as a slice of that live
 * allocation ({@link IllegalArgumentException}, "a slice of it?"): the double free was misnamed, and FULL mode,
 * which promises to detect every double free, reported a foreign free. A stale segment's closed scope tells it
 * from a slice of the live allocation, whose scope is alive: it is now an {@link IllegalStateException} naming a
 * double free, the later allocation staying live; a slice is still refused as one.
 *
 * <p>The C allocator is a {@link PlacingCAllocator}, which puts the later allocation over the freed blocks every
 * time: glibc and the kernel do so only some of the time, and a test on them skipped the case when they did not.
 */
class StaleFreeInsideALaterAllocationIsADoubleFreeTest {
    /** Above {@link NativeAllocator#OWN_SCOPE_THRESHOLD}: every mode gives such a block a scope of its own. */
    private static final long SIZE = 2 * NativeAllocator.OWN_SCOPE_THRESHOLD;

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aStaleFreeOfASegmentNowInsideALaterAllocationIsADoubleFree(DebugMode mode) {
        // three neighbours freed, then one block over all three: the first starts where the later one does, the
        // other two lie inside it, past its start
        try (PlacingCAllocator c = new PlacingCAllocator(3 * SIZE).place(0, SIZE, 2 * SIZE, 0);
             NativeAllocator malloc = NativeAllocator.builder().debug(mode).sampleRate(1).functions(c).build()) {
            MemorySegment atItsStart = malloc.allocateUninitialized(SIZE);
            List<MemorySegment> inside = List.of(malloc.allocateUninitialized(SIZE), malloc.allocateUninitialized(SIZE));
            malloc.free(inside.get(1));
            malloc.free(inside.get(0));
            malloc.free(atItsStart);
            MemorySegment later = malloc.allocateUninitialized(3 * SIZE);
            assertThat(later.address()).isEqualTo(atItsStart.address());
            long laterSize = later.byteSize();
            later.fill((byte) 5);

            for (MemorySegment stale : inside) {
                long offset = stale.address() - later.address();
                assertThat(offset).as("a freed block inside the later one").isPositive().isLessThan(laterSize);
                assertThat(stale.scope().isAlive()).as("the first free closed the stale segment's scope").isFalse();
                assertThatThrownBy(() -> malloc.free(stale)).as("the stale segment %d bytes into the later one", offset)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("double free")
                        .hasMessageContaining(Long.toHexString(stale.address()));
                assertThat(later.scope().isAlive()).as("the later allocation").isTrue();
                later.set(ValueLayout.JAVA_BYTE, offset, (byte) 6);
                assertThat(later.get(ValueLayout.JAVA_BYTE, offset)).isEqualTo((byte) 6);
                assertThat(malloc.allocatedBytes()).isEqualTo(laterSize);

                // a slice of the later allocation at the same address is a slice, not a double free
                MemorySegment slice = later.asSlice(offset, stale.byteSize());
                assertThatThrownBy(() -> malloc.free(slice)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("a slice of it?");
            }
            // and one that the later allocation starts at (what AllocatorStaleFreeTest checks for one of its size)
            assertThatThrownBy(() -> malloc.free(atItsStart)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free");
            assertThat(later.scope().isAlive()).as("the later allocation").isTrue();
            assertThat(later.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 5);
            assertThat(later.get(ValueLayout.JAVA_BYTE, laterSize - 1)).isEqualTo((byte) 5);
            assertThat(malloc.allocatedBytes()).isEqualTo(laterSize);
            assertThat(malloc.report().liveAllocations()).isEqualTo(1);
            if (mode != DebugMode.OFF) {
                assertThat(malloc.report().problems()).as("each refused free is recorded")
                        .filteredOn(p -> p.startsWith("double free")).hasSize(3);
            }
            assertThat(c.freed()).as("what reached the C allocator's free")
                    .containsExactly(c.address(2 * SIZE), c.address(SIZE), c.address(0));

            malloc.free(later);
            assertThat(malloc.allocatedBytes()).isZero();
            assertThat(malloc.report().liveAllocations()).isZero();
            assertThat(c.freed()).hasSize(4).last().isEqualTo(later.address());
        }
    }
}
