package dev.offheap.bench.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeyStreamTest {

    @Test
    void streamsAreTheSameEveryTime() {
        assertThat(KeyStream.of("zipf", 10_000, 1_000)).isEqualTo(KeyStream.of("zipf", 10_000, 1_000));
        assertThat(KeyStream.of("scan", 30_000, 1_000)).isEqualTo(KeyStream.of("scan", 30_000, 1_000));
    }

    @Test
    void zipfFavoursTheFirstKeysAndStaysInTheKeyspace() {
        int[] stream = KeyStream.of("zipf", 100_000, 10_000);
        assertThat(Arrays.stream(stream).min().orElseThrow()).isGreaterThanOrEqualTo(0);
        assertThat(Arrays.stream(stream).max().orElseThrow()).isLessThan(10_000);
        long first = Arrays.stream(stream).filter(i -> i == 0).count();
        long hundredth = Arrays.stream(stream).filter(i -> i == 99).count();
        // 1 / 100^0.9 = 1/63: the most popular key is drawn tens of times as often as the hundredth
        assertThat(first).isGreaterThan(hundredth * 30);
    }

    @Test
    void scansAreHalfTheStreamAndNeverRepeatAKey() {
        int keyspace = 1_000;
        int[] stream = KeyStream.of("scan", 40_000, keyspace);
        int[] scanned = Arrays.stream(stream).filter(i -> i >= keyspace).toArray();
        assertThat(scanned).hasSize(20_000);
        Set<Integer> distinct = new HashSet<>();
        Arrays.stream(scanned).forEach(distinct::add);
        assertThat(distinct).hasSize(scanned.length);
        assertThat(Arrays.stream(stream).max().orElseThrow())
                .isLessThan(KeyStream.keysNeeded("scan", 40_000, keyspace));
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> KeyStream.of("loop", 10, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'loop'");
        assertThatThrownBy(() -> KeyStream.of("zipf", 0, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 and 10");
    }
}
