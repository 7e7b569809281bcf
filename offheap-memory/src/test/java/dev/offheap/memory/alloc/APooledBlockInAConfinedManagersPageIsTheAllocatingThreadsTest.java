package dev.offheap.memory.alloc;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PooledAllocator's threading section said every segment is accessible from every thread; a block served by a
 * page of a CONFINED memory manager has the page's scope (as the memory-manager bullet says), so only the
 * allocating thread may access it, while any thread may free it. With SHARED pages every thread may access it.
 */
class APooledBlockInAConfinedManagersPageIsTheAllocatingThreadsTest {

    private static Object readOnAnotherThread(MemorySegment segment) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            return CompletableFuture.supplyAsync(() -> segment.get(ValueLayout.JAVA_LONG, 0), other).get();
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        } finally {
            other.shutdown();
        }
    }

    @Test
    void anotherThreadCannotAccessABlockInAConfinedPageButMayFreeIt() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().name("confined-pages").registerMBean(false)
                .totalSize(1 << 20).pageSize(256 << 10).build();
             PooledAllocator pool = PooledAllocator.builder().registerMBean(false).memoryManager(mm).build()) {
            MemorySegment block = pool.allocate(100 << 10);
            block.set(ValueLayout.JAVA_LONG, 0, 42L);
            assertThat(mm.usedPages()).isEqualTo(1);

            assertThatThrownBy(() -> readOnAnotherThread(block)).isInstanceOf(WrongThreadException.class);

            Executors.newVirtualThreadPerTaskExecutor().submit(() -> pool.free(block)).get();
            assertThat(pool.allocatedBytes()).isZero();
        }
    }

    @Test
    void anyThreadCanAccessABlockInASharedPage() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().name("shared-pages").registerMBean(false)
                .totalSize(1 << 20).pageSize(256 << 10).pageAccess(PageAccess.SHARED).build();
             PooledAllocator pool = PooledAllocator.builder().registerMBean(false).memoryManager(mm).build()) {
            MemorySegment block = pool.allocate(100 << 10);
            block.set(ValueLayout.JAVA_LONG, 0, 42L);

            assertThat(readOnAnotherThread(block)).isEqualTo(42L);
            pool.free(block);
        }
    }
}
