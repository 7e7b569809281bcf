package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writers race every kind of write (puts with and without a time to live, both replaces, putIfAbsent,
 * compute, merge, removes, invalidations, clean-ups, putAll) over a few hot keys that share chains and
 * many cold ones that make the table grow, with values whose sizes sometimes keep their block (written in
 * place) and sometimes do not (moved), in caches small enough to evict and with a clock the writers move;
 * readers read every way there is. Each value carries its key, a version and a checksum of its bytes, so a
 * reader can tell a value of another key or a torn one: no reader may ever see either, and a reader in
 * place must see its bytes stay as they are for as long as it holds them, writers waiting. Each case runs
 * until the readers have made 150,000 reads (the system property {@code racing.reads} asks for more, for a
 * longer run by hand).
 */
class RacingWritesNeverShowAForeignOrTornValueTest {
    private static final int HOT_KEYS = 24;
    private static final int COLD_KEYS = 4_000;

    @ParameterizedTest(name = "{0} capacity={1} segments={2} expiry={3}")
    @Timeout(60)
    @CsvSource({
            "W_TINY_LFU, 131072, 1, none",
            "LRU, 131072, 1, none",
            "W_TINY_LFU, 4194304, 1, none",
            "W_TINY_LFU, 196608, 2, write",
            "LRU, 4194304, 2, access",
            "W_TINY_LFU, 131072, 1, both",
    })
    void everyValueReadIsOneWrittenForItsKeyAndWhole(EvictionPolicy policy, long capacity, int segments, String expiry)
            throws Exception {
        AtomicLong nanos = new AtomicLong();
        CacheBuilder<Long, byte[]> builder = OffHeapCache.builder(Serializer.longs(), Serializer.byteArrays())
                .capacity(capacity).concurrencyLevel(segments).evictionPolicy(policy).clock(nanos::get)
                .removalListener((key, value, cause) -> {
                    String problem = problem(key, value);
                    if (problem != null) {
                        throw new AssertionError("the listener was told " + cause + " of " + problem);
                    }
                });
        if (expiry.equals("write") || expiry.equals("both")) {
            builder.expireAfterWrite(Duration.ofMillis(40));
        }
        if (expiry.equals("access") || expiry.equals("both")) {
            builder.expireAfterAccess(Duration.ofMillis(25));
        }
        try (OffHeapCache<Long, byte[]> cache = builder.build()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> problem = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong versions = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                boolean writer = t < 2;
                SplittableRandom random = new SplittableRandom(capacity * 31 + segments * 7L + t);
                threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    try {
                        while (!stop.get() && problem.get() == null) {
                            String seen = writer ? write(cache, random, versions, nanos) : read(cache, random);
                            if (seen != null) {
                                problem.compareAndSet(null, seen);
                            }
                            if (!writer) {
                                reads.incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (reads.get() < Long.getLong("racing.reads", 150_000) && problem.get() == null && failure.get() == null
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(Duration.ofSeconds(10));
                assertThat(thread.isAlive()).as("a thread still running 10 s after the stop: stuck").isFalse();
            }
            assertThat(failure.get()).isNull();
            assertThat(problem.get()).isNull();
            ((OffHeapCacheImpl<?, ?>) cache).verify();
            nanos.set(0); // nothing looks expired now: the iteration and the counts see every entry there is
            // an entry put with a time to live of its own in a cache that expires nothing else has 4 header bytes more
            int header = ((OffHeapCacheImpl<?, ?>) cache).headerBytes();
            long bytes = 0;
            long mostBytes = 0;
            long entries = 0;
            for (Iterator<Map.Entry<Long, byte[]>> it = cache.entries(); it.hasNext(); ) {
                Map.Entry<Long, byte[]> entry = it.next();
                assertThat(problem(entry.getKey(), entry.getValue())).isNull();
                bytes += (header + 8 + entry.getValue().length + 7) & ~7;
                mostBytes += (header + 4 + 8 + entry.getValue().length + 7) & ~7;
                entries++;
            }
            assertThat(cache.size()).isEqualTo(entries);
            assertThat(cache.weightedSize()).isBetween(bytes, expiry.equals("none") ? mostBytes : bytes);
            assertThat(((OffHeapCacheImpl<?, ?>) cache).usedBytes()).isLessThanOrEqualTo(capacity);
        }
    }

    private static long key(SplittableRandom random) {
        return random.nextInt(3) == 0 ? 1_000_000L + random.nextInt(COLD_KEYS) : random.nextInt(HOT_KEYS);
    }

    /** @return one write of a random kind; null, or what was wrong with a value it was handed back */
    private static String write(OffHeapCache<Long, byte[]> cache, SplittableRandom random, AtomicLong versions,
                                AtomicLong nanos) {
        long key = key(random);
        byte[] value = value(key, versions.incrementAndGet(), random);
        Map<Long, byte[]> map = cache.asMap();
        switch (random.nextInt(20)) {
            case 0, 1, 2, 3 -> cache.put(key, value);
            case 4 -> cache.put(key, value, Duration.ofMillis(1 + random.nextInt(30)));
            case 5 -> {
                return problem(key, cache.replace(key, value));
            }
            case 6 -> {
                byte[] old = cache.getIfPresent(key);
                String seen = problem(key, old);
                if (seen == null && old != null) {
                    cache.replace(key, old, value);
                }
                return seen;
            }
            case 7 -> {
                return problem(key, cache.putIfAbsent(key, value));
            }
            case 8 -> {
                String[] seen = new String[1];
                byte[] result = cache.compute(key, (k, old) -> {
                    seen[0] = problem(k, old);
                    return random.nextInt(4) == 0 ? null : value;
                });
                return seen[0] != null ? seen[0] : problem(key, result);
            }
            case 9 -> {
                String[] seen = new String[1];
                byte[] result = cache.asMap().merge(key, value, (old, given) -> {
                    seen[0] = problem(key, old);
                    return old.length % 2 == 0 ? given : null;
                });
                return seen[0] != null ? seen[0] : problem(key, result);
            }
            case 10 -> {
                return problem(key, cache.remove(key));
            }
            case 11 -> {
                byte[] old = cache.getIfPresent(key);
                String seen = problem(key, old);
                if (seen == null && old != null) {
                    map.remove(key, old);
                }
                return seen;
            }
            case 12 -> cache.invalidate(key);
            case 13 -> {
                Map<Long, byte[]> some = new LinkedHashMap<>();
                for (int i = 0; i < 4; i++) {
                    long k = key(random);
                    some.put(k, value(k, versions.incrementAndGet(), random));
                }
                cache.putAll(some);
            }
            case 14 -> {
                if (random.nextInt(200) == 0) {
                    cache.invalidateAll();
                } else if (random.nextInt(20) == 0) {
                    cache.cleanUp();
                }
            }
            default -> nanos.addAndGet(random.nextInt(2_000_000));
        }
        return null;
    }

    /** @return one read of a random kind; null, or what was wrong with what it saw */
    private static String read(OffHeapCache<Long, byte[]> cache, SplittableRandom random) {
        long key = key(random);
        switch (random.nextInt(8)) {
            case 0, 1 -> {
                return problem(key, cache.getIfPresent(key));
            }
            case 2, 3 -> {
                String seen = cache.read(key, segment -> {
                    String first = problem(key, segment);
                    if (first != null) {
                        return first;
                    }
                    long checksum = segment.get(ValueLayout.JAVA_INT_UNALIGNED, segment.byteSize() - 4);
                    // hold the bytes a while, writers of the segment waiting: they must not change meanwhile
                    for (int i = 0; i < 200; i++) {
                        Thread.onSpinWait();
                    }
                    String second = problem(key, segment);
                    return second != null ? "after a wait: " + second
                            : checksum != segment.get(ValueLayout.JAVA_INT_UNALIGNED, segment.byteSize() - 4)
                            ? "key " + key + ": the value changed under its reader" : null;
                });
                return seen;
            }
            case 4 -> {
                return cache.readQuietly(key, segment -> problem(key, segment));
            }
            case 5 -> {
                Map<Long, byte[]> all = cache.getAllPresent(List.of(key, key + 1, key + 2, key(random)));
                for (Map.Entry<Long, byte[]> entry : all.entrySet()) {
                    String seen = problem(entry.getKey(), entry.getValue());
                    if (seen != null) {
                        return seen;
                    }
                }
                return null;
            }
            case 6 -> {
                return problem(key, cache.asMap().get(key));
            }
            default -> {
                boolean present = cache.containsKey(key);
                return present || random.nextInt(4) != 0 ? null : problem(key, cache.getIfPresent(key));
            }
        }
    }

    /**
     * A value: its key (8 bytes), its version (8), filler bytes that depend on both, then a CRC32 of all
     * the bytes before it (4). Lengths mostly keep an entry's block (20 to 27 bytes), or move it (a few
     * hundred, a couple of thousand, or up to near the largest entry a small cache takes, which empties its
     * segment).
     */
    static byte[] value(long key, long version, SplittableRandom random) {
        int choice = random.nextInt(40);
        int length = choice < 24 ? 20 + random.nextInt(8) : choice < 36 ? 200 + random.nextInt(300)
                : choice < 39 ? 1500 + random.nextInt(800) : 5000 + random.nextInt(2900);
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(key).putLong(version);
        while (buffer.position() < length - 4) {
            buffer.put((byte) (key * 31 + version + buffer.position()));
        }
        CRC32 crc = new CRC32();
        crc.update(buffer.array(), 0, length - 4);
        buffer.putInt((int) crc.getValue());
        return buffer.array();
    }

    /** @return null if {@code value} is null or a whole value of {@code key}, else what is wrong with it */
    static String problem(long key, byte[] value) {
        return value == null ? null : problem(key, MemorySegment.ofArray(value));
    }

    static String problem(long key, MemorySegment value) {
        long length = value.byteSize();
        if (length < 20) {
            return "key " + key + ": a value of " + length + " bytes";
        }
        long owner = value.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (owner != key) {
            return "key " + key + ": the value of key " + owner;
        }
        byte[] bytes = value.asSlice(0, length - 4).toArray(ValueLayout.JAVA_BYTE);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        int stored = value.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), length - 4);
        return stored == (int) crc.getValue() ? null : "key " + key + ": a torn value of " + length + " bytes";
    }
}
