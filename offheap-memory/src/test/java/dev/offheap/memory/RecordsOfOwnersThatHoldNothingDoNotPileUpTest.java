package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Any object may own pages, a new one per request among them. The manager kept a record of every owner it had
 * seen until {@code releaseAll} forgot it, also once the owner had released all it held: a program that released
 * each request's pages one by one (or its reservation) filled the heap with records, slowly. A record whose owner
 * holds no page, no reservation and no spill callback is now dropped, and {@code usageByOwner()} lists only
 * owners that hold something.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecordsOfOwnersThatHoldNothingDoNotPileUpTest {
    private static final int PAGE = 4096;
    private static final int PAGES = 64;
    private static final int REQUESTS = 50_000;

    private final List<String> leaks = new CopyOnWriteArrayList<>();

    private MemoryManager newManager(MemoryType type) {
        return MemoryManager.builder().registerMBean(false).leakReporter(leaks::add).type(type)
                .pageSize(PAGE).totalSize((long) PAGES * PAGE).build();
    }

    /** A request: an owner object of its own, with the identity equality of Object. */
    private static final class Request {
        private final int number;

        Request(int number) {
            this.number = number;
        }

        @Override
        public String toString() {
            return "request-" + number;
        }
    }

    @Test
    void anOwnerPerRequestThatReleasesWhatItHeldLeavesFewRecords() {
        for (MemoryType type : new MemoryType[] {MemoryType.NATIVE, MemoryType.HEAP}) {
            try (MemoryManager mm = newManager(type)) {
                for (int i = 0; i < REQUESTS; i++) {
                    Request request = new Request(i);
                    switch (i % 4) {
                        case 0 -> mm.release(mm.allocatePage(request));
                        case 1 -> mm.release(mm.allocatePages(request, 2));
                        case 2 -> mm.allocateGroup(request, 2).close();
                        default -> {
                            mm.reserve(request, 100);
                            mm.releaseReservation(request, 100);
                        }
                    }
                }
                assertThat(mm.ownerRecordCount()).as(type + ": records after " + REQUESTS + " requests")
                        .isLessThan(REQUESTS / 10);
                assertThat(mm.usageByOwner()).isEmpty();
                assertThat(mm.usedPages()).isZero();
                assertThat(mm.usedBytes()).isZero();
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void aRefusedRequestLeavesNoRecordBehindForGood() {
        try (MemoryManager mm = newManager(MemoryType.NATIVE)) {
            for (int i = 0; i < 2_000; i++) {
                Request request = new Request(i);
                assertThatThrownBy(() -> mm.allocatePages(request, PAGES + 1)).isInstanceOf(BudgetExceededException.class);
            }
            assertThat(mm.ownerRecordCount()).isLessThan(1_100);
        }
    }

    @Test
    void whatOwnersHoldAndTheirSpillCallbacksOutliveTheDroppingOfOthers() {
        try (MemoryManager mm = newManager(MemoryType.NATIVE)) {
            MemorySegment page = mm.allocatePage("holder");
            PageGroup group = mm.allocateGroup("grouper", 2);
            mm.reserve("reserver", 1000);
            AtomicInteger spills = new AtomicInteger();
            List<MemorySegment> spillable = mm.allocatePages("spiller", 4);
            mm.registerSpillCallback("idle-spiller", (m, bytes) -> {
                spills.incrementAndGet();
                return 0;
            });
            mm.registerSpillCallback("spiller", (m, bytes) -> {
                m.release(spillable);
                long freed = (long) spillable.size() * PAGE;
                spillable.clear();
                return freed;
            });
            for (int i = 0; i < REQUESTS; i++) {
                mm.release(mm.allocatePage(new Request(i)));
            }
            assertThat(mm.usageByOwner()).containsOnly(Map.entry("spiller", 4L * PAGE), Map.entry("grouper", 2L * PAGE),
                    Map.entry("reserver", 1000L), Map.entry("holder", (long) PAGE));

            // both callbacks are still registered: the idle one is asked too (it holds nothing, so after the other)
            List<MemorySegment> rest = mm.allocatePages("taker", mm.freePages());
            mm.allocatePages("taker", 4);
            assertThat(spillable).isEmpty();
            assertThatThrownBy(() -> mm.allocatePage("taker")).isInstanceOf(BudgetExceededException.class)
                    .hasMessageContaining("idle-spiller (gave back 0 B)");
            assertThat(spills).hasValue(1);

            // and releaseAll still finds what each owner holds
            mm.releaseAll("holder");
            mm.releaseAll("grouper");
            mm.releaseAll("reserver");
            mm.releaseAll("taker");
            assertThat(group.isAlive()).isFalse();
            assertThat(page.scope().isAlive()).isFalse();
            assertThat(rest).allMatch(p -> !p.scope().isAlive());
            assertThat(mm.usedBytes()).isZero();
            assertThat(mm.usageByOwner()).isEmpty();
        }
        assertThat(leaks).isEmpty();
    }

    /**
     * Records are dropped while other threads allocate for the same owners: a page that an owner's thread takes
     * while its record is dropped counts for the owner all the same, so that releaseAll finds and frees it.
     */
    @Test
    void aPageTakenWhileItsOwnersRecordIsDroppedStaysTheOwners() throws Exception {
        int owners = 8;
        int rounds = 20_000;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(leaks::add)
                .pageSize(PAGE).totalSize(1024L * PAGE).build()) {
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int first = t * owners;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        // each owner ends the round holding nothing, then takes a page again: its record may be
                        // dropped between the two by the other thread's new owners
                        for (int i = 0; i < rounds; i++) {
                            String owner = "owner-" + (first + i % owners);
                            if (i % 3 == 0) {
                                mm.reserve(owner, 10);
                                mm.releaseReservation(owner, 10);
                            } else {
                                mm.release(mm.allocatePage(owner));
                            }
                            mm.release(mm.allocatePage(new Request(i)));
                        }
                        for (int o = 0; o < owners; o++) {
                            mm.allocatePage("owner-" + (first + o));
                            mm.reserve("owner-" + (first + o), 10);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(failures).isEmpty();
            assertThat(mm.usedPages()).isEqualTo(2 * owners);
            assertThat(mm.usageByOwner()).hasSize(2 * owners).allSatisfy((owner, bytes) -> assertThat(bytes).isEqualTo(PAGE + 10L));
            for (int o = 0; o < 2 * owners; o++) {
                mm.releaseAll("owner-" + o);
            }
            assertThat(mm.usedPages()).isZero();
            assertThat(mm.usedBytes()).isZero();
        }
        assertThat(leaks).isEmpty();
    }

    /**
     * One thread takes a page or a group for an owner that held nothing just before and gives it back with
     * {@code releaseAll}, round after round, while another thread's new owners start sweep after sweep: a page or
     * group taken while a sweep drops its owner's record must still be the owner's, so that each releaseAll revokes
     * it. A group publishes its lease in all its slots with one fence, not as a single page does.
     */
    @Test
    void releaseAllRevokesWhatWasTakenWhileASweepRan() throws Exception {
        int rounds = 20_000;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(leaks::add)
                .pageSize(PAGE).totalSize(64L * PAGE).build()) {
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            AtomicInteger missed = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            Thread sweeper = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; done.get() == 0; i++) {
                        mm.release(mm.allocatePage(new Request(i)));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            try {
                for (int i = 0; i < rounds && failures.isEmpty(); i++) {
                    String owner = "owner-" + i % 4;
                    if (i % 2 == 0) {
                        MemorySegment page = mm.allocatePage(owner);
                        mm.releaseAll(owner);
                        if (page.scope().isAlive()) {
                            missed.incrementAndGet();
                            mm.release(page);
                        }
                    } else {
                        PageGroup group = mm.allocateGroup(owner, 2);
                        mm.releaseAll(owner);
                        if (group.isAlive()) {
                            missed.incrementAndGet();
                            group.close();
                        }
                    }
                }
            } finally {
                done.set(1);
                sweeper.join();
            }
            assertThat(failures).isEmpty();
            assertThat(missed).as("pages and groups that releaseAll did not find").hasValue(0);
            assertThat(mm.usedPages()).isZero();
        }
        assertThat(leaks).isEmpty();
    }
}
