package dev.offheap.bench.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Cache;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.junit.jupiter.api.Test;

/** The baselines are built as the benchmarks need them: every key kept, values copied in and out. */
class CachesTest {

    @Test
    void ohcKeepsEveryKeyOfAWorkloadAndCopiesValues() throws Exception {
        Workload w = Workload.parse("500x1000");
        for (Eviction eviction : new Eviction[] {Eviction.LRU, Eviction.W_TINY_LFU}) {
            try (OHCache<Long, byte[]> ohc = CacheStates.filledOhc(w, eviction)) {
                assertThat(ohc.size()).isEqualTo(500);
                byte[] value = ohc.get(w.keys[3]);
                assertThat(value).isEqualTo(w.initialValue(3)).isNotSameAs(w.initialValue(3));
            }
        }
    }

    @Test
    void caffeineWeighsValueBytes() {
        Cache<Long, byte[]> caffeine = Caches.caffeine(1_000, Runnable::run);
        for (long k = 0; k < 20; k++) {
            caffeine.put(k, new byte[100]);
        }
        caffeine.cleanUp();
        assertThat(caffeine.estimatedSize()).isEqualTo(10);
    }

    @Test
    void aCacheThatKeptTooFewEntriesFailsTheSetupWithCounts() {
        Workload w = Workload.parse("10x8");
        assertThatThrownBy(() -> CacheStates.requireAll("x", 9, w))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("x kept 9 of the 10 entries");
    }
}
