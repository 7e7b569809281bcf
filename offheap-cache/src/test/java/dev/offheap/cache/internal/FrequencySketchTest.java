package dev.offheap.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FrequencySketchTest {

    /**
     * The touch that writers make before taking their lock loads the sketch's words and changes nothing,
     * also for a sketch that ends exactly at the end of its region (where its bounds check must let the
     * last block through): it reads zeros from a fresh sketch, and the counters once they are counted.
     */
    @ParameterizedTest
    @ValueSource(ints = {8, 64, 1024})
    void touchLoadsTheCountersAndChangesNothing(int longs) {
        try (Arena arena = Arena.ofConfined()) {
            long bytes = FrequencySketch.bytesFor(longs);
            long offset = 4096;
            MemorySegment region = arena.allocate(offset + bytes, 8);
            FrequencySketch sketch = new FrequencySketch(region);
            sketch.attach(offset, longs);
            SplittableRandom random = new SplittableRandom(longs);
            int[] hashes = random.ints(2_000).toArray();
            for (int hash : hashes) {
                assertThat(sketch.touch(hash)).isZero();
            }
            for (int hash : hashes) {
                sketch.increment(hash);
            }
            MemorySegment before = arena.allocate(region.byteSize());
            before.copyFrom(region);
            long nonZero = 0;
            for (int i = 0; i < 20_000; i++) {
                if (sketch.touch(random.nextInt()) != 0) {
                    nonZero++;
                }
            }
            assertThat(nonZero).isPositive();
            assertThat(region.mismatch(before)).isEqualTo(-1L);
        }
    }
}
