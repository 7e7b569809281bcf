package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every tracked allocation records its site as a {@link Throwable}, whose stack trace the JVM turns into
 * {@link StackTraceElement}s when asked, and then keeps in the Throwable. A report asked every tracked
 * allocation for its stack: from then on each live allocation held its own copy of its whole stack (all
 * frames, not the 24 a report shows), though most share a site with thousands of others. With a million
 * live {@link DebugMode#FULL} allocations of one site, 90 frames deep, the first report kept 4.3 GB more heap
 * for as long as they lived, and took 48 s. A report now turns each allocation's site into elements once and
 * keeps one stack per site, which the allocations of that site share from then on; a later report only
 * counts them.
 */
class AReportKeepsOneStackPerAllocationSiteTest {

    @Test
    void allocationsOfOneSiteShareOneStackOnceReported() {
        AllocationTracker tracker = new AllocationTracker("t", DebugMode.FULL);
        for (int i = 0; i < 1000; i++) {
            tracker.track(4096 + 64L * i, 48, null);
        }
        List<AllocationReport.Leak> leaks = tracker.leaks();
        assertThat(leaks).hasSize(1);
        assertThat(leaks.getFirst().count()).isEqualTo(1000);
        assertThat(leaks.getFirst().bytes()).isEqualTo(48_000);

        StackTraceElement[] shared = tracker.liveAt(4096).stack();
        assertThat(shared[0].getMethodName()).isEqualTo("allocationsOfOneSiteShareOneStackOnceReported");
        for (int i = 1; i < 1000; i++) {
            assertThat(tracker.liveAt(4096 + 64L * i).stack()).as("allocation %d's stack", i).isSameAs(shared);
        }
        // a later report finds the same site, and lists the same stack
        List<AllocationReport.Leak> again = tracker.leaks();
        assertThat(again).hasSize(1);
        assertThat(again.getFirst().stack()).isSameAs(leaks.getFirst().stack());
        assertThat(again.getFirst().count()).isEqualTo(1000);
        // allocations tracked since join the site's group, and its stack
        tracker.track(1 << 20, 16, null);
        List<AllocationReport.Leak> third = tracker.leaks();
        assertThat(third).hasSize(2);
        assertThat(third.getFirst().count()).isEqualTo(1000);
        assertThat(third.getLast().count()).isEqualTo(1);
    }

    @Test
    void threadsOfOneSiteShareTheStackOfTheirGroups() {
        AllocationTracker tracker = new AllocationTracker("t", DebugMode.FULL);
        Thread self = Thread.currentThread();
        String name = self.getName();
        try {
            for (int i = 0; i < 100; i++) {
                self.setName("worker-" + (i % 4));
                tracker.track(4096 + 64L * i, 48, null);
            }
        } finally {
            self.setName(name);
        }
        List<AllocationReport.Leak> leaks = tracker.leaks();
        assertThat(leaks).hasSize(4);
        assertThat(leaks).extracting(AllocationReport.Leak::count).containsOnly(25L);
        assertThat(leaks).extracting(AllocationReport.Leak::thread)
                .containsExactlyInAnyOrder("worker-0", "worker-1", "worker-2", "worker-3");
        for (AllocationReport.Leak leak : leaks) {
            assertThat(leak.stack()).isSameAs(leaks.getFirst().stack());
        }
    }

    @Test
    void aPooledAllocatorsReportsListOneStackPerSite() {
        try (PooledAllocator allocator = PooledAllocator.builder().debug(DebugMode.FULL).registerMBean(false).build()) {
            List<MemorySegment> segments = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                segments.add(allocator.allocate(32));
            }
            AllocationReport first = allocator.report();
            AllocationReport second = allocator.report();
            assertThat(first.leaks()).hasSize(1);
            assertThat(second.leaks()).hasSize(1);
            assertThat(second.leaks().getFirst().count()).isEqualTo(200);
            assertThat(second.leaks().getFirst().bytes()).isEqualTo(200 * 32);
            assertThat(second.leaks().getFirst().stack()).isSameAs(first.leaks().getFirst().stack());
            segments.forEach(allocator::free);
            assertThat(allocator.report().leaks()).isEmpty();
        }
    }
}
