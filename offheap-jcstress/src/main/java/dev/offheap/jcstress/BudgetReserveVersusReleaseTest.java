package dev.offheap.jcstress;

import dev.offheap.memory.Budget;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJJ_Result;

/**
 * A reserve races a release on a child with a reservation, across the reservation's edge. The
 * child (limit 1000, reservation 100, under a parent of 1000) starts with 80 bytes in use. One
 * thread reserves 60 (past the reservation if it goes first: 20 from the reservation, 40 drawn
 * from the parent); the other releases the 80.
 *
 * <p>The child is the parent's only user, so once both actors are done the parent's {@code used()}
 * must equal the child's {@code reserved()}, which is max(reservation, used): the parent is charged for
 * each completed change of the child's use exactly, so no slack may remain (an earlier design could
 * leave the child holding 40 bytes beyond its use; that outcome is now forbidden). After the arbiter releases the remaining 60, the child
 * must hold exactly its reservation again and the parent exactly that much: anything else is a
 * byte leaked or double-returned between the child's in-use count, its unused reservation and
 * what it drew from the parent.
 *
 * <p>Result: success (1/0), then after the actors child used, child reserved, parent used, then
 * after the arbiter's release of the rest child reserved, parent used.
 */
@JCStressTest
@Description("Budget: reserve(60) racing release(80) on a child with a 100-byte reservation; counts stay consistent.")
@Outcome(id = "1, 60, 100, 100, 100, 100", expect = Expect.ACCEPTABLE,
        desc = "whatever the interleaving, the parent is charged exactly for the child's completed changes")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "refused with room to spare, or the child's and the parent's counts disagree (leak or double return)")
@State
public class BudgetReserveVersusReleaseTest {
    private final Budget parent = Budget.root("parent", 1000, report -> { });
    private final Budget child = parent.child("child", 1000, 100);

    public BudgetReserveVersusReleaseTest() {
        child.reserve(80);
    }

    @Actor
    public void reserve(JJJJJJ_Result r) {
        r.r1 = child.tryReserve(60) ? 1 : 0;
    }

    @Actor
    public void release() {
        child.release(80);
    }

    @Arbiter
    public void inspectThenReleaseRest(JJJJJJ_Result r) {
        long used = child.used();
        r.r2 = used;
        r.r3 = child.reserved();
        r.r4 = parent.used();
        child.release(used);
        r.r5 = child.reserved();
        r.r6 = parent.used();
    }
}
