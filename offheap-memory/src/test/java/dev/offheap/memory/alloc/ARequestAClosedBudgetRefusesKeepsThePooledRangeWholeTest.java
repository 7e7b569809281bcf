package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pooled allocator's budget may be closed while the allocator is still open (a component's budget
 * closed before the allocator that draws from it). Each request that needed a fresh charge then took
 * its run of units out of the range, and the budget's IllegalStateException left the run out for good:
 * a few refusals later a range with nothing live in it refused every request as full.
 */
class ARequestAClosedBudgetRefusesKeepsThePooledRangeWholeTest {

    @Test
    void everyRefusalNamesTheClosedBudgetAndTheRangeKeepsItsUnits() {
        try (Budget process = Budget.root("process", 1L << 30)) {
            Budget component = process.child("component", 1L << 30);
            try (PooledAllocator a = PooledAllocator.builder().budget(component).capacity(1L << 20)
                    .idleRelease(Duration.ZERO).build()) {
                MemorySegment half = a.allocate(512 << 10);
                a.free(half);
                a.trim();
                assertThat(a.footprintBytes()).isZero();
                component.close();
                for (int i = 0; i < 4; i++) {
                    assertThatThrownBy(() -> a.allocate(512 << 10)).as("request %d", i)
                            .isInstanceOf(IllegalStateException.class).hasMessageContaining("component");
                }
                assertThat(a.allocatedBytes()).isZero();
                assertThat(a.footprintBytes()).isZero();
            }
            assertThat(process.used()).isZero();
        }
    }
}
