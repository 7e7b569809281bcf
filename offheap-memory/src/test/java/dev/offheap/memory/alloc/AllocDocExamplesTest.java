package dev.offheap.memory.alloc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.memory.Budget;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Java example of docs/alloc.md ("Usage") and the StackAllocator with its own settings that follows
 * it, run as written (the layouts and the budget it leaves to the reader filled in) and checked against
 * what the text says: {@code allocate} zeroes, {@code allocateFrom} writes a C string, the budget is
 * charged per 64 KiB unit held, frames pop everything at once.
 */
class AllocDocExamplesTest {

    private static final MemoryLayout HEADER_LAYOUT = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("id"), ValueLayout.JAVA_LONG.withName("length"));
    private static final MemoryLayout STAT_LAYOUT = MemoryLayout.sequenceLayout(18, ValueLayout.JAVA_LONG);

    @Test
    void thePooledStackAndNativeAllocatorsOfTheUsageSectionDoWhatTheirCommentsSay() {
        try (Budget componentBudget = Budget.root("component", 1L << 30)) {
            try (PooledAllocator pool = PooledAllocator.builder()
                    .budget(componentBudget)                 // optional: charged per 64 KiB unit held
                    .idleRelease(Duration.ofSeconds(10))     // give memory back after 10 s without slow-path activity
                    .build()) {
                MemorySegment buffer = pool.allocateUninitialized(4096);   // contents undefined, like malloc
                MemorySegment header = pool.allocate(HEADER_LAYOUT);       // zeroed
                MemorySegment name   = pool.allocateFrom("sensor-17");     // a C string, not zeroed first
                assertThat(buffer.byteSize()).isEqualTo(4096);
                assertThat(header.byteSize()).isEqualTo(16);
                assertThat(header.get(ValueLayout.JAVA_LONG, 0)).isZero();
                assertThat(header.get(ValueLayout.JAVA_LONG, 8)).isZero();
                assertThat(name.getString(0)).isEqualTo("sensor-17");
                assertThat(componentBudget.used() % (64 * 1024)).as("charged in 64 KiB units").isZero();
                assertThat(componentBudget.used()).isPositive();
                pool.free(buffer);                                         // from any thread
                pool.free(header);
                pool.free(name);
                pool.trim();                                               // give cached memory back now
                assertThat(pool.allocatedBytes()).isZero();
            }                                                              // frees the rest, reports leaks
            assertThat(componentBudget.used()).isZero();
        }

        StackAllocator.Frame popped;
        try (StackAllocator.Frame frame = StackAllocator.push()) {     // this thread's default stack
            MemorySegment path = frame.allocateFrom("/etc/hosts");
            MemorySegment stat = frame.allocate(STAT_LAYOUT);
            assertThat(path.getString(0)).isEqualTo("/etc/hosts");
            assertThat(stat.byteSize()).isEqualTo(18 * 8);
            assertThat(stat.toArray(ValueLayout.JAVA_LONG)).containsOnly(0L);
            popped = frame;
        }                                                              // both popped
        assertThat(popped.scope().isAlive()).isFalse();

        try (NativeAllocator c = NativeAllocator.isMimallocAvailable() ? NativeAllocator.mimalloc()
                                                                       : NativeAllocator.malloc()) {
            MemorySegment s = c.allocate(100);
            assertThat(s.toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
            c.free(s);
            assertThat(c.allocatedBytes()).isZero();
        }
    }

    @Test
    void aStackAllocatorWithItsOwnSettingsChargesItsBudgetTheStackSize() {
        try (Budget b = Budget.root("stacks", 1L << 30);
             StackAllocator stack = StackAllocator.builder().stackSize(256 << 10).budget(b).build()) {
            try (StackAllocator.Frame frame = stack.pushFrame()) {
                MemorySegment s = frame.allocate(1000);
                assertThat(s.byteSize()).isEqualTo(1000);
                assertThat(stack.stackSize()).isEqualTo(256 << 10);
                assertThat(b.used()).as("a budget is charged the size of each thread's stack").isEqualTo(256 << 10);
            }
        }
    }
}
