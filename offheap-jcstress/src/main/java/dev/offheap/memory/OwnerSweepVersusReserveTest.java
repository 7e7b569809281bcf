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
 * The sweep of the records of owners that hold nothing, racing a reservation for such an owner: the owner
 * reserved bytes and gave them back, so its record holds nothing; one actor runs a sweep (the package-private seam
 * {@link MemoryManager#sweepOwnerRecordsNow()}), the other reserves 100 bytes for the owner. The sweep marks the
 * record, then reads its reserved bytes; the reservation adds its bytes, then reads the mark, and calls the sweep
 * of the record off or moves the bytes to the owner's new record. Whichever comes first, the bytes count for the
 * owner once: {@code usageByOwner()} lists 100 bytes, the manager keeps one record, the owner's
 * {@code releaseReservation} finds them, and then the manager uses nothing. Bytes left on a dropped record would
 * stay charged to the budget with no owner to give them back.
 *
 * <p>Result: records the sweep dropped (0 or 1), then after both actors the owner's bytes in
 * {@code usageByOwner()} and the records kept, then whether {@code releaseReservation(owner, 100)} succeeded
 * (1) or was refused (0), and the bytes the manager uses after it.
 */
@JCStressTest
@Description("MemoryManager: a sweep of idle owners' records racing reserve for one of them; the bytes always count "
        + "for their owner, once, and its releaseReservation finds them.")
@Outcome(id = "1, 100, 1, 1, 0", expect = Expect.ACCEPTABLE,
        desc = "the sweep dropped the idle record; the bytes count for the owner's new record all the same")
@Outcome(id = "0, 100, 1, 1, 0", expect = Expect.ACCEPTABLE,
        desc = "the reservation came first (or called the sweep of the record off): the record stays")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "the bytes count for a record nobody finds, count twice, or stay charged after their release")
@State
public class OwnerSweepVersusReserveTest {
    private static final String OWNER = "owner";

    private final MemoryManager manager = MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
            .type(MemoryType.HEAP).pageSize(4096).totalSize(4L * 4096).build();

    public OwnerSweepVersusReserveTest() {
        manager.reserve(OWNER, 100);
        manager.releaseReservation(OWNER, 100);
    }

    @Actor
    public void sweep(IIIII_Result r) {
        r.r1 = manager.sweepOwnerRecordsNow();
    }

    @Actor
    public void reserve() {
        manager.reserve(OWNER, 100);
    }

    @Arbiter
    public void inspectThenRelease(IIIII_Result r) {
        r.r2 = (int) (long) manager.usageByOwner().getOrDefault(OWNER, 0L);
        r.r3 = manager.ownerRecordCount();
        try {
            manager.releaseReservation(OWNER, 100);
            r.r4 = 1;
        } catch (IllegalStateException refused) {
            r.r4 = 0;
        }
        r.r5 = (int) manager.usedBytes();
        manager.close();
    }
}
