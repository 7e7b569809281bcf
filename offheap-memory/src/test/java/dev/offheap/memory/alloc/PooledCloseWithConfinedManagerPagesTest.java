package dev.offheap.memory.alloc;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link PooledAllocator#close()} promises for blocks in pages of a {@link PageAccess#CONFINED} memory
 * manager: the JDK lets only the page's own thread close its scope, so a close from another thread while that
 * thread lives cannot make the block inaccessible. Its javadoc said every segment becomes inaccessible; it now
 * says which stay usable, to which thread and until when, and this test holds it to that.
 */
class PooledCloseWithConfinedManagerPagesTest {

    @Test
    void aBlockOfALiveThreadsConfinedPageStaysUsableByThatThreadOnlyUntilItEnds() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().totalSize(4L << 20).pageSize(256 * 1024)
                .pageAccess(PageAccess.CONFINED).registerMBean(false).build()) {
            PooledAllocator allocator = PooledAllocator.builder().memoryManager(mm).idleRelease(Duration.ZERO)
                    .capacity(64L << 20).build();
            CountDownLatch allocated = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            AtomicReference<MemorySegment> block = new AtomicReference<>();
            CompletableFuture<Long> readAfterClose = new CompletableFuture<>();
            Thread owner = Thread.ofPlatform().start(() -> {
                MemorySegment segment = allocator.allocate(128 * 1024);
                segment.set(ValueLayout.JAVA_LONG, 0, 42L);
                block.set(segment);
                allocated.countDown();
                try {
                    closed.await();
                    readAfterClose.complete(segment.get(ValueLayout.JAVA_LONG, 0));
                } catch (Throwable t) {
                    readAfterClose.completeExceptionally(t);
                }
            });
            assertThat(allocated.await(10, TimeUnit.SECONDS)).isTrue();
            allocator.close();
            closed.countDown();

            assertThat(readAfterClose.get(10, TimeUnit.SECONDS)).as("the owning thread still reads its block")
                    .isEqualTo(42L);
            assertThatThrownBy(() -> block.get().get(ValueLayout.JAVA_LONG, 0)).as("any other thread")
                    .isInstanceOf(WrongThreadException.class);
            owner.join();
            assertThat(mm.usageByOwner()).as("the allocator holds nothing after close").isEmpty();
        }
    }
}
