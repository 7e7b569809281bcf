package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link MemoryManager#allocateGroup} and {@link SpillCallback} promise of a group request that must
 * spill: the callbacks run on the requesting thread, never the requester's own, and a group is all or
 * nothing; a callback can close another thread's group only if it is {@link PageAccess#SHARED}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpillingForAGroupTest {
    private static final int PAGE = 4096;

    private static MemoryManager manager(PageAccess access) {
        return MemoryManager.builder().registerMBean(false).leakReporter(s -> { }).pageAccess(access)
                .pageSize(PAGE).totalSize(4L * PAGE).build();
    }

    private static PageGroup groupOfAnotherThread(MemoryManager mm, String owner, int pages) throws Exception {
        return CompletableFuture.supplyAsync(() -> mm.allocateGroup(owner, pages), r -> Thread.ofPlatform().start(r))
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCallbackClosesASharedGroupOfAnotherThreadForTheRequest() throws Exception {
        try (MemoryManager mm = manager(PageAccess.SHARED)) {
            PageGroup cache = groupOfAnotherThread(mm, "cache", 3);
            mm.registerSpillCallback("cache", (m, wanted) -> {
                cache.close();
                return cache.byteSize();
            });
            PageGroup sorter = mm.allocateGroup("sorter", 4);
            assertThat(cache.isAlive()).isFalse();
            assertThat(sorter.size()).isEqualTo(4);
            assertThat(mm.spillCount()).isEqualTo(1);
            sorter.close();
            assertThat(mm.freePages()).isEqualTo(4);
        }
    }

    @Test
    void aCallbackCannotCloseAConfinedGroupOfAnotherLiveThreadAndTheRequestAllocatesNothing() throws Exception {
        Thread[] holder = new Thread[1];
        java.util.concurrent.CountDownLatch allocated = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        PageGroup[] cache = new PageGroup[1];
        try (MemoryManager mm = manager(PageAccess.CONFINED)) {
            holder[0] = Thread.ofPlatform().daemon().start(() -> {
                cache[0] = mm.allocateGroup("cache", 3);
                cache[0].page(0).fill((byte) 7);
                allocated.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                cache[0].close();
            });
            allocated.await();
            AtomicInteger calls = new AtomicInteger();
            mm.registerSpillCallback("cache", (m, wanted) -> {
                calls.incrementAndGet();
                cache[0].close(); // WrongThreadException: logged, nothing freed
                return 0;
            });
            assertThatThrownBy(() -> mm.allocateGroup("sorter", 2)).isInstanceOf(BudgetExceededException.class);
            assertThat(calls.get()).isPositive();
            assertThat(cache[0].isAlive()).isTrue();
            assertThat(mm.usedPages()).isEqualTo(3);
            assertThat(mm.freePages()).isEqualTo(1);
            assertThat(mm.usageByOwner().getOrDefault("sorter", 0L)).isZero();
            PageGroup one = mm.allocateGroup("sorter", 1);
            assertThat(one.page(0).get(ValueLayout.JAVA_BYTE, 0)).isNotNull();
            one.close();
            done.countDown();
            holder[0].join(10_000);
            assertThat(mm.freePages()).isEqualTo(4);
        }
    }

    @Test
    void theRequestersOwnCallbackIsNotAsked() {
        try (MemoryManager mm = manager(PageAccess.CONFINED)) {
            PageGroup mine = mm.allocateGroup("sorter", 3);
            AtomicInteger calls = new AtomicInteger();
            mm.registerSpillCallback("sorter", (m, wanted) -> {
                calls.incrementAndGet();
                mine.close();
                return mine.byteSize();
            });
            assertThatThrownBy(() -> mm.allocateGroup("sorter", 2)).isInstanceOf(BudgetExceededException.class);
            assertThat(calls.get()).isZero();
            assertThat(mine.isAlive()).isTrue();
            assertThat(mm.usedPages()).isEqualTo(3);
            mine.close();
        }
    }
}
