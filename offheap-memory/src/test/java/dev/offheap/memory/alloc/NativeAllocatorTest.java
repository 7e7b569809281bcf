package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What only the native allocator promises. */
class NativeAllocatorTest {

    @Test
    void largeBlocksGetTheirOwnScopeSoAStaleOneThrowsInsteadOfFaulting() {
        try (NativeAllocator a = NativeAllocator.builder().debug(DebugMode.OFF).build()) {
            MemorySegment large = a.allocate(NativeAllocator.OWN_SCOPE_THRESHOLD + 1);
            MemorySegment small = a.allocate(64);
            assertThat(large.scope()).isNotEqualTo(a.scope());
            assertThat(small.scope()).isEqualTo(a.scope());
            a.free(large);
            assertThatThrownBy(() -> large.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            a.free(small);
        }
    }

    @Test
    void mimallocIsLoadedOnceAndNamedWhenMissing() {
        if (NativeAllocator.isMimallocAvailable()) {
            try (NativeAllocator a = NativeAllocator.mimalloc(); NativeAllocator b = NativeAllocator.mimalloc()) {
                assertThat(a.kind()).isEqualTo(NativeAllocator.Kind.MIMALLOC);
                MemorySegment s = a.allocateFrom("from mimalloc");
                assertThat(s.getString(0)).isEqualTo("from mimalloc");
                a.free(s);
                b.free(b.allocate(10));
            }
        } else {
            assertThatThrownBy(NativeAllocator::mimalloc).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("libmimalloc2.0");
        }
    }

    @Test
    void builderRefusesBadSettings() {
        assertThatThrownBy(() -> NativeAllocator.builder().kind(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> NativeAllocator.builder().sampleRate(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NativeAllocator.builder().name("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void outOfMemoryIsAnErrorNotACrash() {
        try (NativeAllocator a = NativeAllocator.builder().debug(DebugMode.OFF).build()) {
            assertThatThrownBy(() -> a.allocateUninitialized(Long.MAX_VALUE / 2)).isInstanceOf(OutOfMemoryError.class)
                    .hasMessageContaining("could not allocate");
            assertThat(a.allocatedBytes()).isZero();
        }
    }
}
