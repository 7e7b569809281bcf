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
 * Two threads each reserve 60 and release it again on a child with a 100-byte reservation (limit
 * 1000, parent limit 1000): together they need 20 bytes beyond the reservation when they overlap,
 * and the draw and its return race with the other thread's update of the reservation. When both
 * are done the child must be back where it started: nothing in use, holding exactly its
 * reservation, and the parent (whose only user it is) exactly that much. The peak shows whether the
 * two reservations overlapped.
 *
 * <p>Result: first success (1/0), second success (1/0), child used, child reserved, parent used,
 * child peak.
 */
@JCStressTest
@Description("Budget: two reserve(60)+release(60) cycles on a child with a 100-byte reservation; all returns to start.")
@Outcome(id = "1, 1, 0, 100, 100, 60", expect = Expect.ACCEPTABLE, desc = "the cycles did not overlap")
@Outcome(id = "1, 1, 0, 100, 100, 120", expect = Expect.ACCEPTABLE, desc = "the cycles overlapped; 20 drawn from the parent and returned")
@Outcome(expect = Expect.FORBIDDEN, desc = "a refusal with room to spare, a leak (bytes still drawn or in use), or a wrong peak")
@State
public class BudgetReserveReleaseCycleTest {
    private final Budget parent = Budget.root("parent", 1000, report -> { });
    private final Budget child = parent.child("child", 1000, 100);

    @Actor
    public void cycleFirst(JJJJJJ_Result r) {
        boolean ok = child.tryReserve(60);
        r.r1 = ok ? 1 : 0;
        if (ok) {
            child.release(60);
        }
    }

    @Actor
    public void cycleSecond(JJJJJJ_Result r) {
        boolean ok = child.tryReserve(60);
        r.r2 = ok ? 1 : 0;
        if (ok) {
            child.release(60);
        }
    }

    @Arbiter
    public void inspect(JJJJJJ_Result r) {
        r.r3 = child.used();
        r.r4 = child.reserved();
        r.r5 = parent.used();
        r.r6 = child.peak();
    }
}
