package dev.offheap.jcstress;

import dev.offheap.memory.internal.SlotStack;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Two pops race on a stack holding 2 (top), 1, 0. Each must get its own slot, and the slot below
 * them must still be there: the same slot handed to both poppers is the same page leased twice.
 *
 * <p>Result: first actor's pop, second actor's pop, then the arbiter's two pops.
 */
@JCStressTest
@Description("SlotStack: two concurrent pops; distinct slots, nothing lost, the rest of the stack intact.")
@Outcome(id = "2, 1, 0, -1", expect = Expect.ACCEPTABLE, desc = "the first actor popped first")
@Outcome(id = "1, 2, 0, -1", expect = Expect.ACCEPTABLE, desc = "the second actor popped first")
@Outcome(expect = Expect.FORBIDDEN, desc = "a slot was handed out twice, lost, or the stack below was damaged")
@State
public class SlotStackPopPopTest {
    private final SlotStack stack = new SlotStack(3);

    public SlotStackPopPopTest() {
        stack.push(0);
        stack.push(1);
        stack.push(2);
    }

    @Actor
    public void popFirst(IIII_Result r) {
        r.r1 = stack.pop();
    }

    @Actor
    public void popSecond(IIII_Result r) {
        r.r2 = stack.pop();
    }

    @Arbiter
    public void drain(IIII_Result r) {
        r.r3 = stack.pop();
        r.r4 = stack.pop();
    }
}
