package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.StackAllocator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code <pre>{@code ...}</pre>} examples in the javadoc of dev.offheap.memory and
 * dev.offheap.memory.alloc (Budget, MemoryManager, StackAllocator, NativeAllocator), run as written, with
 * their "..." filled in, and checked against what their comments and class descriptions say.
 */
class JavadocExamplesTest {

    /** Budget: "throws BudgetExceededException past 1 GiB". */
    @Test
    void theBudgetExampleThrowsPastOneGibibyte() {
        try (Budget process = Budget.root("process", ByteSize.parse("4g"));
             Budget cache = process.child("cache", ByteSize.parse("1g"))) {
            cache.reserve(64 << 20);      // throws BudgetExceededException past 1 GiB
            assertThatThrownBy(() -> cache.reserve((1L << 30) - (64 << 20) + 1))
                    .isInstanceOf(BudgetExceededException.class);
            cache.reserve((1L << 30) - (64 << 20));
            assertThat(cache.used()).isEqualTo(1L << 30);
            cache.release((1L << 30) - (64 << 20));
            cache.release(64 << 20);
            assertThat(process.used()).isZero();
        }
    }

    /** MemoryManager's class description. */
    @Test
    void theMemoryManagerExampleAllocatesWritesAndReleasesFourPages() {
        List<MemorySegment> kept;
        try (MemoryManager mm = MemoryManager.builder()
                .totalSize(ByteSize.parse("256m")).pageSize(32 * 1024).type(MemoryType.NATIVE).build()) {
            List<MemorySegment> pages = mm.allocatePages("sorter", 4);
            pages.getFirst().set(ValueLayout.JAVA_LONG, 0, 42L);
            assertThat(mm.usedPages()).isEqualTo(4);
            assertThat(mm.usageByOwner()).containsEntry("sorter", 4L * 32 * 1024);
            mm.releaseAll("sorter");
            assertThat(mm.usedPages()).isZero();
            kept = pages;
        }
        assertThatThrownBy(() -> kept.getFirst().get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
    }

    /** StackAllocator: "both freed here, in nanoseconds". */
    @Test
    void theStackAllocatorExamplePopsBothSegmentsWithItsFrame() {
        StackAllocator.Frame popped;
        int depthBefore;
        try (StackAllocator.Frame frame = StackAllocator.push()) {
            MemorySegment name = frame.allocateFrom("config.json");
            MemorySegment out = frame.allocate(ValueLayout.JAVA_LONG);
            assertThat(name.getString(0)).isEqualTo("config.json");
            assertThat(out.get(ValueLayout.JAVA_LONG, 0)).isZero();
            depthBefore = frame.depth();
            popped = frame;
        }                                         // both freed here, in nanoseconds
        assertThat(popped.scope().isAlive()).isFalse();
        try (StackAllocator.Frame next = StackAllocator.push()) {
            assertThat(next.depth()).as("the next frame takes the popped one's place").isEqualTo(depthBefore);
        }
    }

    /** NativeAllocator's class description. */
    @Test
    void theNativeAllocatorExampleAllocatesAndFreesWithMalloc() {
        try (NativeAllocator malloc = NativeAllocator.malloc()) {
            MemorySegment s = malloc.allocateUninitialized(256);
            s.fill((byte) 7);
            assertThat(malloc.allocatedBytes()).isEqualTo(256);
            malloc.free(s);
            assertThat(malloc.allocatedBytes()).isZero();
            assertThat(malloc.report().liveAllocations()).isZero();
        }
    }
}
