package dev.offheap.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FrequencySketchTest {

    /**
     * The unlocked touch that writes use before taking their lock loads what the locked one loads, also
     * for a sketch that ends exactly at the end of its region (where a block read past the counters
     * would fall outside it), and it changes nothing.
     */
    @ParameterizedTest
    @ValueSource(ints = {8, 64, 1024})
    void theUnlockedTouchLoadsWhatTheLockedOneDoesAndChangesNothing(int longs) {
        try (Arena arena = Arena.ofConfined()) {
            long bytes = FrequencySketch.bytesFor(longs);
            long offset = 4096;
            MemorySegment region = arena.allocate(offset + bytes, 8);
            FrequencySketch sketch = new FrequencySketch(region);
            sketch.attach(offset, longs);
            SplittableRandom random = new SplittableRandom(longs);
            for (int i = 0; i < 2_000; i++) {
                sketch.increment(random.nextInt());
            }
            MemorySegment before = arena.allocate(region.byteSize());
            before.copyFrom(region);
            for (int i = 0; i < 20_000; i++) {
                int hash = random.nextInt();
                assertThat(sketch.touchUnlocked(hash)).isEqualTo(sketch.touch(hash));
            }
            assertThat(region.mismatch(before)).isEqualTo(-1L);
        }
    }
}
