package dev.offheap.memory;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * The sweep of the records of owners that hold nothing, racing a page allocation for such an owner: the owner
 * took a page and released it, so its record holds nothing; one actor runs a sweep (the package-private seam
 * {@link MemoryManager#sweepOwnerRecordsNow()}), the other allocates a page for the owner. The sweep marks the
 * record, then reads the page table; the allocation publishes its lease, then reads the mark, and calls the
 * sweep of the record off or moves the lease to the owner's new record. Whichever comes first, the page counts
 * for the owner: {@code usageByOwner()} lists it with one page, the manager keeps one record, and
 * {@code releaseAll(owner)} takes the page. A page counted for a dropped record would be missing from all three
 * (and from close's leak report).
 *
 * <p>{@link MemoryType#HEAP} pages are confined to no thread, so the arbiter, which may run on another thread
 * than the allocating actor, releases the page for good rather than quarantining it; the lease protocol is the
 * same as for native pages.
 *
 * <p>Result: records the sweep dropped (0 or 1), then after both actors the owner's pages in
 * {@code usageByOwner()} and the records kept, then after {@code releaseAll(owner)} the pages used and the owners
 * listed.
 */
@JCStressTest
@Description("MemoryManager: a sweep of idle owners' records racing allocatePage for one of them; the page always "
        + "counts for its owner, and releaseAll takes it.")
@Outcome(id = "1, 1, 1, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "the sweep dropped the idle record; the page counts for the owner's new record all the same")
@Outcome(id = "0, 1, 1, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "the allocation came first (or called the sweep of the record off): the record stays")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "the page counts for a record nobody finds (not listed, or missed by releaseAll), or records pile up")
@State
public class OwnerSweepVersusAllocatePageTest {
    private static final int PAGE = 4096;
    private static final String OWNER = "owner";

    private final MemoryManager manager = MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
            .type(MemoryType.HEAP).pageSize(PAGE).totalSize(4L * PAGE).build();

    public OwnerSweepVersusAllocatePageTest() {
        manager.release(manager.allocatePage(OWNER));
    }

    @Actor
    public void sweep(IIIII_Result r) {
        r.r1 = manager.sweepOwnerRecordsNow();
    }

    @Actor
    public void allocate() {
        manager.allocatePage(OWNER);
    }

    @Arbiter
    public void inspectThenReleaseAll(IIIII_Result r) {
        r.r2 = (int) (manager.usageByOwner().getOrDefault(OWNER, 0L) / PAGE);
        r.r3 = manager.ownerRecordCount();
        manager.releaseAll(OWNER);
        r.r4 = manager.usedPages();
        r.r5 = manager.usageByOwner().size();
        manager.close();
    }
}
