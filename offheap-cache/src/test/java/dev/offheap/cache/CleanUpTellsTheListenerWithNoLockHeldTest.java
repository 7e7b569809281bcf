package dev.offheap.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link OffHeapCache#cleanUp()} tells the removal listener after the cache's locks are released, as
 * {@link RemovalListener} promises: a listener may wait for another thread's {@code cleanUp()}. (It was
 * called under a lock that serialized clean-ups, so such a listener waited for good.) Clean-ups that run
 * at once each remove everything that had expired, and a later one still skips a segment with nothing due.
 */
class CleanUpTellsTheListenerWithNoLockHeldTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private CacheBuilder<Long, byte[]> builder() {
        return OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays()).capacity(64L << 20).clock(nanos::get)
                .expireAfterWrite(Duration.ofSeconds(10));
    }

    @Test
    @Timeout(60)
    void aListenerMayWaitForACleanUpOfAnotherThread() throws Exception {
        AtomicBoolean waited = new AtomicBoolean();
        List<Long> expired = Collections.synchronizedList(new ArrayList<>());
        AtomicReference<OffHeapCache<Long, byte[]>> holder = new AtomicReference<>();
        try (OffHeapCache<Long, byte[]> cache = builder().concurrencyLevel(1).removalListener((k, v, cause) -> {
            expired.add(k);
            if (waited.compareAndSet(false, true)) {
                // the first removal waits for a clean-up on another thread, as a listener that hands
                // work to a pool which cleans the same cache would
                CompletableFuture<Void> other = CompletableFuture.runAsync(() -> holder.get().cleanUp(),
                        command -> Thread.ofPlatform().start(command));
                assertThat(other).succeedsWithin(Duration.ofSeconds(20));
            }
        }).build()) {
            holder.set(cache);
            for (long k = 0; k < 5_000; k++) {
                cache.put(k, new byte[10]);
            }
            nanos.addAndGet(Duration.ofSeconds(11).toNanos());
            cache.cleanUp();
            assertThat(waited).isTrue();
            assertThat(cache.size()).isZero();
            assertThat(expired).hasSize(5_000).doesNotHaveDuplicates();
            assertThat(cache.stats().expirationCount()).isEqualTo(5_000);
        }
    }

    @Test
    @Timeout(60)
    void cleanUpsAtOnceRemoveEverythingDueAndLeaveTheBoundRight() throws Exception {
        List<Long> expired = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch bothInside = new CountDownLatch(2);
        try (OffHeapCache<Long, byte[]> cache = builder().concurrencyLevel(1).removalListener((k, v, cause) -> {
            expired.add(k);
            // each clean-up's first batch waits here for the other's: the two passes overlap
            bothInside.countDown();
            try {
                bothInside.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).build()) {
            for (long k = 0; k < 20_000; k++) {
                cache.put(k, new byte[10]);
            }
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
            for (long k = 20_000; k < 25_000; k++) {
                cache.put(k, new byte[10]);
            }
            nanos.addAndGet(Duration.ofSeconds(5).toNanos());
            long due = cache.size() - 5_000; // the writes may have swept a few already
            expired.clear();

            Thread first = Thread.ofPlatform().start(cache::cleanUp);
            Thread second = Thread.ofPlatform().start(cache::cleanUp);
            first.join();
            second.join();
            assertThat(bothInside.getCount()).as("the two clean-ups ran at once").isZero();
            assertThat(cache.size()).isEqualTo(5_000);
            assertThat(expired).hasSize((int) due).doesNotHaveDuplicates().allMatch(k -> k < 20_000);

            // the pass that owned the bound raised it to the survivors' deadline: nothing is due now, and
            // once their time has come a clean-up finds them
            expired.clear();
            cache.cleanUp();
            assertThat(expired).isEmpty();
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
            cache.cleanUp();
            assertThat(expired).hasSize(5_000);
            assertThat(cache.size()).isZero();
        }
    }
}
