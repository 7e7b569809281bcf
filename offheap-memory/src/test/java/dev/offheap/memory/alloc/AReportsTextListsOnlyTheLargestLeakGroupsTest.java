package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AllocationReport#toString()} listed every leak group with its stack trace. In
 * {@link DebugMode#FULL} a group is a (stack, thread) pair, so allocations of a thread pool whose threads
 * come and go (each with a name of its own) make a group each: a million of them made a text of 948 MB,
 * which close() logs and {@link AllocatorMXBean#report()} (and {@code offheap inspect --reports}) sends. The
 * text now lists the groups with the most bytes, at most {@link AllocationReport#MAX_LEAK_GROUPS_IN_TEXT},
 * and says in one line how many groups, allocations and bytes it leaves out; the record keeps them all.
 */
class AReportsTextListsOnlyTheLargestLeakGroupsTest {
    private static final Pattern GROUP = Pattern.compile("(?m)^  (\\d+) allocations, (\\d+) bytes, thread '([^']*)'$");

    @Test
    void theTextListsTheLargestGroupsAndSaysWhatItLeavesOut() {
        List<AllocationReport.Leak> leaks = new ArrayList<>();
        StackTraceElement[] stack = new Throwable().getStackTrace();
        long bytes = 0;
        for (int i = 1000; i >= 1; i--) { // most bytes first, as the allocators give them
            leaks.add(new AllocationReport.Leak("worker-" + i, List.of(stack), 1, i));
            bytes += i;
        }
        AllocationReport report = new AllocationReport("many-groups", DebugMode.FULL, bytes, bytes, 1000, leaks, List.of());
        String text = report.toString();

        List<Long> listed = new ArrayList<>();
        Matcher m = GROUP.matcher(text);
        while (m.find()) {
            listed.add(Long.parseLong(m.group(2)));
        }
        assertThat(listed).as("the groups listed").hasSize(100);
        assertThat(listed.getFirst()).isEqualTo(1000);
        assertThat(listed.getLast()).isEqualTo(901);
        long leftOut = bytes - (1000 + 901) * 100 / 2;
        assertThat(text).contains("900 more groups (900 allocations, " + leftOut + " bytes) left out");
        assertThat(text).doesNotContain("thread 'worker-900'");
        // the record keeps every group and the exact totals
        assertThat(report.leaks()).hasSize(1000);
        assertThat(report.trackedLeakBytes()).isEqualTo(bytes);
        assertThat(text).startsWith("allocator 'many-groups' (debug full): 1000 live allocations, " + bytes + " bytes allocated");
    }

    @Test
    void aFewGroupsAreAllListed() {
        List<AllocationReport.Leak> leaks = new ArrayList<>();
        StackTraceElement[] stack = new Throwable().getStackTrace();
        for (int i = 100; i >= 1; i--) {
            leaks.add(new AllocationReport.Leak("worker-" + i, List.of(stack), 1, i));
        }
        String text = new AllocationReport("few-groups", DebugMode.FULL, 5050, 5050, 100, leaks, List.of()).toString();
        assertThat(GROUP.matcher(text).results().count()).isEqualTo(100);
        assertThat(text).doesNotContain("left out");
    }

    @Test
    void aFullModeAllocatorsReportOfManyThreadsListsTheLargestGroups() {
        try (NativeAllocator allocator = NativeAllocator.builder().debug(DebugMode.FULL).registerMBean(false).build()) {
            List<MemorySegment> segments = new ArrayList<>();
            Thread self = Thread.currentThread();
            String name = self.getName();
            try {
                for (int i = 0; i < 300; i++) {
                    self.setName("pool-thread-" + i);
                    segments.add(allocator.allocate(16 + i));
                }
            } finally {
                self.setName(name);
            }
            AllocationReport report = allocator.report();
            assertThat(report.leaks()).hasSize(300);
            assertThat(report.liveAllocations()).isEqualTo(300);
            String text = report.toString();
            List<String> threads = new ArrayList<>();
            Matcher m = GROUP.matcher(text);
            while (m.find()) {
                threads.add(m.group(3));
            }
            assertThat(threads).hasSize(100);
            assertThat(threads.getFirst()).isEqualTo("pool-thread-299"); // 315 bytes, the largest
            assertThat(threads).doesNotContain("pool-thread-199");
            long leftOutBytes = 0;
            for (int i = 0; i < 200; i++) {
                leftOutBytes += 16 + i;
            }
            assertThat(text).contains("200 more groups (200 allocations, " + leftOutBytes + " bytes) left out");
            segments.forEach(allocator::free);
        }
    }
}
