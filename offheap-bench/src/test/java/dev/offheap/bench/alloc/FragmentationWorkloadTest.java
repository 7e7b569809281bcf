package dev.offheap.bench.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class FragmentationWorkloadTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 42, 20251121})
    void sizesStayInRangeAndAreSkewedToSmall(long seed) {
        FragmentationWorkload w = FragmentationWorkload.create(20_000, seed);
        int small = 0;
        int large = 0;
        for (int i = 0; i < w.allocations(); i++) {
            assertThat(w.size(i)).isBetween((long) FragmentationWorkload.MIN_BYTES,
                    (long) FragmentationWorkload.MAX_BYTES);
            if (w.size(i) <= 32) {
                small++;
            } else if (w.size(i) > 32 * 1024) {
                large++;
            }
        }
        // class 0 has (1/12)^(1/3) = 44% of the blocks, class 11 has 1 - (11/12)^(1/3) = 2.9%
        assertThat(small).isBetween(8_400, 9_100);
        assertThat(large).isBetween(450, 700);
        double mean = (double) w.totalBytes() / w.allocations();
        assertThat(mean).isBetween(2_500.0, 3_500.0);
    }

    @Test
    void theSameSeedIsTheSameWorkloadAndAnotherSeedIsNot() {
        FragmentationWorkload a = FragmentationWorkload.create(1_000, 7);
        FragmentationWorkload b = FragmentationWorkload.create(1_000, 7);
        FragmentationWorkload c = FragmentationWorkload.create(1_000, 8);
        boolean differs = false;
        for (int i = 0; i < 1_000; i++) {
            assertThat(a.size(i)).isEqualTo(b.size(i));
            assertThat(a.freedAt(i)).isEqualTo(b.freedAt(i));
            differs |= a.size(i) != c.size(i);
        }
        assertThat(differs).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 11, 999, 5_000})
    void ninetyPercentAreFreedEachBlockOnce(int allocations) {
        FragmentationWorkload w = FragmentationWorkload.create(allocations, allocations);
        assertThat(w.freeCount()).isEqualTo(allocations * 9 / 10);
        Set<Integer> order = new HashSet<>();
        for (int i = 0; i < allocations; i++) {
            order.add(w.freedAt(i));
        }
        assertThat(order).hasSize(allocations).allSatisfy(b -> assertThat(b).isBetween(0, allocations - 1));
        long live = w.totalBytes();
        for (int i = 0; i < w.freeCount(); i++) {
            live -= w.size(w.freedAt(i));
        }
        assertThat(w.liveBytes()).isEqualTo(live).isPositive();
    }

    @Test
    void tooFewAllocationsAreRefused() {
        assertThatThrownBy(() -> FragmentationWorkload.create(9, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 10, got 9");
    }

    @Test
    void runFreesEveryBlockAndReadsTheFootprintBeforeAndAfterTrim() {
        FragmentationWorkload w = FragmentationWorkload.create(200, 3);
        try (RecordingHeap heap = new RecordingHeap()) {
            FragmentationWorkload.Outcome outcome = w.run(heap);
            assertThat(outcome.liveBytes()).isEqualTo(w.liveBytes());
            // footprint read while 10% were live: the live bytes plus the recorder's fixed overhead
            assertThat(outcome.footprintBytes()).isEqualTo(w.liveBytes() + RecordingHeap.OVERHEAD);
            assertThat(outcome.trimmedFootprintBytes()).isEqualTo(w.liveBytes());
            assertThat(heap.allocations).isEqualTo(200);
            assertThat(heap.frees).isEqualTo(200);
            assertThat(heap.allocatedBytes()).isZero();
        }
    }

    @Test
    void aHeapThatMiscountsIsCaught() {
        FragmentationWorkload w = FragmentationWorkload.create(20, 3);
        try (RecordingHeap heap = new RecordingHeap() {
            @Override
            public long allocatedBytes() {
                return super.allocatedBytes() + 1;
            }
        }) {
            assertThatThrownBy(() -> w.run(heap)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("reports " + (w.liveBytes() + 1) + " bytes allocated")
                    .hasMessageContaining("have " + w.liveBytes());
        }
    }

    /** A heap on one confined arena that counts what it is asked, and frees nothing. */
    private static class RecordingHeap implements FragmentationWorkload.Heap {
        static final long OVERHEAD = 1_000;
        final Arena arena = Arena.ofConfined();
        long allocated;
        int allocations;
        int frees;
        boolean trimmed;

        @Override
        public MemorySegment allocate(long bytes) {
            allocations++;
            allocated += bytes;
            return arena.allocate(bytes);
        }

        @Override
        public void free(MemorySegment segment) {
            frees++;
            allocated -= segment.byteSize();
        }

        @Override
        public long footprintBytes() {
            return allocated + (trimmed ? 0 : OVERHEAD);
        }

        @Override
        public long allocatedBytes() {
            return allocated;
        }

        @Override
        public void trim() {
            trimmed = true;
        }

        @Override
        public void close() {
            arena.close();
        }
    }
}
