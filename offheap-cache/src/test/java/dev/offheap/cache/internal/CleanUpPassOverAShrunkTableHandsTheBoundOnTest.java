package dev.offheap.cache.internal;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A clean-up pass that owns a segment's deadline bound and whose cursor lies past the table's end when it
 * comes back for its next batch (the segment was cleared between two batches, and its table started over
 * at its smallest) ends as a pass that reached the end: it raises the bound and gives it up. It returned
 * while still owning it, so no later pass ever owned the bound again: the bound stayed as low as the
 * segment's earliest deadline ever was, and every later clean-up walked the whole segment though no
 * deadline had come, where {@code OffHeapCache.cleanUp()} promises to skip it.
 */
class CleanUpPassOverAShrunkTableHandsTheBoundOnTest {
    private static final int BATCH = 1024;

    @Test
    void aPassStoppedByAShrunkTableStillLetsALaterPassRaiseTheBound() {
        try (Arena arena = Arena.ofConfined()) {
            Shard shard = new Shard(arena.allocate(8L << 20, 8), false, false, 1 << 16, new StatsCounter(false),
                    "shrunk-mid-pass", LockHolds.reserveIds(1));
            // one entry due at 100 ms and 3,000 due at 1,000 ms: the table grows past one batch of buckets
            insert(shard, 0, 100);
            for (int k = 1; k <= 3_000; k++) {
                insert(shard, k, 1_000);
            }

            // a pass at 200 ms begins (it owns the bound) and stops after its first batch, as a clean-up does
            // while it tells the removal listener
            Object first = new Object();
            assertThat(expire(shard, 0, BATCH, 200, first)).as("more buckets to come").isEqualTo(BATCH);
            // meanwhile the segment is cleared (invalidateAll of a cache without listener or statistics):
            // its table starts over at 64 buckets, behind the pass's cursor
            long stamp = shard.lockWrite();
            try {
                shard.clearLocked(Removals.NONE);
            } finally {
                shard.unlockWrite(stamp);
            }
            assertThat(expire(shard, BATCH, BATCH, 200, first)).as("the pass is at the end").isEqualTo(-1);

            // new entries, due at 5,000 ms
            for (int k = 10_000; k < 10_100; k++) {
                insert(shard, k, 5_000);
            }
            // a full pass at 1,500 ms finds nothing due and raises the bound to 5,000 ms
            Object second = new Object();
            int next = 0;
            do {
                next = expire(shard, next, BATCH, 1_500, second);
            } while (next >= 0);
            assertThat(shard.sizes()[0]).isEqualTo(100);

            // so a pass at 2,000 ms has nothing to look at: skipped at once, not walked bucket by bucket
            assertThat(expire(shard, 0, 1, 2_000, new Object())).as("skipped before its first bucket").isEqualTo(-1);
            // and once the deadlines have come, a pass finds every entry
            next = 0;
            Object last = new Object();
            do {
                next = expire(shard, next, BATCH, 5_000, last);
            } while (next >= 0);
            assertThat(shard.sizes()[0]).isZero();
        }
    }

    private static int expire(Shard shard, int from, int buckets, long nowMillis, Object pass) {
        long stamp = shard.lockWrite();
        try {
            return shard.expireBucketsLocked(from, buckets, nowMillis, new Removals(false, nowMillis), pass);
        } finally {
            shard.unlockWrite(stamp);
        }
    }

    private static void insert(Shard shard, long key, long deadlineMillis) {
        byte[] k = ByteBuffer.allocate(Long.BYTES).putLong(key).array();
        long stamp = shard.lockWrite();
        try {
            boolean stored = shard.insertLocked(Hashing.hash(k), k, MemorySegment.ofArray(new byte[10]),
                    Deadlines.encode(deadlineMillis), Deadlines.NEVER, false, Removals.NONE);
            assertThat(stored).isTrue();
        } finally {
            shard.unlockWrite(stamp);
        }
    }
}
