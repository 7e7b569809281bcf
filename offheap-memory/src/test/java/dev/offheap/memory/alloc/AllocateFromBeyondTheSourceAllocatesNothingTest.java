package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code allocateFrom(elementLayout, source, sourceElementLayout, sourceOffset, elementCount)} skips the zeroing
 * of the JDK's default, and allocated before the copy had checked its arguments. A call the JDK refuses (a range
 * past the source's end, an offset past {@code Long.MAX_VALUE}, a misaligned source offset, a layout aligned
 * beyond its size, a closed source) still took memory first: a pooled allocator's budget stayed charged for the
 * span the block came from, a stack frame kept the block (and a chunk it grew by, charged to the budget until the
 * thread ends), and a count the budget cannot hold threw {@link dev.offheap.memory.BudgetExceededException}
 * instead of the {@link IndexOutOfBoundsException} the JDK throws for a source of 16 bytes. Now every check the
 * copy makes comes before the allocation: the call throws what the JDK's throws, and nothing is allocated.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AllocateFromBeyondTheSourceAllocatesNothingTest {
    private static final long BUDGET = 16 << 20;

    /** A call the JDK's {@code SegmentAllocator.allocateFrom} refuses, and what it throws. */
    private record BadCall(String what, Class<? extends RuntimeException> thrown, Function<Arena, MemorySegment> call) {
    }

    /**
     * @param ints   a native source of 4 ints (16 bytes, 16-byte aligned)
     * @param closed a source whose arena is closed
     */
    private static List<BadCall> badCalls(MemorySegment ints, MemorySegment closed) {
        MemorySegment bytes = MemorySegment.ofArray(new byte[16]);
        ValueLayout.OfInt overAligned = ValueLayout.JAVA_INT.withByteAlignment(8);
        return List.of(
                new BadCall("4 ints from byte 8 of 16", IndexOutOfBoundsException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, 8, 4)),
                new BadCall("a negative offset", IndexOutOfBoundsException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, -4, 1)),
                new BadCall("an offset whose range ends past Long.MAX_VALUE", IndexOutOfBoundsException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, Long.MAX_VALUE - 3, 2)),
                new BadCall("1 MiB from a source of 16 bytes", IndexOutOfBoundsException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_BYTE, ints, ValueLayout.JAVA_BYTE, 0, 1 << 20)),
                new BadCall("more than the budget holds from a source of 16 bytes", IndexOutOfBoundsException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_BYTE, ints, ValueLayout.JAVA_BYTE, 0, 4 * BUDGET)),
                new BadCall("a misaligned source offset", IllegalArgumentException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, 2, 1)),
                new BadCall("ints read from a byte array (aligned to 1 only)", IllegalArgumentException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, bytes, ValueLayout.JAVA_INT, 0, 2)),
                new BadCall("an element layout aligned beyond its size", IllegalArgumentException.class,
                        a -> a.allocateFrom(overAligned, ints, ValueLayout.JAVA_INT, 0, 2)),
                new BadCall("a source layout aligned beyond its size", IllegalArgumentException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, overAligned, 0, 2)),
                new BadCall("layouts of different sizes", IllegalArgumentException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_LONG, 0, 1)),
                new BadCall("a negative count", IllegalArgumentException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, 0, -1)),
                new BadCall("a closed source", IllegalStateException.class,
                        a -> a.allocateFrom(ValueLayout.JAVA_INT, closed, ValueLayout.JAVA_INT, 0, 2)),
                new BadCall("the address of a heap segment", IllegalArgumentException.class,
                        a -> a.allocateFrom(ValueLayout.ADDRESS, bytes)));
    }

    /** The JDK's own default, for reference: every bad call throws what the table says. */
    @Test
    void theJdksOwnArenaThrowsWhatTheTableSays() {
        try (Arena sources = Arena.ofConfined(); Arena jdk = Arena.ofConfined()) {
            MemorySegment ints = ints(sources);
            for (BadCall bad : badCalls(ints, closedSource())) {
                assertThatThrownBy(() -> bad.call().apply(jdk)).as(bad.what()).isInstanceOf(bad.thrown());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aNativeAllocatorAllocatesNothingForACallTheJdkRefuses(DebugMode mode) {
        try (Budget budget = Budget.root("native", BUDGET);
             NativeAllocator malloc = NativeAllocator.builder().debug(mode).budget(budget).build()) {
            assertAllocatesNothing(malloc, budget);
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aPooledAllocatorAllocatesNothingForACallTheJdkRefuses(DebugMode mode) {
        try (Budget budget = Budget.root("pooled", BUDGET);
             PooledAllocator pooled = PooledAllocator.builder().debug(mode).budget(budget).idleRelease(Duration.ZERO)
                     .capacity(1L << 30).build()) {
            assertAllocatesNothing(pooled, budget);
        }
    }

    private static void assertAllocatesNothing(Allocator allocator, Budget budget) {
        try (Arena sources = Arena.ofConfined()) {
            MemorySegment ints = ints(sources);
            for (BadCall bad : badCalls(ints, closedSource())) {
                assertThatThrownBy(() -> bad.call().apply(allocator)).as("%s: %s", allocator, bad.what())
                        .isInstanceOf(bad.thrown());
                assertThat(budget.used()).as("%s: the budget after %s", allocator, bad.what()).isZero();
                assertThat(allocator.allocatedBytes()).as("%s: after %s", allocator, bad.what()).isZero();
                assertThat(allocator.footprintBytes()).as("%s: the footprint after %s", allocator, bad.what()).isZero();
                assertThat(allocator.report().liveAllocations()).as("%s: after %s", allocator, bad.what()).isZero();
            }
            assertThat(allocator.report().leaks()).isEmpty();

            // a copy that fits still works, and is the caller's to free
            MemorySegment copy = allocator.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, 4, 3);
            assertThat(copy.toArray(ValueLayout.JAVA_INT)).containsExactly(2, 3, 4);
            allocator.free(copy);
            assertThat(allocator.allocatedBytes()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(DebugMode.class)
    void aStackFrameAllocatesNothingForACallTheJdkRefuses(DebugMode mode) {
        try (Budget budget = Budget.root("stack", BUDGET);
             StackAllocator stack = StackAllocator.builder().stackSize(4096).debug(mode).budget(budget).build();
             Arena sources = Arena.ofConfined()) {
            MemorySegment ints = ints(sources);
            try (StackAllocator.Frame frame = stack.pushFrame()) {
                long charged = budget.used();
                assertThat(charged).as("the thread's stack").isEqualTo(4096);
                MemorySegment before = frame.allocateUninitialized(1, 1);
                for (BadCall bad : badCalls(ints, closedSource())) {
                    assertThatThrownBy(() -> bad.call().apply(frame)).as(bad.what()).isInstanceOf(bad.thrown());
                    assertThat(budget.used()).as("the budget after %s (the stack grew by a chunk?)", bad.what())
                            .isEqualTo(charged);
                    assertThat(stack.footprintBytes()).as("after %s", bad.what()).isEqualTo(charged);
                }
                MemorySegment after = frame.allocateUninitialized(1, 1);
                assertThat(after.address()).as("the stack pointer did not move for the refused calls")
                        .isEqualTo(before.address() + 1);

                MemorySegment copy = frame.allocateFrom(ValueLayout.JAVA_INT, ints, ValueLayout.JAVA_INT, 4, 3);
                assertThat(copy.toArray(ValueLayout.JAVA_INT)).containsExactly(2, 3, 4);
            }
        }
    }

    private static MemorySegment ints(Arena arena) {
        MemorySegment ints = arena.allocate(16, 16);
        for (int i = 0; i < 4; i++) {
            ints.setAtIndex(ValueLayout.JAVA_INT, i, i + 1);
        }
        return ints;
    }

    private static MemorySegment closedSource() {
        MemorySegment closed;
        try (Arena arena = Arena.ofConfined()) {
            closed = arena.allocate(16, 16);
        }
        return closed;
    }
}
