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
 * Two sibling request budgets under one component budget, under a process budget with room for one
 * request: process (limit 100) / component (limit 1000) / {left, right} (limit 1000 each). Each
 * sibling reserves 60. Both pass their own and the component's compare-and-set, so the refusal
 * comes from the top of the chain and must be undone on both levels below it.
 *
 * <p>Result: left success (1/0), right success (1/0), left used, right used, component used,
 * process used.
 */
@JCStressTest
@Description("Budget: siblings race for a grandparent with room for one; the refusal is undone on every level.")
@Outcome(id = "1, 0, 60, 0, 60, 60", expect = Expect.ACCEPTABLE, desc = "left won; right was refused and undone up the chain")
@Outcome(id = "0, 1, 0, 60, 60, 60", expect = Expect.ACCEPTABLE, desc = "right won; left was refused and undone up the chain")
@Outcome(id = "1, 1, .*", expect = Expect.FORBIDDEN, desc = "both succeeded: the process limit was exceeded")
@Outcome(id = "0, 0, .*", expect = Expect.FORBIDDEN, desc = "both refused although the process had room for one")
@Outcome(expect = Expect.FORBIDDEN, desc = "the levels of the chain disagree: a refusal was not undone, or an update was lost")
@State
public class BudgetSiblingsRoomForOneTest {
    private final Budget process = Budget.root("process", 100, report -> { });
    private final Budget component = process.child("component", 1000);
    private final Budget left = component.child("left", 1000);
    private final Budget right = component.child("right", 1000);

    @Actor
    public void reserveLeft(JJJJJJ_Result r) {
        r.r1 = left.tryReserve(60) ? 1 : 0;
    }

    @Actor
    public void reserveRight(JJJJJJ_Result r) {
        r.r2 = right.tryReserve(60) ? 1 : 0;
    }

    @Arbiter
    public void inspect(JJJJJJ_Result r) {
        r.r3 = left.used();
        r.r4 = right.used();
        r.r5 = component.used();
        r.r6 = process.used();
    }
}
