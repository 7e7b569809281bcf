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
 * A push races a pop on a stack holding slot 0: a page released while another is being leased.
 * The popper gets either slot, and the other one stays in the stack; a pop that read the new head
 * before its link was published would follow a stale link and lose or duplicate a slot.
 *
 * <p>Result: the popper's slot, then the arbiter's two pops.
 */
@JCStressTest
@Description("SlotStack: a push racing a pop; the popper gets one slot and the other stays in the stack.")
@Outcome(id = "0, 1, -1", expect = Expect.ACCEPTABLE, desc = "pop linearized before push(1)")
@Outcome(id = "1, 0, -1", expect = Expect.ACCEPTABLE, desc = "push(1) linearized before the pop, which took it")
@Outcome(expect = Expect.FORBIDDEN, desc = "a slot was lost, handed out twice, or the pop saw an empty stack")
@State
public class SlotStackPushPopTest {
    private final SlotStack stack = new SlotStack(2);

    public SlotStackPushPopTest() {
        stack.push(0);
    }

    @Actor
    public void push() {
        stack.push(1);
    }

    @Actor
    public void pop(III_Result r) {
        r.r1 = stack.pop();
    }

    @Arbiter
    public void drain(III_Result r) {
        r.r2 = stack.pop();
        r.r3 = stack.pop();
    }
}
