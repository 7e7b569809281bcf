package dev.offheap.memory;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The sweep of the records of owners that hold nothing, racing the registration of a spill callback for such an
 * owner: the owner took a page and released it, so its record holds nothing; one actor runs a sweep (the
 * package-private seam {@link MemoryManager#sweepOwnerRecordsNow()}), the other registers the owner's spill
 * callback. The sweep marks the record, then reads its callback; the registration sets the callback, then reads
 * the mark, and calls the sweep of the record off or sets the callback on the owner's new record. Whichever comes
 * first, the callback stays registered: when another owner's request cannot be met, it is asked once.
 *
 * <p>Result: records the sweep dropped (0 or 1), then after both actors the records kept, then after another
 * owner took every page and asked for one more, whether that request was refused (1) and how many times the
 * callback was asked.
 */
@JCStressTest
@Description("MemoryManager: a sweep of idle owners' records racing registerSpillCallback for one of them; the "
        + "callback is never lost.")
@Outcome(id = "1, 1, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "the sweep dropped the idle record; the callback is registered on the owner's new record")
@Outcome(id = "0, 1, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "the registration came first (or called the sweep of the record off): the record stays")
@Outcome(expect = Expect.FORBIDDEN, desc = "the callback was lost with a dropped record, or records pile up")
@State
public class OwnerSweepVersusRegisterSpillCallbackTest {
    private static final int PAGE = 4096;
    private static final int PAGES = 2;
    private static final String OWNER = "owner";
    private static final String TAKER = "taker";

    private final MemoryManager manager = MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
            .type(MemoryType.HEAP).pageSize(PAGE).totalSize((long) PAGES * PAGE).build();
    private final AtomicInteger asked = new AtomicInteger();

    public OwnerSweepVersusRegisterSpillCallbackTest() {
        manager.release(manager.allocatePage(OWNER));
    }

    @Actor
    public void sweep(IIII_Result r) {
        r.r1 = manager.sweepOwnerRecordsNow();
    }

    @Actor
    public void register() {
        manager.registerSpillCallback(OWNER, (m, bytes) -> {
            asked.incrementAndGet();
            return 0;
        });
    }

    @Arbiter
    public void inspectThenRunShort(IIII_Result r) {
        r.r2 = manager.ownerRecordCount();
        manager.allocatePages(TAKER, PAGES);
        try {
            manager.allocatePage(TAKER);
            r.r3 = 0;
        } catch (BudgetExceededException refused) {
            r.r3 = 1;
        }
        r.r4 = asked.get();
        manager.close();
    }
}
