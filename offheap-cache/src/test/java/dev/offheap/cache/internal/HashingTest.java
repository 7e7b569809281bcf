package dev.offheap.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key hashes the same from its array (lookups) and from the region (table growth, the sketch of an
 * evicted entry): if the two differed, a key would be looked up in another bucket than it was moved to.
 */
class HashingTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 20_231_027})
    void theArrayAndTheSegmentHashOfAKeyAreEqualAtEveryLength(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = arena.allocate(128);
            for (int length = 0; length <= 64; length++) {
                byte[] key = new byte[length];
                for (int i = 0; i < length; i++) {
                    key[i] = (byte) random.nextInt();
                }
                // an odd offset, as keys in the region follow headers of any length
                long offset = 1 + random.nextInt(60);
                MemorySegment.copy(key, 0, region, ValueLayout.JAVA_BYTE, offset, length);
                long fromArray = Hashing.hash(key);
                assertThat(fromArray).as("length %d", length)
                        .isEqualTo(Hashing.hash(MemorySegment.ofArray(key), 0, length))
                        .isEqualTo(Hashing.hash(region, offset, length));
            }
        }
    }

    @ParameterizedTest(name = "{0}-byte keys")
    @ValueSource(ints = {1, 4, 8, 12, 16})
    void keysThatDifferInOneByteHashApart(int length) {
        Set<Long> hashes = new HashSet<>();
        int keys = 0;
        for (int position = 0; position < length; position++) {
            for (int value = 0; value < 256; value++) {
                byte[] key = new byte[length];
                key[position] = (byte) value;
                if (value == 0 && position > 0) {
                    continue; // the all-zero key, counted once
                }
                hashes.add(Hashing.hash(key));
                keys++;
            }
        }
        assertThat(hashes).hasSize(keys);
    }
}
