package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PooledAllocator} in FULL mode, as {@link StaleFreeInsideALaterAllocationIsADoubleFreeTest} has it for the
 * native allocator: a large segment freed twice, whose units a later, larger allocation took since, starting
 * below it, is a double free ({@link IllegalStateException}). It was refused as a slice of the later allocation
 * ({@link IllegalArgumentException}, "a slice of it?"), though FULL mode promises to detect every double free and
 * the stale segment's closed scope tells it from a slice. A slice of the later allocation is still a slice, and
 * the later allocation stays live.
 *
 * <p>The pool places the later allocation over the freed blocks by its own rules, without randomness, and with no
 * idle release running it keeps the freed units until then: the test asserts that it did (it skipped the case
 * when not, and could then pass without a check).
 */
class PooledStaleFreeInsideALaterAllocationTest {
    private static final long LARGE = 256 << 10;

    @Test
    void aStaleLargeSegmentInsideALaterAllocationIsADoubleFree() {
        try (PooledAllocator pool = PooledAllocator.builder().debug(DebugMode.FULL).capacity(64L << 20)
                .idleRelease(Duration.ZERO).build()) {
            MemorySegment[] freed = new MemorySegment[4];
            for (int i = 0; i < freed.length; i++) {
                freed[i] = pool.allocateUninitialized(LARGE);
            }
            for (MemorySegment f : freed) {
                pool.free(f);
            }
            MemorySegment later = pool.allocate(3 * LARGE);
            List<MemorySegment> inside = new ArrayList<>();
            for (MemorySegment f : freed) {
                if (f.address() > later.address() && f.address() < later.address() + later.byteSize()) {
                    inside.add(f);
                }
            }
            assertThat(inside).as("freed blocks the later allocation took past its start").isNotEmpty();
            later.set(ValueLayout.JAVA_LONG, 0, 42);

            MemorySegment stale = inside.getFirst();
            assertThatThrownBy(() -> pool.free(stale)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free").hasMessageContaining("0x" + Long.toHexString(later.address()));
            assertThat(pool.report().problems()).anyMatch(p -> p.contains("double free"));

            MemorySegment slice = later.asSlice(stale.address() - later.address(), LARGE);
            assertThatThrownBy(() -> pool.free(slice)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a slice of it?");

            assertThat(later.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
            assertThat(pool.allocatedBytes()).isEqualTo(3 * LARGE);
            pool.free(later);
            assertThat(pool.allocatedBytes()).isZero();
        }
    }
}
