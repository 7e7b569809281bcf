package dev.offheap.jcstress;

import dev.offheap.memory.Budget;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJ_Result;

/**
 * Two threads reserve 60 bytes each on the same child, whose own limit (1000) would allow both but
 * whose parent (limit 100) has room for one. Both pass the child's compare-and-set, so the child
 * briefly counts 120; the parent must refuse exactly one, and the refused one must undo its
 * update of the child. Two successes would overcommit the parent; two failures would be a spurious
 * refusal; a leftover 60 in the child after a refusal would be a leak.
 *
 * <p>Result: first success (1/0), second success (1/0), child used, child reserved, parent used.
 */
@JCStressTest
@Description("Budget: two tryReserve(60) on one child, parent room for 100: exactly one succeeds, counts agree.")
@Outcome(id = "1, 0, 60, 60, 60", expect = Expect.ACCEPTABLE, desc = "the first reserve won; the second was refused and undone")
@Outcome(id = "0, 1, 60, 60, 60", expect = Expect.ACCEPTABLE, desc = "the second reserve won; the first was refused and undone")
@Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN, desc = "both succeeded: the parent's limit was exceeded")
@Outcome(id = "0, 0, .*", expect = Expect.FORBIDDEN, desc = "both refused although the parent had room for one")
@Outcome(expect = Expect.FORBIDDEN, desc = "one succeeded but the child's and the parent's counts disagree (leak or lost update)")
@State
public class BudgetParentRoomForOneTest {
    private final Budget parent = Budget.root("parent", 100, report -> { });
    private final Budget child = parent.child("child", 1000);

    @Actor
    public void reserveFirst(JJJJJ_Result r) {
        r.r1 = child.tryReserve(60) ? 1 : 0;
    }

    @Actor
    public void reserveSecond(JJJJJ_Result r) {
        r.r2 = child.tryReserve(60) ? 1 : 0;
    }

    @Arbiter
    public void inspect(JJJJJ_Result r) {
        r.r3 = child.used();
        r.r4 = child.reserved();
        r.r5 = parent.used();
    }
}
