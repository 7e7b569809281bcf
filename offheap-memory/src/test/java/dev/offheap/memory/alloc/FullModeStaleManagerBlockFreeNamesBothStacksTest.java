package dev.offheap.memory.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * FULL mode names both stack traces of a double free (DebugMode, docs/alloc.md), also for a block on a
 * memory manager's page whose page the manager has leased to a later allocation at the same address.
 */
class FullModeStaleManagerBlockFreeNamesBothStacksTest {
    @Test
    void aSecondFreeOfABlockOnAReleasedPageNamesItsAllocationAndFirstFree() {
        try (MemoryManager mm = MemoryManager.builder().totalSize(4 << 20).pageSize(256 * 1024)
                .pageAccess(PageAccess.SHARED).registerMBean(false).build();
             PooledAllocator a = PooledAllocator.builder().memoryManager(mm).debug(DebugMode.FULL)
                     .idleRelease(Duration.ZERO).build()) {
            MemorySegment first = a.allocate(100_000);
            a.free(first);
            MemorySegment second = a.allocate(100_000);
            assertThat(second.address()).as("the manager leased the same page again").isEqualTo(first.address());
            assertThatThrownBy(() -> a.free(first)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double free")
                    .hasMessageContaining("allocated by thread 'main' at")
                    .hasMessageContaining("first freed by thread 'main' at");
            assertThat(a.allocatedBytes()).as("the later allocation stays live").isEqualTo(100_000);
            a.free(second);
            assertThat(a.allocatedBytes()).isZero();
        }
    }
}
