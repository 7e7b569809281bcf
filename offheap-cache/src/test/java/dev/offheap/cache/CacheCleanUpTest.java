package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link OffHeapCache#cleanUp()} and {@link CacheBuilder#cleanUpInterval}: expired entries leave without writes. */
class CacheCleanUpTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private CacheBuilder<Long, byte[]> builder() {
        return OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays()).capacity(64L << 20).clock(nanos::get);
    }

    @Test
    void removesEveryExpiredEntryOfAnIdleCacheAndKeepsTheLiveOnes() {
        List<Long> expired = Collections.synchronizedList(new ArrayList<>());
        try (OffHeapCache<Long, byte[]> cache = builder().expireAfterWrite(Duration.ofSeconds(10)).concurrencyLevel(8)
                .removalListener((k, v, cause) -> {
                    assertThat(cause).isEqualTo(RemovalCause.EXPIRED);
                    assertThat(v).hasSize(100);
                    expired.add(k);
                }).build()) {
            OffHeapCacheImpl<?, ?> impl = (OffHeapCacheImpl<?, ?>) cache;
            long emptyBytes = impl.usedBytes();
            // enough entries for the tables to grow past one clean-up batch of buckets per segment
            for (long k = 0; k < 40_000; k++) {
                cache.put(k, new byte[100]);
            }
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
            for (long k = 40_000; k < 50_000; k++) {
                cache.put(k, new byte[100]);
            }
            nanos.addAndGet(Duration.ofSeconds(5).toNanos());
            expired.clear(); // the writes above swept some heads already; the rest is cleanUp's
            long sizeBefore = cache.size();
            assertThat(sizeBefore).as("expired entries wait, invisible").isGreaterThan(10_000);

            cache.cleanUp();

            assertThat(cache.size()).isEqualTo(10_000);
            assertThat(expired).hasSize((int) (sizeBefore - 10_000)).allMatch(k -> k < 40_000);
            assertThat(cache.stats().expirationCount()).isEqualTo(40_000);
            assertThat(cache.weightedSize()).isEqualTo(10_000L * ((impl.headerBytes() + 8 + 100 + 7) & ~7));
            for (long k = 40_000; k < 50_000; k++) {
                assertThat(cache.getIfPresent(k)).hasSize(100);
            }
            assertThat(impl.usedBytes()).as("the entries' memory is free again")
                    .isLessThan(emptyBytes + 10_000L * 256 + (4L << 20));
            impl.verify();
        }
    }

    @Test
    void removesEntriesWithATimeToLiveOfTheirOwnAndLeavesEntriesThatNeverExpire() {
        try (OffHeapCache<Long, byte[]> cache = builder().build()) {
            for (long k = 0; k < 1000; k++) {
                if (k % 2 == 0) {
                    cache.put(k, new byte[10], Duration.ofMillis(50));
                } else {
                    cache.put(k, new byte[10]);
                }
            }
            nanos.addAndGet(Duration.ofMillis(50).toNanos());
            cache.cleanUp();
            assertThat(cache.size()).isEqualTo(500);
            for (long k = 1; k < 1000; k += 2) {
                assertThat(cache.containsKey(k)).isTrue();
            }
        }
    }

    /**
     * A clean-up skips a segment until the earliest deadline it knows of has come: entries written after
     * a pass with earlier deadlines than the ones it kept, and entries it kept, must still go when due.
     */
    @Test
    void theEarliestDeadlineASegmentKnowsOfFollowsItsEntries() {
        try (OffHeapCache<Long, byte[]> cache = builder().expireAfterWrite(Duration.ofSeconds(100)).concurrencyLevel(1)
                .build()) {
            for (long k = 0; k < 100; k++) {
                cache.put(k, new byte[10]);
            }
            cache.cleanUp(); // nothing due: the segment's bound is the entries' deadline, 100 s from now
            cache.put(1000L, new byte[10], Duration.ofSeconds(1)); // earlier than the bound
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            cache.cleanUp();
            assertThat(cache.containsKey(1000L)).isFalse();
            assertThat(cache.size()).isEqualTo(100);
            nanos.addAndGet(Duration.ofSeconds(50).toNanos());
            for (long k = 200; k < 300; k++) {
                cache.put(k, new byte[10]); // due 150 s after the start
            }
            nanos.addAndGet(Duration.ofSeconds(50).toNanos()); // 102 s: the first hundred are due
            cache.cleanUp();
            assertThat(cache.size()).isEqualTo(100);
            assertThat(cache.containsKey(250L)).isTrue();
            nanos.addAndGet(Duration.ofSeconds(50).toNanos());
            cache.cleanUp(); // the pass before kept them and knows when they are due
            assertThat(cache.size()).isZero();
        }
    }

    @Test
    void readsThatMoveAccessDeadlinesLaterKeepTheBoundSafe() {
        try (OffHeapCache<Long, byte[]> cache = builder().expireAfterAccess(Duration.ofSeconds(10)).concurrencyLevel(1)
                .build()) {
            cache.put(1L, new byte[10]);
            cache.put(2L, new byte[10]);
            cache.cleanUp();
            nanos.addAndGet(Duration.ofSeconds(8).toNanos());
            assertThat(cache.getIfPresent(1L)).isNotNull(); // due 18 s after the start now
            nanos.addAndGet(Duration.ofSeconds(3).toNanos());
            cache.cleanUp(); // 11 s: 2 is due, 1 is not
            assertThat(cache.containsKey(1L)).isTrue();
            assertThat(cache.size()).isEqualTo(1);
            nanos.addAndGet(Duration.ofSeconds(8).toNanos());
            cache.cleanUp();
            assertThat(cache.size()).isZero();
        }
    }

    @Test
    void withoutExpiryItRemovesNothing() {
        try (OffHeapCache<Long, byte[]> cache = builder().build()) {
            for (long k = 0; k < 1000; k++) {
                cache.put(k, new byte[10]);
                cache.getIfPresent(k);
            }
            nanos.addAndGet(Duration.ofDays(365).toNanos());
            cache.cleanUp();
            assertThat(cache.size()).isEqualTo(1000);
        }
    }

    @Test
    void throwsOnceClosed() {
        OffHeapCache<Long, byte[]> cache = builder().build();
        cache.close();
        assertThatThrownBy(cache::cleanUp).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aCleanUpIntervalRemovesExpiredEntriesWithoutAnyCall() throws InterruptedException {
        Set<Long> expired = Collections.synchronizedSet(new HashSet<>());
        try (OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(16L << 20).expireAfterWrite(Duration.ofMillis(50)).cleanUpInterval(Duration.ofMillis(20))
                .removalListener((k, v, cause) -> {
                    if (cause == RemovalCause.EXPIRED) {
                        expired.add(k);
                    }
                }).build()) {
            for (long k = 0; k < 1000; k++) {
                cache.put(k, new byte[10]);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cache.size() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(cache.size()).isZero();
            assertThat(expired).hasSize(1000);
        }
    }

    @Test
    void closingACacheCancelsItsRunsOnTheApplicationsExecutor() throws InterruptedException {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
        executor.setRemoveOnCancelPolicy(true);
        try {
            OffHeapCache<Long, byte[]> cache = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                    .capacity(1 << 20).expireAfterWrite(Duration.ofMillis(1))
                    .cleanUpInterval(Duration.ofMillis(5), executor).build();
            assertThat(executor.getQueue()).hasSize(1);
            cache.put(1L, new byte[1]);
            Thread.sleep(30);
            assertThat(cache.size()).as("the runs went on").isZero();
            cache.close();
            assertThat(executor.getQueue()).as("cancelled by close").isEmpty();
            assertThat(executor.isShutdown()).as("the application's executor is its own").isFalse();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        CacheBuilder<Long, byte[]> b = builder();
        assertThatThrownBy(() -> b.cleanUpInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cleanUpInterval");
        assertThatThrownBy(() -> b.cleanUpInterval(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.cleanUpInterval(null)).isInstanceOf(NullPointerException.class);
    }
}
