package dev.offheap.jcstress;

import dev.offheap.memory.internal.SlotStack;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;

/**
 * The ABA race that the head's version exists for. The stack holds 0 (top), 1, 2. The first actor
 * pops 0, pops 1 and pushes 0 back, so the head is slot 0 again but its link now points at 2. The
 * second actor pops once. Had it read head 0 and link 1 before the first actor started, a
 * compare-and-set on the slot number alone would succeed and make 1 the head while the first actor
 * holds it: slot 1 handed out twice, slot 2 reachable only through it. With the version bumped on
 * every update that stale compare-and-set fails and the pop retries.
 *
 * <p>Result: the first actor's two pops, the second actor's pop, then the arbiter's three pops.
 * Whatever the actors hold at the end plus what the arbiter drains must be exactly {0, 1, 2}.
 */
@JCStressTest
@Description("SlotStack: pop A, pop B, push A racing a pop (ABA); no slot handed out twice, none lost.")
@Outcome(id = "1, 2, 0, 1, -1, -1", expect = Expect.ACCEPTABLE, desc = "the lone pop ran first and took 0")
@Outcome(id = "0, 2, 1, 0, -1, -1", expect = Expect.ACCEPTABLE, desc = "the lone pop ran between the two pops and took 1")
@Outcome(id = "0, 1, 2, 0, -1, -1", expect = Expect.ACCEPTABLE, desc = "the lone pop ran before 0 was pushed back and took 2")
@Outcome(id = "0, 1, 0, 2, -1, -1", expect = Expect.ACCEPTABLE, desc = "the lone pop ran last and took the pushed-back 0")
@Outcome(expect = Expect.FORBIDDEN, desc = "ABA: a stale compare-and-set succeeded; a slot was handed out twice or lost")
@State
public class SlotStackAbaTest {
    private final SlotStack stack = new SlotStack(3);

    public SlotStackAbaTest() {
        stack.push(2);
        stack.push(1);
        stack.push(0);
    }

    @Actor
    public void popPopPushBack(IIIIII_Result r) {
        int a = stack.pop();
        int b = stack.pop();
        r.r1 = a;
        r.r2 = b;
        if (a >= 0) { // only a broken stack comes up empty here; its result is then FORBIDDEN
            stack.push(a);
        }
    }

    @Actor
    public void pop(IIIIII_Result r) {
        r.r3 = stack.pop();
    }

    @Arbiter
    public void drain(IIIIII_Result r) {
        r.r4 = stack.pop();
        r.r5 = stack.pop();
        r.r6 = stack.pop();
    }
}
