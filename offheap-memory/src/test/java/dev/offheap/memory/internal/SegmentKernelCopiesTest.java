package dev.offheap.memory.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;

class SegmentKernelCopiesTest {

    @Test
    void copiesAreDistinctHiddenClasses() {
        List<SegmentKernel> copies = List.of(SegmentKernelCopies.K0, SegmentKernelCopies.K1,
                SegmentKernelCopies.K2, SegmentKernelCopies.K3);
        assertThat(copies).allSatisfy(k -> assertThat(k.getClass().isHidden()).isTrue());
        assertThat(copies.stream().map(Object::getClass).distinct()).hasSize(4);
        assertThat(SegmentKernelCopies.SHARED.getClass()).isEqualTo(SegmentKernels.class);
    }

    @Test
    void eachSegmentClassKeepsItsCopy() {
        try (Arena arena = Arena.ofConfined()) {
            Class<?> heap = MemorySegment.ofArray(new byte[1]).getClass();
            Class<?> nat = arena.allocate(1).getClass();
            Class<?> longs = MemorySegment.ofArray(new long[1]).getClass();
            SegmentKernel kh = SegmentKernelCopies.kernelFor(heap);
            SegmentKernel kn = SegmentKernelCopies.kernelFor(nat);
            SegmentKernel kl = SegmentKernelCopies.kernelFor(longs);
            assertThat(kh).isNotSameAs(kn).isNotSameAs(kl);
            assertThat(SegmentKernelCopies.kernelFor(heap)).isSameAs(kh);
            assertThat(SegmentKernelCopies.kernelFor(nat)).isSameAs(kn);
            for (int slot = 0; slot < SegmentKernelCopies.SLOTS; slot++) {
                Class<?> c = SegmentKernelCopies.slotClass(slot);
                if (c != null) {
                    assertThat(SegmentKernelCopies.kernelFor(c).getClass().isHidden()).isTrue();
                }
            }
            // classes beyond the slots share the original kernel
            Class<?>[] more = {
                MemorySegment.ofArray(new int[1]).getClass(), MemorySegment.ofArray(new short[1]).getClass(),
                MemorySegment.ofArray(new char[1]).getClass(), MemorySegment.ofArray(new float[1]).getClass(),
                MemorySegment.ofArray(new double[1]).getClass()};
            for (Class<?> c : more) {
                SegmentKernelCopies.kernelFor(c);
            }
            assertThat(SegmentKernelCopies.kernelFor(MemorySegment.ofArray(new double[1]).getClass()))
                    .isSameAs(SegmentKernelCopies.SHARED);
        }
    }
}
