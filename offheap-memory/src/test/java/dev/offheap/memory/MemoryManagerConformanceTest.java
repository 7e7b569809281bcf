package dev.offheap.memory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every kind of {@link MemoryManager} (memory type x page access) must show. One subclass per
 * configuration says how to build it; tests that depend on revocation or confinement ask {@link #revocable()}
 * and {@link #confined()}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class MemoryManagerConformanceTest {
    static final int PAGE = 4096;
    private static final AtomicInteger NAMES = new AtomicInteger();

    @TempDir
    Path tempDir;

    final List<String> leaks = new CopyOnWriteArrayList<>();
    private final List<MemoryManager> managers = new ArrayList<>();

    /** Sets type, access and, for mapped memory, the file. */
    abstract MemoryManager.Builder configure(MemoryManager.Builder builder);

    /** Whether released pages are revoked (every access through a stale segment throws). False for heap. */
    boolean revocable() {
        return true;
    }

    /** Whether pages are confined to the allocating thread. */
    boolean confined() {
        return false;
    }

    MemoryManager newManager(int pages) {
        return newManager(pages, b -> { });
    }

    MemoryManager newManager(int pages, Consumer<MemoryManager.Builder> extra) {
        MemoryManager.Builder builder = MemoryManager.builder()
                .pageSize(PAGE)
                .totalSize((long) pages * PAGE)
                .name(getClass().getSimpleName() + "-" + NAMES.incrementAndGet())
                .registerMBean(false)
                .leakReporter(leaks::add);
        configure(builder);
        extra.accept(builder);
        MemoryManager manager = builder.build();
        managers.add(manager);
        return manager;
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(MemoryManager::close);
    }

    // ================================================================== allocation

    @Test
    void allocatePageAndAllocatePagesReturnPagesOfThePageSize() {
        MemoryManager mm = newManager(16);
        assertThat(mm.pageSize()).isEqualTo(PAGE);
        assertThat(mm.totalPages()).isEqualTo(16);
        assertThat(mm.totalBytes()).isEqualTo(16L * PAGE);
        MemorySegment one = mm.allocatePage("a");
        assertThat(one.byteSize()).isEqualTo(PAGE);
        List<MemorySegment> five = mm.allocatePages("a", 5);
        assertThat(five).hasSize(5).allSatisfy(p -> assertThat(p.byteSize()).isEqualTo(PAGE));
        assertThat(mm.allocatePages("b", 1)).hasSize(1);
        assertThat(mm.usedPages()).isEqualTo(7);
    }

    @Test
    void livePagesNeverOverlapAndKeepTheirContent() {
        MemoryManager mm = newManager(40);
        List<MemorySegment> pages = new ArrayList<>();
        pages.add(mm.allocatePage("a"));
        pages.addAll(mm.allocatePages("b", 7));
        pages.addAll(mm.allocatePages("a", 32));
        assertDistinct(pages);
        for (int i = 0; i < pages.size(); i++) {
            fill(pages.get(i), i);
        }
        for (int i = 0; i < pages.size(); i++) {
            assertFilled(pages.get(i), i);
        }
        assertThatThrownBy(() -> mm.allocatePage("c")).isInstanceOf(BudgetExceededException.class);
    }

    @Test
    void returnedListIsMutable() {
        MemoryManager mm = newManager(4);
        List<MemorySegment> pages = mm.allocatePages("a", 2);
        MemorySegment first = pages.removeFirst();
        assertThat(pages).hasSize(1);
        mm.release(first);
        mm.release(pages);
    }

    @Test
    void releaseReleaseOfACollectionAndReleaseAllGivePagesBack() {
        MemoryManager mm = newManager(16);
        MemorySegment single = mm.allocatePage("a");
        List<MemorySegment> batch = mm.allocatePages("a", 4);
        mm.allocatePages("b", 3);
        mm.reserve("b", 100);
        assertThat(mm.usedPages()).isEqualTo(8);

        mm.release(single);
        assertThat(mm.usedPages()).isEqualTo(7);
        assertThat(mm.usageByOwner()).containsEntry("a", 4L * PAGE);

        mm.release(batch);
        assertThat(mm.usedPages()).isEqualTo(3);
        assertThat(mm.usageByOwner().getOrDefault("a", 0L)).isZero();

        mm.releaseAll("b");
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.usageByOwner().getOrDefault("b", 0L)).isZero();
        assertThat(mm.freePages()).isEqualTo(16);
        mm.releaseAll("unknown"); // does nothing
        mm.release(List.of());
        assertThat(mm.allocatePages("c", 16)).hasSize(16);
    }

    @Test
    void releaseOfACollectionStopsAtTheFirstBadPage() {
        MemoryManager mm = newManager(8);
        List<MemorySegment> pages = mm.allocatePages("a", 3);
        MemorySegment released = pages.get(1);
        mm.release(released);
        assertThatThrownBy(() -> mm.release(pages)).isInstanceOf(IllegalStateException.class);
        assertThat(mm.usedPages()).as("the first released, the second refused, the third untouched").isEqualTo(1);
        mm.release(pages.get(2));
        assertThat(mm.usedPages()).isZero();
    }

    /**
     * More pages than a release batch and than a thread's cache, released in one call, all come back:
     * the next thread gets every one of them, each once. 4 KiB pages use the spread slot table,
     * 32 KiB pages the one with a cache line per slot.
     */
    @ParameterizedTest
    @ValueSource(ints = {4096, 32768})
    void manyPagesReleasedAtOnceAllComeBack(int pageSize) throws InterruptedException {
        int pages = 600;
        MemoryManager mm = newManager(pages, b -> b.pageSize(pageSize).totalSize((long) pages * pageSize));
        List<MemorySegment> all = mm.allocatePages("a", pages);
        assertThat(distinctAddresses(all)).isEqualTo(pages);
        for (int i = 0; i < pages; i++) {
            all.get(i).set(ValueLayout.JAVA_INT_UNALIGNED, pageSize - Integer.BYTES, i);
        }
        mm.release(all);
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(pages);
        if (revocable()) {
            assertThatThrownBy(() -> all.getLast().get(ValueLayout.JAVA_INT, 0)).isInstanceOf(IllegalStateException.class);
        }
        AtomicInteger distinct = new AtomicInteger();
        assertThat(inOtherThread(() -> {
            List<MemorySegment> again = mm.allocatePages("b", pages);
            distinct.set(distinctAddresses(again));
            mm.release(again.subList(0, pages / 2));
            mm.release(again.subList(pages / 2, pages));
        })).isNull();
        assertThat(distinct.get()).isEqualTo(pages);
        assertThat(mm.usedPages()).isZero();
        // this thread's cache and the pool together still hold every page
        assertThat(mm.allocatePages("c", pages)).hasSize(pages);
        assertThat(mm.usedBytes()).isEqualTo(mm.totalBytes());
    }

    /** Distinct pages by where they are: the address of a native page, the array of a heap page. */
    private static int distinctAddresses(List<MemorySegment> pages) {
        Set<Object> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<Long> addresses = new java.util.HashSet<>();
        for (MemorySegment page : pages) {
            page.heapBase().ifPresentOrElse(arrays::add, () -> addresses.add(page.address()));
        }
        return arrays.size() + addresses.size();
    }

    @Test
    void accountingIsExactAfterEveryStep() {
        MemoryManager mm = newManager(32);
        int held = 0;
        long reserved = 0;
        long maxUse = 0;
        List<MemorySegment> a = new ArrayList<>();
        List<MemorySegment> b = new ArrayList<>();
        checkAccounting(mm, held, reserved, maxUse, Map.of());

        a.add(mm.allocatePage("a"));
        held++;
        maxUse = Math.max(maxUse, (long) held * PAGE + reserved);
        checkAccounting(mm, held, reserved, maxUse, Map.of("a", (long) PAGE));

        a.addAll(mm.allocatePages("a", 5));
        b.addAll(mm.allocatePages("b", 10));
        held += 15;
        maxUse = Math.max(maxUse, (long) held * PAGE + reserved);
        checkAccounting(mm, held, reserved, maxUse, Map.of("a", 6L * PAGE, "b", 10L * PAGE));

        mm.reserve("c", 3 * PAGE + 10);
        reserved += 3 * PAGE + 10;
        maxUse = Math.max(maxUse, (long) held * PAGE + reserved);
        checkAccounting(mm, held, reserved, maxUse, Map.of("a", 6L * PAGE, "b", 10L * PAGE, "c", 3L * PAGE + 10));
        assertThat(List.copyOf(mm.usageByOwner().keySet())).as("largest first").containsExactly("b", "a", "c");

        mm.release(a.removeLast());
        mm.release(List.of(a.removeLast(), a.removeLast()));
        held -= 3;
        checkAccounting(mm, held, reserved, maxUse, Map.of("a", 3L * PAGE, "b", 10L * PAGE, "c", 3L * PAGE + 10));

        mm.releaseReservation("c", 10);
        reserved -= 10;
        checkAccounting(mm, held, reserved, maxUse, Map.of("a", 3L * PAGE, "b", 10L * PAGE, "c", 3L * PAGE));

        mm.releaseAll("b");
        held -= 10;
        checkAccounting(mm, held, reserved, maxUse, Map.of("a", 3L * PAGE, "c", 3L * PAGE));

        mm.releaseAll("a");
        mm.releaseAll("c");
        checkAccounting(mm, 0, 0, maxUse, Map.of());
        assertThat(mm.allocationFailures()).isZero();
        assertThat(mm.spillCount()).isZero();
        assertThat(mm.quarantinedPages()).isZero();
    }

    /**
     * usedPages and freePages are exact; usedBytes counts the pages and reservations plus at most one
     * per-thread cache of free pages (documented), and peak is at least the highest use.
     */
    void checkAccounting(MemoryManager mm, int heldPages, long reservedBytes, long maxUse, Map<String, Long> byOwner) {
        long exact = (long) heldPages * PAGE + reservedBytes;
        assertThat(mm.usedPages()).as("usedPages").isEqualTo(heldPages);
        assertThat(mm.freePages()).as("freePages").isEqualTo(mm.totalPages() - heldPages - (int) ((reservedBytes + PAGE - 1) / PAGE));
        assertThat(mm.usedBytes()).as("usedBytes").isBetween(exact, exact + 16L * PAGE);
        assertThat(mm.peakUsedBytes()).as("peak").isGreaterThanOrEqualTo(maxUse).isLessThanOrEqualTo(mm.totalBytes());
        Map<String, Long> nonZero = new java.util.HashMap<>(mm.usageByOwner());
        nonZero.values().removeIf(v -> v == 0);
        assertThat(nonZero).as("usageByOwner").isEqualTo(byOwner);
    }

    @Test
    void releasedPagesArePooledAndReused() {
        MemoryManager mm = newManager(8);
        MemorySegment page = mm.allocatePage("a");
        long address = page.address();
        Object base = page.heapBase().orElse(null);
        mm.release(page);
        MemorySegment again = mm.allocatePage("b");
        if (revocable()) {
            assertThat(again.address()).as("the same memory comes back").isEqualTo(address);
        } else {
            assertThat(again.heapBase().orElseThrow()).as("a released heap array is never handed out again").isNotSameAs(base);
        }
        // cycling many times through one page never needs more memory than one page
        for (int i = 0; i < 1000; i++) {
            mm.release(mm.allocatePage("c"));
        }
        assertThat(mm.usedPages()).isEqualTo(1);
        assertThat(mm.allocatePages("d", 7)).hasSize(7);
    }

    @Test
    void allocatedMemoryGrowsOnlyAsNeeded() {
        MemoryManager mm = newManager(8);
        assertThat(mm.allocatedBytes()).isLessThanOrEqualTo(mm.totalBytes());
        mm.allocatePages("a", 8);
        assertThat(mm.allocatedBytes()).isEqualTo(revocable() ? mm.totalBytes() : 0);
    }

    // ================================================================== reservations

    @Test
    void reservationsShareTheLimitWithPages() {
        MemoryManager mm = newManager(8);
        mm.reserve("index", 3L * PAGE + 1);
        assertThat(mm.freePages()).isEqualTo(4);
        assertThatThrownBy(() -> mm.allocatePages("a", 5)).isInstanceOf(BudgetExceededException.class);
        List<MemorySegment> pages = mm.allocatePages("a", 4);
        assertThatThrownBy(() -> mm.reserve("index", PAGE)).isInstanceOf(BudgetExceededException.class)
                .hasMessageContaining("index");
        mm.reserve("index", PAGE - 1);
        assertThat(mm.usedBytes()).isEqualTo(8L * PAGE);
        mm.release(pages);
        mm.releaseReservation("index", 4L * PAGE);
        assertThat(mm.usageByOwner().getOrDefault("index", 0L)).isZero();
        assertThat(mm.freePages()).isEqualTo(8);
        mm.reserve("x", 0);
        mm.releaseReservation("x", 0);
    }

    @Test
    void releasingMoreReservedBytesThanHeldThrowsAndChangesNothing() {
        MemoryManager mm = newManager(8);
        mm.reserve("a", 100);
        assertThatThrownBy(() -> mm.releaseReservation("a", 101)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("101").hasMessageContaining("100");
        assertThatThrownBy(() -> mm.releaseReservation("nobody", 1)).isInstanceOf(IllegalStateException.class);
        assertThat(mm.usageByOwner()).containsEntry("a", 100L);
        assertThat(mm.usedBytes()).isEqualTo(100);
        assertThatThrownBy(() -> mm.reserve("a", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.releaseReservation("a", -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(mm.usedBytes()).isEqualTo(100);
        mm.releaseAll("a");
        assertThat(mm.usedBytes()).isZero();
    }

    // ================================================================== failure: all or nothing

    @Test
    void requestForMorePagesThanFreeThrowsANamedErrorAndChangesNothing() {
        MemoryManager mm = newManager(10);
        mm.allocatePages("sorter", 5);
        mm.allocatePages("hash-table", 3);
        mm.reserve("index", 10);
        mm.allocatePage("joiner");
        Map<String, Long> usageBefore = mm.usageByOwner();
        int freeBefore = mm.freePages();
        assertThat(freeBefore).isZero();

        BudgetExceededException e = catchExceeded(() -> mm.allocatePages("joiner", 2));
        assertThat(e.budgetPath()).isEqualTo(mm.name());
        assertThat(e.requestedBytes()).isEqualTo(2L * PAGE);
        assertThat(e.limitBytes()).isEqualTo(10L * PAGE);
        assertThat(e.usedBytes()).isEqualTo(9L * PAGE + 10);
        assertThat(e.getMessage())
                .contains("'" + mm.name() + "'")
                .contains("owner 'joiner'")
                .contains("2 pages")
                .contains("limit 40.0 KiB")
                .contains("used 36.0 KiB")
                .contains("sorter 20.0 KiB")
                .contains("hash-table 12.0 KiB");
        assertThat(e.getMessage().indexOf("sorter")).isLessThan(e.getMessage().indexOf("hash-table"));
        assertThat(mm.usageByOwner()).isEqualTo(usageBefore);
        assertThat(mm.usedPages()).isEqualTo(9);
        assertThat(mm.freePages()).isEqualTo(freeBefore);
        assertThat(mm.allocationFailures()).isEqualTo(1);

        // with some pages free, a request for more than are free is refused whole
        mm.releaseAll("sorter");
        assertThat(mm.freePages()).isEqualTo(5);
        assertThatThrownBy(() -> mm.allocatePages("joiner", 6)).isInstanceOf(BudgetExceededException.class);
        assertThat(mm.usedPages()).isEqualTo(4);
        assertThat(mm.freePages()).isEqualTo(5);
        assertThat(mm.usageByOwner().get("joiner")).isEqualTo((long) PAGE);
        assertThat(mm.allocatePages("joiner", 5)).hasSize(5);
        assertThat(mm.allocationFailures()).isEqualTo(2);
    }

    @Test
    void failureAfterTakingPagesFromTheThreadCacheReturnsThem() {
        MemoryManager mm = newManager(32);
        // leave pages in this thread's cache, then ask for more than the rest of the manager has
        mm.release(mm.allocatePage("a"));
        mm.allocatePages("b", 20);
        int free = mm.freePages();
        assertThatThrownBy(() -> mm.allocatePages("a", free + 1)).isInstanceOf(BudgetExceededException.class);
        assertThat(mm.usedPages()).isEqualTo(20);
        assertThat(mm.freePages()).isEqualTo(free);
        List<MemorySegment> rest = mm.allocatePages("a", free);
        assertThat(rest).hasSize(free);
        assertThat(mm.usedBytes()).isEqualTo(mm.totalBytes());
    }

    @Test
    void hugePageCountIsRefusedWithBudgetExceeded() {
        MemoryManager mm = newManager(8);
        assertThatThrownBy(() -> mm.allocatePages("a", 9)).isInstanceOf(BudgetExceededException.class);
        assertThatThrownBy(() -> mm.allocatePages("a", 1 << 20)).isInstanceOf(BudgetExceededException.class);
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(8);
    }

    /** A count that no manager can hold is a budget failure, not an attempt to allocate a giant array first. */
    @Test
    void integerMaxValuePagesIsRefusedWithBudgetExceeded() {
        MemoryManager mm = newManager(8);
        assertThatThrownBy(() -> mm.allocatePages("a", Integer.MAX_VALUE)).isInstanceOf(BudgetExceededException.class);
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(8);
    }

    @Test
    void badArgumentsAreRejected() {
        MemoryManager mm = newManager(4);
        assertThatThrownBy(() -> mm.allocatePage(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.allocatePages(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.allocatePages("a", 0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        assertThatThrownBy(() -> mm.allocatePages("a", -3)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-3");
        assertThatThrownBy(() -> mm.release((MemorySegment) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.release((java.util.Collection<MemorySegment>) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.release(Collections.singletonList(null))).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.releaseAll(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.reserve(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.releaseReservation(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> mm.registerSpillCallback(null, (m, b) -> 0)).isInstanceOf(NullPointerException.class);
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.usedBytes()).isZero();
        assertThat(mm.usageByOwner().values()).allMatch(v -> v == 0);
    }

    // ================================================================== spilling

    @Test
    void spillAsksOtherOwnersLargestFirstButNeverTheRequester() {
        MemoryManager mm = newManager(10);
        mm.allocatePages("big", 5);
        mm.allocatePages("mid", 3);
        mm.allocatePage("small");
        mm.allocatePage("requester");
        List<String> asked = new CopyOnWriteArrayList<>();
        List<Long> wanted = new CopyOnWriteArrayList<>();
        for (String owner : List.of("small", "requester", "big", "mid")) {
            mm.registerSpillCallback(owner, (m, bytes) -> {
                assertThat(m).isSameAs(mm);
                asked.add(owner);
                wanted.add(bytes);
                return 0;
            });
        }
        BudgetExceededException e = catchExceeded(() -> mm.allocatePages("requester", 2));
        assertThat(asked).containsExactly("big", "mid", "small");
        assertThat(wanted.getFirst()).isEqualTo(2L * PAGE);
        assertThat(e.getMessage()).contains("spill callbacks asked").contains("big").contains("mid").contains("small");
        assertThat(mm.spillCount()).isEqualTo(3);
        assertThat(mm.spilledBytes()).isZero();
        assertThat(mm.allocationFailures()).isEqualTo(1);
        assertThat(mm.usedPages()).isEqualTo(10);

        // a removed callback is no longer asked
        mm.registerSpillCallback("big", null);
        asked.clear();
        assertThatThrownBy(() -> mm.allocatePage("requester")).isInstanceOf(BudgetExceededException.class);
        assertThat(asked).containsExactly("mid", "small");
    }

    @Test
    void allocationSucceedsAfterACallbackFreesMemory() {
        MemoryManager mm = newManager(10);
        mm.allocatePages("big", 5);
        List<MemorySegment> midPages = mm.allocatePages("mid", 3);
        mm.allocatePages("small", 2);
        List<String> asked = new CopyOnWriteArrayList<>();
        mm.registerSpillCallback("big", (m, bytes) -> {
            asked.add("big");
            return 0;
        });
        mm.registerSpillCallback("mid", (m, bytes) -> {
            asked.add("mid");
            m.release(midPages.removeLast());
            m.release(midPages.removeLast());
            return 2L * PAGE;
        });
        mm.registerSpillCallback("small", (m, bytes) -> {
            asked.add("small");
            return 0;
        });
        List<MemorySegment> got = mm.allocatePages("requester", 2);
        assertThat(got).hasSize(2);
        assertThat(asked).containsExactly("big", "mid");
        assertThat(mm.spillCount()).isEqualTo(2);
        assertThat(mm.spilledBytes()).isEqualTo(2L * PAGE);
        assertThat(mm.allocationFailures()).isZero();
        assertThat(mm.usageByOwner()).containsEntry("mid", (long) PAGE).containsEntry("requester", 2L * PAGE);
        assertThat(mm.usedPages()).isEqualTo(10);
    }

    @Test
    void aSpillCallbackThatThrowsAnErrorLeavesNoPageTakenByTheFailedRequest() {
        MemoryManager mm = newManager(16);
        mm.allocatePages("c", 6);
        mm.registerSpillCallback("c", (m, bytes) -> {
            throw new AssertionError("spill failed");
        });
        // the thread's page cache holds free pages now: the request below takes them before it spills
        mm.release(mm.allocatePage("a"));
        assertThatThrownBy(() -> mm.allocatePages("b", 12)).isInstanceOf(AssertionError.class);
        assertThat(mm.usedPages()).isEqualTo(6);
        assertThat(mm.usedBytes()).isEqualTo(6L * PAGE);
        assertThat(mm.freePages()).isEqualTo(10);
        mm.registerSpillCallback("c", null);
        assertThat(mm.allocatePages("b", 10)).as("every free page can still be had").hasSize(10);
    }

    @Test
    void aLeakReporterThatThrowsStillLeavesTheManagerClosedAndItsBudgetReturned() {
        Budget parent = Budget.root("parent", 1 << 20, report -> { });
        MemoryManager mm = newManager(16, b -> b.parentBudget(parent).leakReporter(report -> {
            throw new AssertionError("leak: " + report);
        }));
        assertThat(parent.used()).isEqualTo(16L * PAGE);
        mm.allocatePage("leaker");
        assertThatThrownBy(mm::close).isInstanceOf(AssertionError.class).hasMessageContaining("leaker");
        assertThat(mm.isClosed()).isTrue();
        assertThat(parent.used()).isZero();
        parent.close();
    }

    @Test
    void reservationTriggersSpillingToo() {
        MemoryManager mm = newManager(4);
        List<MemorySegment> cache = mm.allocatePages("cache", 4);
        mm.registerSpillCallback("cache", (m, bytes) -> {
            m.release(cache.removeLast());
            return PAGE;
        });
        mm.reserve("index", 100);
        assertThat(mm.spillCount()).isEqualTo(1);
        assertThat(mm.spilledBytes()).isEqualTo(PAGE);
        assertThat(mm.usageByOwner()).containsEntry("index", 100L).containsEntry("cache", 3L * PAGE);
    }

    @Test
    void throwingCallbackCountsAsNothingFreedAndTheNextOwnerIsAsked() {
        MemoryManager mm = newManager(10);
        mm.allocatePages("big", 6);
        List<MemorySegment> mid = mm.allocatePages("mid", 4);
        List<String> asked = new CopyOnWriteArrayList<>();
        mm.registerSpillCallback("big", (m, bytes) -> {
            asked.add("big");
            throw new IllegalStateException("cannot spill now");
        });
        mm.registerSpillCallback("mid", (m, bytes) -> {
            asked.add("mid");
            m.release(mid.removeLast());
            return PAGE;
        });
        MemorySegment page = mm.allocatePage("requester");
        assertThat(page.byteSize()).isEqualTo(PAGE);
        assertThat(asked).containsExactly("big", "mid");
        assertThat(mm.spillCount()).isEqualTo(2);
        assertThat(mm.spilledBytes()).isEqualTo(PAGE);
        assertThat(mm.usageByOwner()).containsEntry("big", 6L * PAGE);

        // with only the throwing callback, the request fails cleanly
        mm.registerSpillCallback("mid", null);
        assertThatThrownBy(() -> mm.allocatePage("requester")).isInstanceOf(BudgetExceededException.class);
        assertThat(mm.usedPages()).isEqualTo(10);
    }

    // ================================================================== safety

    @Test
    void everyAccessThroughAReleasedPageOrASliceOfItThrows() {
        org.junit.jupiter.api.Assumptions.assumeTrue(revocable(), "heap segments cannot be revoked");
        MemoryManager mm = newManager(4);
        MemorySegment page = mm.allocatePage("a");
        MemorySegment slice = page.asSlice(128, 64);
        page.set(ValueLayout.JAVA_LONG, 0, 42L);
        mm.release(page);
        assertRevoked(page);
        assertRevoked(slice);
        assertThat(page.scope().isAlive()).isFalse();
    }

    @Test
    void staleSegmentNeverReachesTheNextOwnersBytes() {
        MemoryManager mm = newManager(1);
        MemorySegment stale = mm.allocatePage("first");
        MemorySegment staleSlice = stale.asSlice(PAGE / 2);
        stale.fill((byte) 1);
        mm.release(stale);
        MemorySegment next = mm.allocatePage("second");
        if (revocable()) {
            assertThat(next.address()).as("the same page is reused").isEqualTo(stale.address());
        }
        next.fill((byte) 2);
        if (revocable()) {
            assertRevoked(stale);
            assertRevoked(staleSlice);
        } else {
            // a heap page keeps working on its own dead array
            stale.fill((byte) 3);
            staleSlice.fill((byte) 4);
            assertThat(stale.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 3);
        }
        assertFilled(next, 2);
    }

    @Test
    void doubleReleaseThrowsAndNeverPoolsThePageTwice() {
        MemoryManager mm = newManager(8);
        MemorySegment page = mm.allocatePage("a");
        mm.allocatePages("b", 2);
        mm.release(page);
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        assertThatThrownBy(() -> mm.release(List.of(page))).isInstanceOf(IllegalStateException.class);
        assertThat(mm.usedPages()).isEqualTo(2);
        assertThat(mm.freePages()).isEqualTo(6);

        // the page was reused by another owner: the stale segment still cannot release it
        List<MemorySegment> all = new ArrayList<>(mm.allocatePages("c", 6));
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalStateException.class);
        assertThat(mm.usedPages()).isEqualTo(8);
        assertThatThrownBy(() -> mm.allocatePage("d")).isInstanceOf(BudgetExceededException.class);
        mm.releaseAll("b");
        all.addAll(mm.allocatePages("c", 2));
        assertDistinct(all);
        for (int i = 0; i < all.size(); i++) {
            fill(all.get(i), i + 10);
        }
        for (int i = 0; i < all.size(); i++) {
            assertFilled(all.get(i), i + 10);
        }
    }

    @Test
    void releaseAllThenReleaseOfAPageThrowsAsDoubleRelease() {
        MemoryManager mm = newManager(4);
        MemorySegment page = mm.allocatePage("a");
        mm.releaseAll("a");
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalStateException.class);
        assertThat(mm.freePages()).isEqualTo(4);
        List<MemorySegment> all = mm.allocatePages("b", 4);
        assertDistinct(all);
    }

    @Test
    void pagesOfAnotherManagerSlicesAndArbitrarySegmentsAreRejected() {
        MemoryManager mm = newManager(8);
        MemoryManager other = newManager(8);
        MemorySegment mine = mm.allocatePage("a");
        MemorySegment theirs = other.allocatePage("a");
        assertThatThrownBy(() -> mm.release(theirs)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(mm.name());
        assertThatThrownBy(() -> mm.release(mine.asSlice(8, 64))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.release(mine.asSlice(PAGE / 2))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.release(mine.asSlice(0, PAGE / 2))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.release(MemorySegment.ofArray(new byte[PAGE]))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.release(MemorySegment.ofArray(new long[PAGE / 8]))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.release(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment arbitrary = arena.allocate(PAGE, PAGE);
            assertThatThrownBy(() -> mm.release(arbitrary)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> mm.release(List.of(theirs))).isInstanceOf(IllegalArgumentException.class);
        assertThat(mm.usedPages()).isEqualTo(1);
        assertThat(other.usedPages()).isEqualTo(1);
        theirs.set(ValueLayout.JAVA_INT_UNALIGNED, 0, 7);
        assertThat(theirs.get(ValueLayout.JAVA_INT_UNALIGNED, 0)).isEqualTo(7);
        mm.release(mine);
        other.release(theirs);
        assertThat(mm.usedPages()).isZero();
        assertThat(other.usedPages()).isZero();
    }

    // ================================================================== close

    @Test
    void closeRevokesPagesReportsOwnersAndRefusesFurtherAllocation() {
        MemoryManager mm = newManager(8);
        MemorySegment page = mm.allocatePage("leaky-sorter");
        MemorySegment slice = page.asSlice(16, 16);
        mm.allocatePages("leaky-cache", 2);
        mm.reserve("leaky-index", 1234);
        List<MemorySegment> returned = mm.allocatePages("tidy", 2);
        mm.release(returned);
        mm.close();
        assertThat(mm.isClosed()).isTrue();
        if (revocable()) {
            assertRevoked(page);
            assertRevoked(slice);
        }
        assertThat(leaks).hasSize(1);
        assertThat(leaks.getFirst()).contains(mm.name()).contains("leaky-sorter").contains("1 pages")
                .contains("leaky-cache").contains("2 pages").contains("leaky-index").doesNotContain("tidy");

        assertThatThrownBy(() -> mm.allocatePage("a")).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> mm.allocatePages("a", 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> mm.reserve("a", 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> mm.registerSpillCallback("a", (m, b) -> 0)).isInstanceOf(IllegalStateException.class);
        assertThatCode(() -> mm.release(page)).doesNotThrowAnyException();
        assertThatCode(() -> mm.release(returned)).doesNotThrowAnyException();
        assertThatCode(() -> mm.releaseAll("leaky-cache")).doesNotThrowAnyException();
        assertThatCode(() -> mm.releaseReservation("leaky-index", 1234)).doesNotThrowAnyException();
        assertThatCode(mm::close).doesNotThrowAnyException();
        assertThat(leaks).hasSize(1);
        assertThat(mm.budget().isClosed()).isTrue();
    }

    @Test
    void closeOfATidyManagerReportsNothing() {
        MemoryManager mm = newManager(4);
        mm.release(mm.allocatePages("a", 3));
        mm.reserve("b", 5);
        mm.releaseAll("b");
        mm.close();
        assertThat(leaks).isEmpty();
    }

    @Test
    void toStringNamesTheManager() {
        MemoryManager mm = newManager(4);
        assertThat(mm.toString()).contains(mm.name()).contains(mm.type().name());
    }

    // ================================================================== threads

    @Test
    void confinedPagesCannotBeUsedOrReleasedFromAnotherThread() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(4);
        MemorySegment page = mm.allocatePage("a");
        page.set(ValueLayout.JAVA_INT, 0, 99);
        assertThat(inOtherThread(() -> page.get(ValueLayout.JAVA_INT, 0))).isInstanceOf(WrongThreadException.class);
        assertThat(inOtherThread(() -> mm.release(page))).isInstanceOf(WrongThreadException.class);
        assertThat(inOtherThread(() -> mm.release(List.of(page)))).isInstanceOf(WrongThreadException.class);
        assertThat(mm.usedPages()).isEqualTo(1);
        assertThat(page.get(ValueLayout.JAVA_INT, 0)).isEqualTo(99);
        mm.release(page);
        assertThat(mm.usedPages()).isZero();
        assertRevoked(page);
    }

    @Test
    void sharedPagesAreUsedAndReleasedFromAnyThread() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(!confined() && revocable());
        MemoryManager mm = newManager(4);
        MemorySegment page = mm.allocatePage("a");
        page.set(ValueLayout.JAVA_INT, 0, 99);
        AtomicInteger seen = new AtomicInteger();
        assertThat(inOtherThread(() -> seen.set(page.get(ValueLayout.JAVA_INT, 0)))).isNull();
        assertThat(seen.get()).isEqualTo(99);
        assertThat(inOtherThread(() -> mm.release(page))).isNull();
        assertThat(mm.usedPages()).isZero();
        assertRevoked(page);
        assertThat(inOtherThread(() -> page.get(ValueLayout.JAVA_INT, 0))).isInstanceOf(IllegalStateException.class);
        assertThat(mm.freePages()).isEqualTo(4);
        assertDistinct(mm.allocatePages("b", 4));
    }

    @Test
    void releaseAllFromAnotherThreadWhileTheAllocatingThreadLivesQuarantinesPages() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(8);
        java.util.concurrent.CountDownLatch allocated = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch mayEnd = new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<List<MemorySegment>> theirPages = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                List<MemorySegment> pages = mm.allocatePages("worker", 3);
                pages.forEach(p -> p.fill((byte) 7));
                theirPages.set(pages);
                allocated.countDown();
                mayEnd.await();
                // the pages were quarantined, not revoked: the thread still reaches only its own bytes
                for (MemorySegment p : pages) {
                    assertFilled(p, 7);
                }
            } catch (Throwable e) {
                failure.set(e);
                allocated.countDown();
            }
        });
        worker.start();
        allocated.await();
        assertThat(failure.get()).isNull();

        mm.releaseAll("worker");
        assertThat(mm.quarantinedPages()).isEqualTo(3);
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.usedBytes()).as("quarantined pages are in use, not free").isEqualTo(3L * PAGE);
        assertThat(mm.freePages()).isEqualTo(5);
        List<MemorySegment> mine = mm.allocatePages("main", 5);
        assertThatThrownBy(() -> mm.allocatePage("main")).as("quarantined pages are not handed out")
                .isInstanceOf(BudgetExceededException.class).hasMessageContaining("quarantined");
        for (MemorySegment p : mine) {
            p.fill((byte) 9);
        }
        mayEnd.countDown();
        worker.join();
        assertThat(failure.get()).isNull();
        mm.release(mine);

        // the thread has ended: the quarantined pages come back when they are needed (the first request may
        // fail, see firstRequestAfterTheConfiningThreadEndedGetsTheQuarantinedPages)
        List<MemorySegment> all;
        try {
            all = mm.allocatePages("main", 8);
        } catch (BudgetExceededException e) {
            all = mm.allocatePages("main", 8);
        }
        assertThat(mm.quarantinedPages()).isZero();
        assertDistinct(all);
        assertThat(mm.usedPages()).isEqualTo(8);
        for (MemorySegment p : theirPages.get()) {
            assertThat(inOtherThread(() -> p.get(ValueLayout.JAVA_BYTE, 0))).isNotNull();
        }
    }

    @Test
    void firstRequestAfterTheConfiningThreadEndedGetsTheQuarantinedPages() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(8);
        java.util.concurrent.CountDownLatch allocated = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch mayEnd = new java.util.concurrent.CountDownLatch(1);
        Thread worker = new Thread(() -> {
            mm.allocatePages("worker", 3);
            allocated.countDown();
            try {
                mayEnd.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        worker.start();
        allocated.await();
        mm.releaseAll("worker");
        assertThat(mm.quarantinedPages()).isEqualTo(3);
        List<MemorySegment> mine = mm.allocatePages("main", 5);
        mayEnd.countDown();
        worker.join();
        assertThat(mm.freePages()).isEqualTo(0);
        assertThat(mm.allocatePages("other", 3)).hasSize(3);
        assertThat(mm.quarantinedPages()).isZero();
        mm.release(mine);
    }

    @Test
    void quarantinedPageReleasedByItsThreadComesBack() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(4);
        AtomicReference<MemorySegment> page = new AtomicReference<>();
        Worker worker = Worker.start(() -> page.set(mm.allocatePage("worker")), () -> {
            mm.release(page.get());
            assertRevoked(page.get());
            assertThatThrownBy(() -> mm.release(page.get())).isInstanceOf(IllegalStateException.class);
        });
        mm.releaseAll("worker");
        assertThat(mm.quarantinedPages()).isEqualTo(1);
        worker.finish();
        assertThat(mm.quarantinedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(4);
        assertDistinct(mm.allocatePages("main", 4));
    }

    @Test
    void closeWhileAnotherLiveThreadHoldsConfinedPagesKeepsItsMemoryAndSaysSo() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(4);
        java.util.concurrent.CountDownLatch allocated = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                MemorySegment page = mm.allocatePage("worker");
                page.fill((byte) 5);
                allocated.countDown();
                closed.await();
                // not revocable from the closing thread: the memory is kept, and only this thread reaches it
                assertFilled(page, 5);
                page.fill((byte) 6);
                assertFilled(page, 6);
                mm.release(page); // after close: does nothing
            } catch (Throwable e) {
                failure.set(e);
                allocated.countDown();
            }
        });
        worker.start();
        allocated.await();
        MemorySegment mine = mm.allocatePage("main");
        mm.close();
        assertRevoked(mine);
        closed.countDown();
        worker.join();
        assertThat(failure.get()).isNull();
        assertThat(leaks).hasSize(1);
        assertThat(leaks.getFirst()).contains("worker").contains("main").contains("confined to live threads");
    }

    @Test
    void confinedPageOfAnEndedThreadCanBeReleasedByAnother() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(4);
        AtomicReference<MemorySegment> page = new AtomicReference<>();
        Thread worker = new Thread(() -> page.set(mm.allocatePage("worker")));
        worker.start();
        worker.join();
        mm.release(page.get());
        assertThat(mm.usedPages()).isZero();
        assertThatThrownBy(() -> mm.release(page.get())).isInstanceOf(IllegalStateException.class);
        assertDistinct(mm.allocatePages("main", 4));
    }

    // ================================================================== helpers

    // =================================================================== page groups

    private static List<MemorySegment> pagesOf(PageGroup group) {
        List<MemorySegment> pages = new ArrayList<>();
        for (int i = 0; i < group.size(); i++) {
            pages.add(group.page(i));
        }
        return pages;
    }

    @Test
    void aGroupHoldsDistinctPagesThatKeepTheirContentAcrossSegments() {
        MemoryManager mm = newManager(16);
        List<MemorySegment> single = mm.allocatePages("a", 3);
        PageGroup group = mm.allocateGroup("a", 5);
        assertThat(group.size()).isEqualTo(5);
        assertThat(group.pageSize()).isEqualTo(PAGE);
        assertThat(group.byteSize()).isEqualTo(5L * PAGE);
        assertThat(group.isAlive()).isTrue();
        for (int i = 0; i < group.size(); i++) {
            assertThat(group.page(i).byteSize()).isEqualTo(PAGE);
            fill(group.page(i), 20 + i);
        }
        for (int i = 0; i < single.size(); i++) {
            fill(single.get(i), 40 + i);
        }
        List<MemorySegment> all = new ArrayList<>(single);
        all.addAll(pagesOf(group));
        assertDistinct(all);
        for (int i = 0; i < group.size(); i++) {
            assertFilled(group.page(i), 20 + i);
        }
        assertThat(mm.usedPages()).isEqualTo(8);
        assertThat(mm.usedBytes()).isEqualTo(8L * PAGE);
        assertThat(mm.usageByOwner()).containsEntry("a", 8L * PAGE);
        assertThat(group.toString()).contains("5 pages").doesNotContain("released");
    }

    @Test
    void closingAGroupGivesEveryPageBackAndRevokesEverySegmentOfIt() {
        MemoryManager mm = newManager(4);
        PageGroup group = mm.allocateGroup("a", 4);
        List<MemorySegment> stale = pagesOf(group);
        MemorySegment staleSlice = stale.get(2).asSlice(64, 64);
        for (int i = 0; i < 4; i++) {
            fill(stale.get(i), i + 1);
        }
        group.close();
        assertThat(group.isAlive()).isFalse();
        assertThat(group.toString()).contains("released");
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(4);
        assertThatThrownBy(() -> group.page(0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
        assertThatThrownBy(group::close).as("closed twice").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        List<MemorySegment> next = mm.allocatePages("b", 4);
        assertDistinct(next);
        for (MemorySegment page : next) {
            page.fill((byte) 9);
        }
        if (revocable()) {
            stale.forEach(MemoryManagerConformanceTest::assertRevoked);
            assertRevoked(staleSlice);
        }
        for (MemorySegment page : next) {
            assertFilled(page, 9);
        }
    }

    @Test
    void aPageOfAGroupCannotBeReleasedAlone() {
        MemoryManager mm = newManager(4);
        PageGroup group = mm.allocateGroup("a", 2);
        MemorySegment page = group.page(1);
        fill(page, 3);
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("page group");
        assertThatThrownBy(() -> mm.release(List.of(page))).isInstanceOf(IllegalArgumentException.class);
        assertThat(mm.usedPages()).isEqualTo(2);
        assertFilled(group.page(1), 3);
        group.close();
        assertThat(mm.freePages()).isEqualTo(4);
    }

    @Test
    void aGroupIsAllOrNothingAndBadArgumentsAreRejected() {
        MemoryManager mm = newManager(4);
        MemorySegment held = mm.allocatePage("a");
        assertThatThrownBy(() -> mm.allocateGroup("b", 4)).isInstanceOf(BudgetExceededException.class);
        assertThatThrownBy(() -> mm.allocateGroup("b", 5)).isInstanceOf(BudgetExceededException.class)
                .hasMessageContaining("more than the manager has");
        assertThat(mm.usedPages()).isEqualTo(1);
        assertThat(mm.freePages()).isEqualTo(3);
        assertThatThrownBy(() -> mm.allocateGroup(null, 1)).isInstanceOf(NullPointerException.class).hasMessageContaining("owner");
        assertThatThrownBy(() -> mm.allocateGroup("b", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> mm.allocateGroup("b", -1)).isInstanceOf(IllegalArgumentException.class);
        PageGroup group = mm.allocateGroup("b", 3);
        assertThatThrownBy(() -> group.page(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> group.page(3)).isInstanceOf(IndexOutOfBoundsException.class);
        List<MemorySegment> all = new ArrayList<>(pagesOf(group));
        all.add(held);
        assertDistinct(all);
        mm.close();
        assertThatThrownBy(() -> mm.allocateGroup("b", 1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void releaseAllReleasesTheOwnersGroups() {
        MemoryManager mm = newManager(8);
        PageGroup group = mm.allocateGroup("a", 3);
        MemorySegment single = mm.allocatePage("a");
        PageGroup other = mm.allocateGroup("b", 2);
        List<MemorySegment> stale = pagesOf(group);
        mm.releaseAll("a");
        assertThat(group.isAlive()).isFalse();
        assertThat(other.isAlive()).isTrue();
        assertThat(mm.usedPages()).isEqualTo(2);
        assertThat(mm.freePages()).isEqualTo(6);
        assertThatThrownBy(() -> group.page(0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(group::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("already released");
        if (revocable()) {
            stale.forEach(MemoryManagerConformanceTest::assertRevoked);
            assertRevoked(single);
        }
        List<MemorySegment> all = new ArrayList<>(mm.allocatePages("c", 6));
        all.addAll(pagesOf(other));
        assertDistinct(all);
    }

    @Test
    void closingTheManagerRevokesGroupsAndReportsTheirPages() {
        MemoryManager mm = newManager(8);
        PageGroup group = mm.allocateGroup("sorter", 5);
        List<MemorySegment> stale = pagesOf(group);
        mm.close();
        assertThat(leaks).singleElement().asString().contains("sorter: 5 pages");
        assertThat(group.isAlive()).isFalse();
        assertThatThrownBy(() -> group.page(0)).isInstanceOf(IllegalStateException.class);
        assertThatCode(group::close).as("after the manager's close, as release").doesNotThrowAnyException();
        if (revocable()) {
            stale.forEach(MemoryManagerConformanceTest::assertRevoked);
        }
    }

    @Test
    void aSpillCallbackMayCloseItsGroup() {
        MemoryManager mm = newManager(4);
        PageGroup group = mm.allocateGroup("a", 3);
        mm.registerSpillCallback("a", (manager, wanted) -> {
            long bytes = group.byteSize();
            group.close();
            return bytes;
        });
        List<MemorySegment> pages = mm.allocatePages("b", 4);
        assertDistinct(pages);
        assertThat(group.isAlive()).isFalse();
        assertThat(mm.spillCount()).isEqualTo(1);
    }

    @Test
    void confinedGroupsCannotBeUsedOrClosedFromAnotherThread() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(4);
        PageGroup group = mm.allocateGroup("a", 2);
        MemorySegment page = group.page(0);
        fill(page, 6);
        assertThat(inOtherThread(() -> group.page(1).get(ValueLayout.JAVA_INT, 0))).isInstanceOf(WrongThreadException.class);
        assertThat(inOtherThread(() -> page.get(ValueLayout.JAVA_INT, 0))).isInstanceOf(WrongThreadException.class);
        assertThat(inOtherThread(group::close)).isInstanceOf(WrongThreadException.class);
        assertThat(group.isAlive()).isTrue();
        assertThat(mm.usedPages()).isEqualTo(2);
        assertFilled(page, 6);
        group.close();
        assertRevoked(page);
        assertThat(mm.freePages()).isEqualTo(4);
    }

    @Test
    void aConfinedGroupClosedByAnotherThreadAfterItsThreadEndedRefusesItsPages() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(4);
        AtomicReference<PageGroup> made = new AtomicReference<>();
        Thread worker = new Thread(() -> made.set(mm.allocateGroup("worker", 2)));
        worker.start();
        worker.join();
        PageGroup group = made.get();
        group.close(); // its thread ended: nobody can reach its scope, so another thread may close it
        assertThat(group.isAlive()).isFalse();
        assertThatThrownBy(() -> group.page(0)).as("released, not wrong thread").isInstanceOf(IllegalStateException.class)
                .isNotInstanceOf(WrongThreadException.class).hasMessageContaining("released");
        assertThat(mm.freePages()).isEqualTo(4);
    }

    @Test
    void sharedGroupsAreUsedAndClosedFromAnyThread() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(!confined());
        MemoryManager mm = newManager(4);
        PageGroup group = mm.allocateGroup("a", 3);
        fill(group.page(2), 8);
        AtomicInteger seen = new AtomicInteger();
        assertThat(inOtherThread(() -> seen.set(group.page(2).get(ValueLayout.JAVA_BYTE, 0)))).isNull();
        assertThat(seen.get()).isEqualTo(8);
        MemorySegment stale = group.page(2);
        assertThat(inOtherThread(group::close)).isNull();
        assertThat(group.isAlive()).isFalse();
        assertThat(mm.freePages()).isEqualTo(4);
        if (revocable()) {
            assertRevoked(stale);
        }
        assertDistinct(mm.allocatePages("b", 4));
    }

    @Test
    void releaseAllFromAnotherThreadQuarantinesAConfinedGroupUntilItsThreadClosesIt() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(confined() && revocable());
        MemoryManager mm = newManager(8);
        AtomicReference<PageGroup> group = new AtomicReference<>();
        Worker worker = Worker.start(() -> {
            group.set(mm.allocateGroup("worker", 3));
            fill(group.get().page(0), 4);
        }, () -> {
            // quarantined, not revoked: this thread still reaches only its own bytes, and gives them back
            assertFilled(group.get().page(0), 4);
            group.get().close();
            assertThatThrownBy(() -> group.get().page(0)).isInstanceOf(IllegalStateException.class);
        });
        mm.releaseAll("worker");
        assertThat(mm.quarantinedPages()).isEqualTo(3);
        assertThat(mm.freePages()).isEqualTo(5);
        worker.finish();
        assertThat(mm.quarantinedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(8);
        assertDistinct(mm.allocatePages("main", 8));
    }

    static void fill(MemorySegment page, int pattern) {
        page.fill((byte) pattern);
    }

    static void assertFilled(MemorySegment page, int pattern) {
        byte expected = (byte) pattern;
        for (long i = 0; i < page.byteSize(); i += 8) {
            long word = page.get(ValueLayout.JAVA_LONG_UNALIGNED, i);
            long expectedWord = 0x0101010101010101L * (expected & 0xFF);
            if (word != expectedWord) {
                throw new AssertionError("page " + page + " at " + i + ": expected pattern " + pattern + " but found "
                        + Long.toHexString(word));
            }
        }
    }

    static void assertRevoked(MemorySegment segment) {
        assertThatThrownBy(() -> segment.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> segment.set(ValueLayout.JAVA_BYTE, 0, (byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> segment.get(ValueLayout.JAVA_LONG_UNALIGNED, segment.byteSize() - 8)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> segment.fill((byte) 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> segment.toArray(ValueLayout.JAVA_BYTE)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> MemorySegment.copy(segment, 0, MemorySegment.ofArray(new byte[8]), 0, 8)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> MemorySegment.copy(MemorySegment.ofArray(new byte[8]), 0, segment, 0, 8)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> segment.asByteBuffer().get(0)).isInstanceOf(IllegalStateException.class);
    }

    /** No two pages share a byte: native pages by address range, heap pages by array. */
    static void assertDistinct(List<MemorySegment> pages) {
        if (pages.stream().allMatch(MemorySegment::isNative)) {
            List<MemorySegment> sorted = new ArrayList<>(pages);
            sorted.sort(Comparator.comparingLong(MemorySegment::address));
            for (int i = 1; i < sorted.size(); i++) {
                MemorySegment before = sorted.get(i - 1);
                assertThat(sorted.get(i).address()).as("pages overlap").isGreaterThanOrEqualTo(before.address() + before.byteSize());
            }
        } else {
            Set<Object> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
            for (MemorySegment page : pages) {
                assertThat(arrays.add(page.heapBase().orElseThrow())).as("two pages share an array").isTrue();
            }
        }
    }

    /** A step of a {@link Worker}, which may throw anything (an assertion, an interrupt). */
    interface Step {
        void run() throws Throwable;
    }

    /**
     * A thread that runs a first step, waits until the test lets it go on, then runs a second step; a failure
     * of either comes out of {@link #finish()}.
     */
    static final class Worker {
        private final java.util.concurrent.CountDownLatch firstDone = new java.util.concurrent.CountDownLatch(1);
        private final java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Thread thread;

        private Worker(Step first, Step second) {
            thread = new Thread(() -> {
                try {
                    first.run();
                    firstDone.countDown();
                    goOn.await();
                    second.run();
                } catch (Throwable e) {
                    failure.set(e);
                    firstDone.countDown();
                }
            });
        }

        /** @return a worker whose first step has run (its thread still alive, waiting) */
        static Worker start(Step first, Step second) throws InterruptedException {
            Worker worker = new Worker(first, second);
            worker.thread.start();
            worker.firstDone.await();
            assertThat(worker.failure.get()).as("the worker's first step").isNull();
            return worker;
        }

        /** Lets the worker run its second step and end; fails with what either step threw. */
        void finish() throws InterruptedException {
            goOn.countDown();
            thread.join();
            assertThat(failure.get()).as("the worker's steps").isNull();
        }
    }

    static Throwable inOtherThread(Runnable action) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                action.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        thread.start();
        thread.join();
        return thrown.get();
    }

    static BudgetExceededException catchExceeded(Runnable r) {
        try {
            r.run();
        } catch (BudgetExceededException e) {
            return e;
        }
        throw new AssertionError("expected BudgetExceededException");
    }
}
