package dev.offheap.memory.alloc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A debug mode remembers where recent allocations were freed, to name both stack traces at a double
 * free. But the C allocator hands a freed address to whoever asks next: another allocator, an
 * {@link Arena}, a native library. A segment of theirs at that address is foreign, not this
 * allocator's freed one (its scope is neither the allocator's nor the freed allocation's own), and its
 * free was reported as a double free of this allocator's allocation, with that allocation's stacks.
 */
class AForeignSegmentAtARecentlyFreedAddressIsNoDoubleFreeTest {

    @ParameterizedTest
    @EnumSource(value = DebugMode.class, names = {"SAMPLED", "FULL"})
    void anotherOwnersSegmentAtAnAddressANativeAllocatorFreedIsRefusedAsForeign(DebugMode mode) {
        for (long size : new long[]{200, NativeAllocator.OWN_SCOPE_THRESHOLD + 1}) {
            try (NativeAllocator mine = NativeAllocator.builder().debug(mode).sampleRate(1).build();
                 NativeAllocator otherAllocator = NativeAllocator.builder().debug(DebugMode.OFF).build();
                 Arena confined = Arena.ofConfined();
                 Arena shared = Arena.ofShared()) {
                MemorySegment freed = mine.allocate(size);
                long address = freed.address();
                mine.free(freed);
                // what the segment of an owner that got the address since looks like: the owner's scope
                for (Arena owner : List.of(otherAllocator, confined, shared, Arena.ofAuto())) {
                    MemorySegment foreign = reinterpret(address, size, owner);
                    assertThatThrownBy(() -> mine.free(foreign)).as("%d bytes of %s", size, owner)
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("did not allocate");
                }
                // the freed segment itself, freed again, is still a double free
                assertThatThrownBy(() -> mine.free(freed)).as("%d bytes", size)
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("double free");
            }
        }
    }

    // reinterpret is restricted: the segment is only handed to free, never accessed
    @SuppressWarnings("restricted")
    private static MemorySegment reinterpret(long address, long size, Arena arena) {
        return MemorySegment.ofAddress(address).reinterpret(size, arena, null);
    }
}
