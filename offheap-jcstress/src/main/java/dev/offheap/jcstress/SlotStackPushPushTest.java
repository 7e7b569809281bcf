package dev.offheap.jcstress;

import dev.offheap.memory.internal.SlotStack;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two pushes of distinct slots race on an empty stack; both must land. A push that overwrote the
 * other's head (a lost compare-and-set) would leave one slot unreachable: a page that the manager
 * could never lease again.
 *
 * <p>Result: the arbiter's three pops, top first.
 */
@JCStressTest
@Description("SlotStack: two concurrent pushes of distinct slots; both must be in the stack afterwards.")
@Outcome(id = "1, 0, -1", expect = Expect.ACCEPTABLE, desc = "push(0) linearized first, then push(1)")
@Outcome(id = "0, 1, -1", expect = Expect.ACCEPTABLE, desc = "push(1) linearized first, then push(0)")
@Outcome(expect = Expect.FORBIDDEN, desc = "a pushed slot was lost or appears twice")
@State
public class SlotStackPushPushTest {
    private final SlotStack stack = new SlotStack(2);

    @Actor
    public void pushZero() {
        stack.push(0);
    }

    @Actor
    public void pushOne() {
        stack.push(1);
    }

    @Arbiter
    public void drain(III_Result r) {
        r.r1 = stack.pop();
        r.r2 = stack.pop();
        r.r3 = stack.pop();
    }
}
