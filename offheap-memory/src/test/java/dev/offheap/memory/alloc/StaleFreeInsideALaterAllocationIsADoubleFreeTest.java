package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StaleFreeInsideALaterAllocationIsADoubleFreeTest {
    /** Sizes of the blocks freed: glibc serves the first from its heap, the second (above 32 MiB) always by mmap. */
    private static final long[] SIZES = {1 << 20, 40 << 20};

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aStaleFreeOfASegmentNowInsideALaterAllocationIsADoubleFree(DebugMode mode) {
        try (NativeAllocator malloc = NativeAllocator.builder().debug(mode).build()) {
            List<MemorySegment> inside = new ArrayList<>();
            List<MemorySegment> atItsStart = new ArrayList<>();
            MemorySegment later = null;
            // neighbours freed, then one block of half their size: the C allocator merges the freed blocks and
            // places the new one over them, from below. Blocks of 1 MiB come from glibc's heap, where what earlier
            // code left there may keep them apart; blocks of 40 MiB are always mapped one by one, and the kernel maps
            // the new one at the top of the gap the freed ones leave. Other threads may take memory in between:
            // try a few times
            for (int attempt = 0; attempt < 20 && inside.isEmpty(); attempt++) {
                long size = SIZES[attempt % SIZES.length];
                MemorySegment[] freed = new MemorySegment[size == SIZES[0] ? 8 : 2];
                for (int i = 0; i < freed.length; i++) {
                    freed[i] = malloc.allocateUninitialized(size);
                }
                for (int i = freed.length - 1; i >= 0; i--) {
                    malloc.free(freed[i]);
                }
                MemorySegment big = malloc.allocateUninitialized(Math.max(2, freed.length / 2) * size);
                for (MemorySegment f : freed) {
                    if (big.address() < f.address() && f.address() + size <= big.address() + big.byteSize()) {
                        inside.add(f);
                    } else if (f.address() == big.address()) {
                        atItsStart.add(f);
                    }
                }
                if (inside.isEmpty()) {
                    malloc.free(big);
                    atItsStart.clear();
                } else {
                    later = big;
                }
            }
            assumeTrue(later != null, "the C allocator never placed a later allocation over a freed one");
            MemorySegment laterSegment = later;
            long laterSize = laterSegment.byteSize();
            laterSegment.asSlice(0, 4096).fill((byte) 5);
            laterSegment.asSlice(laterSize - 4096).fill((byte) 5);

            for (MemorySegment stale : inside) {
                long offset = stale.address() - laterSegment.address();
                assertThat(stale.scope().isAlive()).as("the first free closed the stale segment's scope").isFalse();
                assertThatThrownBy(() -> malloc.free(stale)).as("the stale segment %d bytes into the later one", offset)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("double free")
                        .hasMessageContaining(Long.toHexString(stale.address()));
                assertThat(laterSegment.scope().isAlive()).as("the later allocation").isTrue();
                laterSegment.set(ValueLayout.JAVA_BYTE, offset, (byte) 6);
                assertThat(laterSegment.get(ValueLayout.JAVA_BYTE, offset)).isEqualTo((byte) 6);
                assertThat(malloc.allocatedBytes()).isEqualTo(laterSize);

                // a slice of the later allocation at the same address is a slice, not a double free
                MemorySegment slice = laterSegment.asSlice(offset, stale.byteSize());
                assertThatThrownBy(() -> malloc.free(slice)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("a slice of it?");
            }
            // and one that the later allocation starts at (what AllocatorStaleFreeTest checks for one of its size)
            for (MemorySegment stale : atItsStart) {
                assertThatThrownBy(() -> malloc.free(stale)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("double free");
            }
            assertThat(laterSegment.scope().isAlive()).as("the later allocation").isTrue();
            assertThat(laterSegment.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 5);
            assertThat(laterSegment.get(ValueLayout.JAVA_BYTE, laterSegment.byteSize() - 1)).isEqualTo((byte) 5);
            assertThat(malloc.allocatedBytes()).isEqualTo(laterSize);
            assertThat(malloc.report().liveAllocations()).isEqualTo(1);
            if (mode != DebugMode.OFF) {
                assertThat(malloc.report().problems()).as("each refused free is recorded")
                        .filteredOn(p -> p.startsWith("double free")).hasSize(inside.size() + atItsStart.size());
            }

            malloc.free(laterSegment);
            assertThat(malloc.allocatedBytes()).isZero();
            assertThat(malloc.report().liveAllocations()).isZero();
        }
    }
}
