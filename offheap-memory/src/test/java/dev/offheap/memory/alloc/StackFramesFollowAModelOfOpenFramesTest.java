package dev.offheap.memory.alloc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Seeded random sequences of pushes, in-order and out-of-order closes, repeated closes and allocations, checked
 * after every step against a model: the list of open frames. A frame is open exactly while the model has it, only
 * the innermost open frame allocates, closing an outer frame closes the frames inside it and says so, and closing
 * a closed frame does nothing. Deep enough that the record of outer frames grows.
 */
class StackFramesFollowAModelOfOpenFramesTest {

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void everyFrameIsOpenExactlyWhileTheModelSaysSo(DebugMode mode) {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            try (StackAllocator stack = StackAllocator.builder().stackSize(4096).debug(mode).registerMBean(false)
                    .build()) {
                List<StackAllocator.Frame> open = new ArrayList<>();
                List<StackAllocator.Frame> all = new ArrayList<>();
                for (int step = 0; step < 400; step++) {
                    int op = random.nextInt(10);
                    String at = "seed " + seed + ", step " + step;
                    if (op < 5 || all.isEmpty()) {
                        StackAllocator.Frame f = stack.pushFrame();
                        open.add(f);
                        all.add(f);
                        assertThat(f.depth()).as(at).isEqualTo(open.size());
                    } else if (op < 8) {
                        StackAllocator.Frame f = all.get(random.nextInt(all.size()));
                        int index = open.indexOf(f);
                        if (index < 0) {
                            assertThatCode(f::close).as(at + ": a closed frame closes again").doesNotThrowAnyException();
                        } else if (index == open.size() - 1) {
                            f.close();
                            open.removeLast();
                        } else {
                            assertThatThrownBy(f::close).as(at).isInstanceOf(IllegalStateException.class)
                                    .hasMessageContaining("LIFO");
                            open.subList(index, open.size()).clear();
                        }
                    } else {
                        StackAllocator.Frame f = all.get(random.nextInt(all.size()));
                        int index = open.indexOf(f);
                        if (index >= 0 && index == open.size() - 1) {
                            MemorySegment s = f.allocate(16);
                            assertThat(s.byteSize()).as(at).isEqualTo(16);
                        } else {
                            assertThatThrownBy(() -> f.allocate(16)).as(at).isInstanceOf(IllegalStateException.class)
                                    .hasMessageContaining(index < 0 ? "is closed" : "not the innermost");
                        }
                    }
                    for (StackAllocator.Frame f : all) {
                        assertThat(f.scope().isAlive()).as(at + ": " + f + " open").isEqualTo(open.contains(f));
                    }
                    if (all.size() > 120) {
                        all.removeIf(f -> !open.contains(f) && random.nextBoolean());
                    }
                }
                while (!open.isEmpty()) {
                    open.removeLast().close();
                }
            }
        }
    }
}
