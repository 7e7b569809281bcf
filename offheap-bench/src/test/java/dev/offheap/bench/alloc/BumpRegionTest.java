package dev.offheap.bench.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

class BumpRegionTest {
    @Test
    void slicesAreAlignedAndStartOverWhenFull() {
        try (Arena arena = Arena.ofConfined()) {
            BumpRegion region = new BumpRegion(arena.allocate(100, 16));
            assertThat(region.allocate(10).address() - region.allocate(0).address()).isEqualTo(-16);
            assertThat(region.offset()).isEqualTo(16);
            var second = region.allocate(60);
            assertThat(second.byteSize()).isEqualTo(60);
            assertThat(region.offset()).isEqualTo(76);
            var third = region.allocate(20); // 80 + 20 = 100 fits exactly
            assertThat(third.address() % 16).isZero();
            assertThat(region.offset()).isEqualTo(100);
            var wrapped = region.allocate(1); // 112 > 100: back to the start
            assertThat(region.offset()).isEqualTo(1);
            assertThat(wrapped.address()).isEqualTo(third.address() - 80);
        }
    }

    @Test
    void sizesOutsideTheRegionAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            BumpRegion region = new BumpRegion(arena.allocate(64));
            assertThatThrownBy(() -> region.allocate(65)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("65 bytes from a region of 64");
            assertThatThrownBy(() -> region.allocate(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(region.allocate(64).byteSize()).isEqualTo(64);
        }
    }
}
