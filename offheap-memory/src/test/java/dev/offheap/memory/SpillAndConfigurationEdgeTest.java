package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spill callbacks that misbehave or change the owners while a spill runs, and requests no spill can
 * meet. Each test failed on the code before its fix.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpillAndConfigurationEdgeTest {
    private static final int PAGE = 4096;

    private static MemoryManager newManager(int pages) {
        return MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
                .pageSize(PAGE).totalSize((long) pages * PAGE).build();
    }

    /** Throws {@code t} without declaring it: what a Kotlin or Scala callback does with an IOException. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    /**
     * "An exception it throws is logged and treated as nothing freed" (SpillCallback): a checked exception
     * (an IOException while writing a spill file, thrown by a callback written in a language without checked
     * exceptions) came out of allocatePages as is, past its catch of RuntimeException and Error, and the free
     * pages the request had already taken from the thread's cache were lost for good: the budget kept them
     * counted, nobody held them, and no later request could have them.
     */
    @Test
    void aCheckedExceptionFromASpillCallbackCountsAsNothingFreedAndLosesNoPage() {
        try (MemoryManager mm = newManager(16)) {
            mm.allocatePages("c", 6);
            List<String> asked = new CopyOnWriteArrayList<>();
            mm.registerSpillCallback("c", (m, bytes) -> {
                asked.add("c");
                throw sneakyThrow(new IOException("spill file: no space left on device"));
            });
            // the thread's page cache holds free pages now: the request below takes them before it spills
            mm.release(mm.allocatePage("a"));
            assertThatThrownBy(() -> mm.allocatePages("b", 12)).isInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("spill callbacks asked: c (gave back 0 B)");
            assertThat(asked).containsExactly("c");
            assertThat(mm.spillCount()).isEqualTo(1);
            assertThat(mm.usedPages()).isEqualTo(6);
            assertThat(mm.usedBytes()).isEqualTo(6L * PAGE);
            assertThat(mm.freePages()).isEqualTo(10);
            // a reservation, a single page: the same
            assertThatThrownBy(() -> mm.reserve("b", 11L * PAGE)).isInstanceOf(BudgetExceededException.class);
            mm.registerSpillCallback("c", null);
            assertThat(mm.allocatePages("b", 10)).as("every free page can still be had").hasSize(10);
            mm.releaseAll("b");
            mm.releaseAll("c");
            assertThat(mm.usedBytes()).isZero();
            assertThat(mm.freePages()).as("nothing stays charged once every owner released").isEqualTo(16);
        }
    }

    /**
     * A callback removed with registerSpillCallback(owner, null) while a spill runs (here by the callback
     * asked before it) was still "asked": the spill read the removed callback again, called null, logged the
     * NullPointerException as the callback's failure, and counted a spill that invoked nothing.
     */
    @Test
    void aCallbackRemovedWhileASpillRunsIsNotAskedNorCounted() {
        try (MemoryManager mm = newManager(8)) {
            mm.allocatePages("big", 5);
            mm.allocatePages("small", 3);
            List<String> asked = new CopyOnWriteArrayList<>();
            mm.registerSpillCallback("big", (m, bytes) -> {
                asked.add("big");
                m.registerSpillCallback("small", null);
                return 0;
            });
            mm.registerSpillCallback("small", (m, bytes) -> {
                asked.add("small");
                return 0;
            });
            assertThatThrownBy(() -> mm.allocatePage("requester")).isInstanceOf(BudgetExceededException.class)
                    .hasMessageEndingWith("spill callbacks asked: big (gave back 0 B)");
            assertThat(asked).containsExactly("big");
            assertThat(mm.spillCount()).as("spill callbacks invoked").isEqualTo(1);
        }
    }

    /**
     * releaseAll "forgets its spill callback": an owner released while a spill runs (here by the callback
     * asked before it, which owns it) still had its callback called, after all its memory was gone and its
     * owner may have closed what the callback writes to.
     */
    @Test
    void anOwnerReleasedWhileASpillRunsHasItsCallbackForgotten() {
        try (MemoryManager mm = newManager(8)) {
            mm.allocatePages("parent", 4);
            mm.reserve("child", 3L * PAGE);
            mm.allocatePage("requester");
            List<String> asked = new CopyOnWriteArrayList<>();
            mm.registerSpillCallback("parent", (m, bytes) -> {
                asked.add("parent");
                m.releaseAll("child"); // gives back the child's reservation: enough for the request
                return 3L * PAGE;
            });
            mm.registerSpillCallback("child", (m, bytes) -> {
                asked.add("child");
                throw new IllegalStateException("child's spill file is closed");
            });
            // parent's callback frees too little for 4 pages: the spill goes on to the next candidate
            assertThatThrownBy(() -> mm.allocatePages("requester", 4)).isInstanceOf(BudgetExceededException.class);
            assertThat(asked).containsExactly("parent");
            assertThat(mm.spillCount()).isEqualTo(1);
            assertThat(mm.spilledBytes()).isZero(); // the parent's own use did not change
            assertThat(mm.usedBytes()).isEqualTo(5L * PAGE);
        }
    }

    /**
     * A reservation larger than the whole manager can never be granted, whatever the other owners give
     * back; allocatePages refuses such a request at once, but reserve asked every owner with a callback to
     * spill (drop its cache, write its data to disk) first, for nothing.
     */
    @Test
    void aReservationLargerThanTheManagerAsksNobodyToSpill() {
        try (MemoryManager mm = newManager(4)) {
            List<MemorySegment> cache = new CopyOnWriteArrayList<>(mm.allocatePages("cache", 2));
            mm.registerSpillCallback("cache", (m, bytes) -> {
                m.release(cache);
                cache.clear();
                return 2L * PAGE;
            });
            for (long bytes : new long[] {4L * PAGE + 1, Long.MAX_VALUE}) {
                assertThatThrownBy(() -> mm.reserve("index", bytes)).isInstanceOf(BudgetExceededException.class)
                        .hasMessageContaining("more than the manager has");
            }
            assertThat(cache).as("the cache kept its pages").hasSize(2);
            assertThat(mm.spillCount()).isZero();
            assertThat(mm.allocationFailures()).isEqualTo(2);
            assertThat(mm.usageByOwner()).containsEntry("cache", 2L * PAGE);
            mm.reserve("index", 2L * PAGE);
            assertThat(mm.usedBytes()).isEqualTo(4L * PAGE);
        }
    }
}
