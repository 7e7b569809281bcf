package dev.offheap.cache;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.offheap.cache.internal.OffHeapCacheImpl;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Random sequences of operations on a cache that expires entries (after write, after access, both, or
 * per entry), on a clock the input moves, against a reference model that knows every entry's
 * deadlines. Every value the cache returns is the model's live value (an entry whose deadline has
 * come is absent), reads refresh the access deadline of entries without a time to live of their own,
 * every removal the listener reports as EXPIRED or SIZE is of the entry the model holds for that key
 * (EXPIRED only once its deadline has come, SIZE only before), the iterator shows exactly the live
 * entries, size and weighted size count them plus at most the expired ones not yet removed, and
 * {@link OffHeapCache#cleanUp()} removes every entry whose deadline has come.
 *
 * <p>During {@code ./mvnw verify} this runs in regression mode over the committed inputs in
 * {@code src/test/resources/dev/offheap/cache/CacheExpiryFuzzTestInputs}; with {@code JAZZER_FUZZ=1}
 * Jazzer generates new inputs, guided by coverage.
 */
class CacheExpiryFuzzTest {

    /** The model's entry; deadlines in milliseconds since the cache was built, 0 for none. */
    private static final class Entry {
        final byte[] value;
        final boolean fixedTtl;
        final int header;
        long deadline;
        final long writeDeadline;

        Entry(byte[] value, boolean fixedTtl, int header, long deadline, long writeDeadline) {
            this.value = value;
            this.fixedTtl = fixedTtl;
            this.header = header;
            this.deadline = deadline;
            this.writeDeadline = writeDeadline;
        }

        boolean expired(long now) {
            return deadline != 0 && deadline <= now || writeDeadline != 0 && writeDeadline <= now;
        }

        long bytes(int keyLength) {
            return (header + keyLength + value.length + 7) & ~7;
        }
    }

    private static final class Model {
        final Map<ByteBuffer, Entry> entries = new HashMap<>();
        final long afterWrite;
        final long afterAccess;
        final AtomicLong nowMillis = new AtomicLong();

        Model(long afterWrite, long afterAccess) {
            this.afterWrite = afterWrite;
            this.afterAccess = afterAccess;
        }

        long now() {
            return nowMillis.get();
        }

        /** @return the live entry of the key, or null if absent or expired */
        Entry live(ByteBuffer key) {
            Entry e = entries.get(key);
            return e == null || e.expired(now()) ? null : e;
        }

        byte[] liveValue(ByteBuffer key) {
            Entry e = live(key);
            return e == null ? null : e.value;
        }

        /** A read of a live entry moves its access deadline, unless it has a time to live of its own. */
        void read(ByteBuffer key) {
            Entry e = live(key);
            if (e != null && afterAccess > 0 && !e.fixedTtl) {
                e.deadline = now() + afterAccess;
            }
        }

        void write(ByteBuffer key, byte[] value, long ttl, int header) {
            long now = now();
            Entry e;
            if (ttl > 0) {
                e = new Entry(value, true, header, now + ttl, 0);
            } else if (afterAccess > 0) {
                e = new Entry(value, false, header, now + afterAccess, afterWrite > 0 ? now + afterWrite : 0);
            } else {
                e = new Entry(value, false, header, afterWrite > 0 ? now + afterWrite : 0, 0);
            }
            entries.put(key, e);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void operationsOnAnExpiringCacheMatchAReferenceModel(FuzzedDataProvider data) {
        int policy = data.consumeInt(0, 3);
        long afterWrite = policy == 0 || policy == 2 ? data.consumeLong(1, 200) : 0;
        long afterAccess = policy == 1 || policy == 2 ? data.consumeLong(1, 200) : 0;
        Model model = new Model(afterWrite, afterAccess);
        long capacity = data.consumeLong(8192, 1 << 16);
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        CacheBuilder<byte[], byte[]> builder = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(capacity)
                .evictionPolicy(data.consumeBoolean() ? EvictionPolicy.W_TINY_LFU : EvictionPolicy.LRU)
                .concurrencyLevel(data.consumeBoolean() ? 1 : 4)
                .clock(nanos::get)
                .removalListener((k, v, cause) -> {
                    ByteBuffer id = ByteBuffer.wrap(k);
                    Entry e = model.entries.get(id);
                    if (cause == RemovalCause.EXPIRED || cause == RemovalCause.SIZE) {
                        assertThat(e).as("%s removal of a key the model holds", cause).isNotNull();
                        assertThat(v).as("%s removal of the value last written", cause).isEqualTo(e.value);
                        assertThat(e.expired(model.now())).as("%s removal of an entry %s", cause,
                                cause == RemovalCause.EXPIRED ? "past its deadline" : "before its deadline")
                                .isEqualTo(cause == RemovalCause.EXPIRED);
                        model.entries.remove(id);
                    }
                });
        if (afterWrite > 0) {
            builder.expireAfterWrite(Duration.ofMillis(afterWrite));
        }
        if (afterAccess > 0) {
            builder.expireAfterAccess(Duration.ofMillis(afterAccess));
        }
        try (OffHeapCache<byte[], byte[]> cache = builder.build()) {
            OffHeapCacheImpl<?, ?> impl = (OffHeapCacheImpl<?, ?>) cache;
            int operations = 0;
            while (data.remainingBytes() > 0 && operations++ < 1000) {
                byte[] key = new byte[data.consumeInt(0, 3)];
                Arrays.fill(key, (byte) data.consumeInt(0, 7));
                ByteBuffer id = ByteBuffer.wrap(key);
                int op = data.consumeInt(0, 13);
                byte[] value = op <= 5 ? CacheFuzzTest.value(data, impl.maxEntryBytes()) : null;
                switch (op) {
                    case 0, 1 -> {
                        long ttl = data.consumeBoolean() ? data.consumeLong(1, 300) : 0;
                        int header = header(impl, ttl > 0);
                        boolean tooLarge = header + key.length + value.length > impl.maxEntryBytes();
                        try {
                            if (ttl > 0) {
                                cache.put(key, value, Duration.ofMillis(ttl));
                            } else {
                                cache.put(key, value);
                            }
                        } catch (ValueTooLargeException e) {
                            assertThat(tooLarge).as("refused as too large: %d + %d + %d bytes", header, key.length,
                                    value.length).isTrue();
                            continue;
                        }
                        assertThat(tooLarge).as("an entry over the limit was accepted").isFalse();
                        model.write(id, value, ttl, header);
                    }
                    case 2 -> {
                        if (CacheFuzzTest.tooLarge(impl, key, value)) {
                            continue;
                        }
                        byte[] present = cache.putIfAbsent(key, value);
                        assertThat(present).as("putIfAbsent").isEqualTo(model.liveValue(id));
                        if (present == null) {
                            model.write(id, value, 0, impl.headerBytes());
                        }
                    }
                    case 3 -> {
                        if (CacheFuzzTest.tooLarge(impl, key, value)) {
                            continue;
                        }
                        byte[] live = model.liveValue(id);
                        assertThat(cache.replace(key, value)).as("replace").isEqualTo(live);
                        if (live != null) {
                            model.write(id, value, 0, impl.headerBytes());
                        }
                    }
                    case 4 -> {
                        if (CacheFuzzTest.tooLarge(impl, key, value)) {
                            continue;
                        }
                        boolean remove = data.consumeBoolean();
                        byte[] result = cache.compute(key, (k, v) -> {
                            assertThat(v).as("compute sees the live value").isEqualTo(model.liveValue(id));
                            return remove ? null : value;
                        });
                        assertThat(result).isEqualTo(remove ? null : value);
                        if (remove) {
                            model.entries.remove(id);
                        } else {
                            model.write(id, value, 0, impl.headerBytes());
                        }
                    }
                    case 5 -> {
                        byte[] live = model.liveValue(id);
                        boolean matches = live != null && Arrays.equals(live, value);
                        assertThat(cache.remove(key, value)).isEqualTo(matches);
                        if (matches) {
                            model.entries.remove(id);
                        }
                    }
                    case 6 -> {
                        Integer length = cache.read(key, segment -> (int) segment.byteSize());
                        byte[] live = model.liveValue(id);
                        assertThat(length).as("read").isEqualTo(live == null ? null : live.length);
                        model.read(id);
                    }
                    case 7, 8 -> {
                        assertThat(cache.getIfPresent(key)).as("getIfPresent").isEqualTo(model.liveValue(id));
                        model.read(id);
                    }
                    case 9 -> assertThat(cache.containsKey(key)).as("containsKey").isEqualTo(model.live(id) != null);
                    case 10 -> {
                        byte[] live = model.liveValue(id);
                        assertThat(cache.remove(key)).as("remove").isEqualTo(live);
                        model.entries.remove(id);
                    }
                    case 11 -> {
                        cache.cleanUp();
                        // every entry whose deadline has come is gone (the listener told the model)
                        for (Map.Entry<ByteBuffer, Entry> e : model.entries.entrySet()) {
                            assertThat(e.getValue().expired(model.now())).as("left by cleanUp: %s", e.getKey()).isFalse();
                        }
                        assertThat(cache.size()).as("size after cleanUp").isEqualTo(model.entries.size());
                    }
                    default -> {
                        long step = data.consumeBoolean() ? data.consumeLong(0, 20) : data.consumeLong(0, 400);
                        model.nowMillis.addAndGet(step);
                        nanos.addAndGet(step * 1_000_000);
                    }
                }
            }
            assertMatches(cache, impl, model, capacity);
            assertThatThrownBy(() -> cache.put(new byte[1], new byte[1], Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** The header of an entry: a deadline field if it can expire, two if the cache expires after both. */
    private static int header(OffHeapCacheImpl<?, ?> impl, boolean ownTtl) {
        // an entry with a time to live of its own has a deadline field even where the cache has none
        return ownTtl && impl.headerBytes() == NO_DEADLINE_HEADER ? NO_DEADLINE_HEADER + Integer.BYTES : impl.headerBytes();
    }

    /** The header of an entry that never expires (RegionLayout's diagram: 20 bytes). */
    private static final int NO_DEADLINE_HEADER = 20;

    private static void assertMatches(OffHeapCache<byte[], byte[]> cache, OffHeapCacheImpl<?, ?> impl, Model model,
                                      long capacity) {
        impl.verify();
        Map<ByteBuffer, byte[]> contents = new HashMap<>();
        for (Iterator<Map.Entry<byte[], byte[]>> it = cache.entries(); it.hasNext(); ) {
            Map.Entry<byte[], byte[]> entry = it.next();
            contents.put(ByteBuffer.wrap(entry.getKey()), entry.getValue());
        }
        long liveCount = 0;
        long liveBytes = 0;
        long expiredCount = 0;
        long expiredBytes = 0;
        for (Map.Entry<ByteBuffer, Entry> e : model.entries.entrySet()) {
            long bytes = e.getValue().bytes(e.getKey().remaining());
            if (e.getValue().expired(model.now())) {
                expiredCount++;
                expiredBytes += bytes;
                assertThat(contents).as("an expired entry is not listed").doesNotContainKey(e.getKey());
            } else {
                liveCount++;
                liveBytes += bytes;
                byte[] listed = contents.get(e.getKey());
                if (listed == null || !Arrays.equals(listed, e.getValue().value)) {
                    fail("live entry %s lists as %s", e.getKey(), Arrays.toString(listed));
                }
            }
        }
        assertThat(contents).hasSize((int) liveCount);
        // entries whose deadline came stay counted until a write, an eviction or a sweep removes them
        assertThat(cache.size()).as("size").isBetween(liveCount, liveCount + expiredCount);
        assertThat(cache.weightedSize()).as("weighted size").isBetween(liveBytes, liveBytes + expiredBytes);
        assertThat(impl.usedBytes()).isLessThanOrEqualTo(capacity);
    }
}
