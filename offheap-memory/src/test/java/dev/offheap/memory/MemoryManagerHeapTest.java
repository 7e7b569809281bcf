package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryManagerHeapTest extends MemoryManagerConformanceTest {
    @Override
    MemoryManager.Builder configure(MemoryManager.Builder builder) {
        return builder.type(MemoryType.HEAP);
    }

    @Override
    boolean revocable() {
        return false;
    }

    @Test
    void pagesAreByteArraysAndReleasedArraysAreNeverReused() {
        MemoryManager mm = newManager(2);
        MemorySegment first = mm.allocatePage("a");
        assertThat(first.isNative()).isFalse();
        assertThat(first.heapBase().orElseThrow()).isInstanceOf(byte[].class);
        assertThat(((byte[]) first.heapBase().orElseThrow()).length).isEqualTo(PAGE);
        Object firstArray = first.heapBase().orElseThrow();
        mm.release(first);
        for (int i = 0; i < 50; i++) {
            MemorySegment page = mm.allocatePage("a");
            assertThat(page.heapBase().orElseThrow()).isNotSameAs(firstArray);
            mm.release(page);
        }
        assertThat(mm.allocatedBytes()).isZero();
    }

    /** A double release of a heap page is refused as such, and the slot is not pooled twice. */
    @Test
    void doubleReleaseIsRefusedAndTheSlotIsNotPooledTwice() {
        MemoryManager mm = newManager(4);
        MemorySegment page = mm.allocatePage("a");
        mm.release(page);
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalStateException.class);
        mm.releaseAll("a");
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalStateException.class);
        assertThat(mm.freePages()).isEqualTo(4);
        List<MemorySegment> all = new ArrayList<>(mm.allocatePages("b", 4));
        assertDistinct(all);
        assertThatThrownBy(() -> mm.allocatePage("c")).isInstanceOf(BudgetExceededException.class);
        assertThat(mm.usedPages()).isEqualTo(4);
    }
}
