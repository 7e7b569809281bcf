package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two requests that fail at once ask the same owner to spill, each from its own thread. Each spill counted,
 * in {@link MemoryManager#spilledBytes()} and its Spill event, how much the owner's use fell between its
 * own before and after: with the two callbacks running at once, both drops fell in both windows, and the
 * bytes the owner gave back were counted twice (4 pages given back, 8 counted). Now the spills of one owner
 * share their measurements: a drop is counted by the first spill to measure it, once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConcurrentSpillsOfOneOwnerCountWhatItGaveBackOnceTest {
    private static final int PAGE = 4096;

    @Test
    void twoSpillsAtOnceCountTheBytesGivenBackOnce() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { })
                .pageAccess(PageAccess.SHARED).pageSize(PAGE).totalSize(8L * PAGE).build()) {
            List<MemorySegment> held = new ArrayList<>(mm.allocatePages("spiller", 8));
            CyclicBarrier bothAsked = new CyclicBarrier(2);
            CyclicBarrier bothGaveBack = new CyclicBarrier(2);
            mm.registerSpillCallback("spiller", (m, wanted) -> {
                try {
                    bothAsked.await(20, TimeUnit.SECONDS); // both callbacks run at once
                    List<MemorySegment> mine = new ArrayList<>();
                    synchronized (held) {
                        mine.add(held.removeLast());
                        mine.add(held.removeLast());
                    }
                    m.release(mine);
                    bothGaveBack.await(20, TimeUnit.SECONDS); // and neither measures before both gave back
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return 2L * PAGE;
            });

            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> requesters = new ArrayList<>();
            for (String owner : List.of("first", "second")) {
                requesters.add(Thread.ofPlatform().start(() -> {
                    try {
                        mm.release(mm.allocatePages(owner, 2));
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread requester : requesters) {
                requester.join(30_000);
            }
            assertThat(failure.get()).as("a request").isNull();
            assertThat(held).as("pages the callbacks released").hasSize(4);
            assertThat(mm.spillCount()).isEqualTo(2);
            assertThat(mm.spilledBytes()).as("bytes given back by the two spills").isEqualTo(4L * PAGE);
            assertThat(mm.allocationFailures()).isZero();
        }
    }
}
