package dev.offheap.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cache of strings on a clock the test moves, one segment, whose removal listener records every removal
 * as {@code key=value:CAUSE}, in order.
 */
abstract class ClockedRemovalsTestBase {
    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final List<String> removed = new ArrayList<>();

    void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    CacheBuilder<String, String> builder() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20).clock(nanos::get)
                .concurrencyLevel(1).removalListener((k, v, cause) -> removed.add(k + "=" + v + ":" + cause));
    }
}
