package dev.offheap.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link OffHeapCache#readOrLoad}: read in place, loading once per key on a miss; and puts of values large
 * enough to be staged in native memory, which must store the same bytes and reject the same mistakes as
 * small ones.
 */
class ReadOrLoadTest {

    private static OffHeapCache<Long, MemorySegment> segmentCache(long capacity) {
        return OffHeapCache.builder(Serializer.longs(), Serializer.segments()).capacity(capacity).build();
    }

    private static byte[] pattern(long key, int size) {
        byte[] bytes = new byte[size];
        new SplittableRandom(key).nextBytes(bytes);
        return bytes;
    }

    private static byte[] bytesOf(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void aMissLoadsOnceAndTheReaderSeesTheStoredBytes() {
        try (OffHeapCache<Long, MemorySegment> cache = segmentCache(8 << 20);
             Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(100_000);
            AtomicInteger loads = new AtomicInteger();
            byte[] expected = pattern(7, 100_000);
            byte[] first = cache.readOrLoad(7L, k -> {
                loads.incrementAndGet();
                MemorySegment.copy(expected, 0, buffer, ValueLayout.JAVA_BYTE, 0, expected.length);
                return buffer;
            }, ReadOrLoadTest::bytesOf);
            // the loader's buffer is the thread's own and reused: overwriting it must not change the cached value
            buffer.fill((byte) 0);
            byte[] second = cache.readOrLoad(7L, k -> {
                loads.incrementAndGet();
                return buffer;
            }, ReadOrLoadTest::bytesOf);
            assertThat(first).isEqualTo(expected);
            assertThat(second).isEqualTo(expected);
            assertThat(loads).hasValue(1);
            CacheStats stats = cache.stats();
            assertThat(stats.missCount()).isEqualTo(1);
            assertThat(stats.hitCount()).isEqualTo(1);
            assertThat(stats.loadSuccessCount()).isEqualTo(1);
        }
    }

    @Test
    void theReadersNullResultIsReturnedNotMistakenForAMiss() {
        try (OffHeapCache<Long, MemorySegment> cache = segmentCache(1 << 20)) {
            AtomicInteger loads = new AtomicInteger();
            for (int i = 0; i < 3; i++) {
                Object result = cache.readOrLoad(1L, k -> {
                    loads.incrementAndGet();
                    return MemorySegment.ofArray(new byte[] {1, 2, 3});
                }, segment -> null);
                assertThat(result).isNull();
            }
            assertThat(loads).hasValue(1);
        }
    }

    @Test
    void concurrentCallersShareOneLoadAndEachReadsTheStoredValue() throws Exception {
        try (OffHeapCache<Long, MemorySegment> cache = segmentCache(8 << 20)) {
            AtomicInteger loads = new AtomicInteger();
            CountDownLatch release = new CountDownLatch(1);
            int callers = 6;
            CyclicBarrier ready = new CyclicBarrier(callers);
            byte[] expected = pattern(3, 50_000);
            List<Object> results = Collections.synchronizedList(new ArrayList<>());
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    // each thread's buffer is confined to it: a waiter that touched the loader's buffer would throw
                    try (Arena own = Arena.ofConfined()) {
                        ready.await();
                        results.add(cache.readOrLoad(3L, k -> {
                            loads.incrementAndGet();
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                            return own.allocateFrom(ValueLayout.JAVA_BYTE, expected);
                        }, ReadOrLoadTest::bytesOf));
                    } catch (Exception e) {
                        results.add(e);
                    }
                }));
            }
            Thread.sleep(100);
            release.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(results).hasSize(callers);
            for (Object result : results) {
                assertThat(result).isInstanceOf(byte[].class);
                assertThat((byte[]) result).isEqualTo(expected);
            }
            assertThat(loads).hasValue(1);
        }
    }

    @Test
    void aLoaderFailureReachesTheCallerAndNothingIsStored() {
        try (OffHeapCache<Long, MemorySegment> cache = segmentCache(1 << 20)) {
            assertThatThrownBy(() -> cache.readOrLoad(5L, k -> {
                throw new UnsupportedOperationException("store down");
            }, ReadOrLoadTest::bytesOf))
                    .isInstanceOf(CacheLoadException.class)
                    .hasMessageContaining("store down");
            assertThatThrownBy(() -> cache.readOrLoad(5L, k -> null, ReadOrLoadTest::bytesOf))
                    .isInstanceOf(CacheLoadException.class)
                    .hasMessageContaining("returned null");
            assertThat(cache.containsKey(5L)).isFalse();
            assertThat(cache.stats().loadFailureCount()).isEqualTo(2);
        }
    }

    @Test
    void aLoadedValueOverTheEntryLimitIsRefusedAndNotStored() {
        try (OffHeapCache<Long, MemorySegment> cache = OffHeapCache.builder(Serializer.longs(), Serializer.segments())
                .capacity(1 << 20).maxEntryBytes(4096).build()) {
            assertThatThrownBy(() -> cache.readOrLoad(9L, k -> MemorySegment.ofArray(new byte[8192]),
                    ReadOrLoadTest::bytesOf))
                    .isInstanceOf(ValueTooLargeException.class);
            assertThat(cache.containsKey(9L)).isFalse();
        }
    }

    @Test
    void aTinyCacheUnderChurnStillGivesEveryCallerItsOwnKeysBytes() throws Exception {
        // 256 KiB of capacity for 32 keys of 12 KB values: threads evict each other's entries between load and
        // read, which exercises the transient read and the waiters' retry
        try (OffHeapCache<Long, MemorySegment> cache = segmentCache(256 * 1024)) {
            int threads = 4;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                workers.add(Thread.ofPlatform().start(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    try (Arena own = Arena.ofConfined()) {
                        MemorySegment buffer = own.allocate(12_000);
                        for (int i = 0; i < 2_000 && failure.get() == null; i++) {
                            long key = random.nextInt(32);
                            byte[] got = cache.readOrLoad(key, k -> {
                                MemorySegment.copy(pattern(k, 12_000), 0, buffer, ValueLayout.JAVA_BYTE, 0, 12_000);
                                return buffer;
                            }, ReadOrLoadTest::bytesOf);
                            if (!Arrays.equals(got, pattern(key, 12_000))) {
                                throw new AssertionError("key " + key + " read another key's bytes");
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(cache.stats().evictionCount()).isPositive();
        }
    }

    /**
     * The transient read, made to happen every time: storing the loaded value evicts another entry, and the
     * removal listener, which runs on the storing thread before readOrLoad reads, removes the loaded key
     * itself. The reader must still see the loaded bytes, through memory of its call only, and the loaded
     * key must stay absent.
     */
    @Test
    void aLoadedValueGoneBeforeItsReadIsReadFromTheLoadersBytes() {
        long loadedKey = 1_000;
        AtomicReference<OffHeapCache<Long, MemorySegment>> self = new AtomicReference<>();
        AtomicInteger evictions = new AtomicInteger();
        try (OffHeapCache<Long, MemorySegment> cache = OffHeapCache.builder(Serializer.longs(), Serializer.segments())
                .capacity(256 * 1024)
                .removalListener((Long key, MemorySegment value, RemovalCause cause) -> {
                    if (cause == RemovalCause.SIZE) {
                        evictions.incrementAndGet();
                        self.get().invalidate(loadedKey);
                    }
                })
                .build();
             Arena arena = Arena.ofConfined()) {
            self.set(cache);
            MemorySegment buffer = arena.allocate(12_000);
            // fill the cache until it evicts, so that the next insert evicts too
            for (long key = 0; evictions.get() == 0; key++) {
                assertThat(key).as("the cache never evicted").isLessThan(1_000);
                MemorySegment.copy(pattern(key, 12_000), 0, buffer, ValueLayout.JAVA_BYTE, 0, 12_000);
                cache.put(key, buffer);
            }
            int evictedBefore = evictions.get();
            AtomicInteger loads = new AtomicInteger();
            AtomicReference<MemorySegment> seen = new AtomicReference<>();
            byte[] got = cache.readOrLoad(loadedKey, k -> {
                loads.incrementAndGet();
                MemorySegment.copy(pattern(k, 12_000), 0, buffer, ValueLayout.JAVA_BYTE, 0, 12_000);
                return buffer;
            }, segment -> {
                seen.set(segment);
                return bytesOf(segment);
            });
            assertThat(evictions.get()).as("storing the loaded value evicted").isGreaterThan(evictedBefore);
            assertThat(got).isEqualTo(pattern(loadedKey, 12_000));
            assertThat(loads).hasValue(1);
            assertThat(cache.containsKey(loadedKey)).isFalse();
            // the transient bytes were the call's own: read-only in the call, gone after it
            assertThat(seen.get().isReadOnly()).isTrue();
            assertThatThrownBy(() -> seen.get().get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            // and the loader's buffer, which its thread reuses, was not what the reader saw
            assertThat(seen.get().address()).isNotEqualTo(buffer.address());
        }
    }

    @Test
    void aClosedCacheRefusesReadOrLoad() {
        OffHeapCache<Long, MemorySegment> cache = segmentCache(1 << 20);
        cache.close();
        assertThatThrownBy(() -> cache.readOrLoad(1L, k -> MemorySegment.ofArray(new byte[1]), ReadOrLoadTest::bytesOf))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void nullArgumentsAreRejected() {
        try (OffHeapCache<Long, MemorySegment> cache = segmentCache(1 << 20)) {
            assertThatThrownBy(() -> cache.readOrLoad(1L, null, ReadOrLoadTest::bytesOf))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("loader");
            assertThatThrownBy(() -> cache.readOrLoad(1L, k -> MemorySegment.ofArray(new byte[1]), null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("reader");
        }
    }

    /** Sizes on both sides of the 16 KiB line between heap and native staging of a put. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 16 * 1024, 16 * 1024 + 1, 100_000, 300_000})
    void putsOfEverySizeStoreExactlyTheSerializedBytes(int size) {
        try (OffHeapCache<Long, String> cache = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                .capacity(8 << 20).build()) {
            String value = "x".repeat(size);
            cache.put(1L, value);
            assertThat(cache.get(1L, k -> "other")).isEqualTo(value);
            assertThat(cache.read(1L, MemorySegment::byteSize)).isEqualTo((long) size);
        }
    }

    /** A serializer that lies or keeps its target is caught for large (natively staged) values as for small. */
    @ParameterizedTest
    @ValueSource(ints = {100, 100_000})
    void lyingSerializersAreRejectedAndLeaveTheCacheIntact(int size) {
        AtomicReference<MemorySegment> kept = new AtomicReference<>();
        // declares one byte less than it writes, for values over 10 bytes
        Serializer<String> writesMore = latin1(value -> value.length() > 10 ? value.length() - 1 : value.length(),
                (value, target) -> copyLatin1(value, 0, value.length(), target));
        Serializer<String> keepsTarget = latin1(String::length, (value, target) -> {
            kept.set(target);
            copyLatin1(value, 0, value.length(), target);
        });
        String value = "y".repeat(size);
        try (OffHeapCache<Long, String> lying = OffHeapCache.builder(Serializer.longs(), writesMore)
                .capacity(8 << 20).build()) {
            lying.put(1L, "keep");
            assertThatThrownBy(() -> lying.put(2L, value))
                    .isInstanceOf(SerializationException.class).hasMessageContaining("wrote more");
            assertThat(lying.containsKey(2L)).isFalse();
            assertThat(lying.size()).isEqualTo(1);
        }
        try (OffHeapCache<Long, String> keeping = OffHeapCache.builder(Serializer.longs(), keepsTarget)
                .capacity(8 << 20).build()) {
            keeping.put(1L, value);
            keeping.put(2L, "z".repeat(size));
            // a kept target never reaches another entry's bytes: a heap-staged one is a dead array, a natively
            // staged one is closed
            if (kept.get().isNative()) {
                assertThatThrownBy(() -> kept.get().set(ValueLayout.JAVA_BYTE, 0, (byte) 'q'))
                        .isInstanceOf(IllegalStateException.class);
            } else {
                kept.get().set(ValueLayout.JAVA_BYTE, 0, (byte) 'q');
            }
            assertThat(keeping.getIfPresent(1L)).isEqualTo(value);
            assertThat(keeping.getIfPresent(2L)).isEqualTo("z".repeat(size));
        }
    }

    /**
     * Large values are staged in a buffer the thread reuses: a serializer that skips bytes it declared (all but
     * the last, whose omission is refused) leaves zeros, never the bytes of the value staged before it; and a put
     * made from inside a serializer
     * (which is writing into that buffer) stages elsewhere and leaves the outer value intact.
     */
    @Test
    void reusedStagingLeavesNoOldBytesAndSurvivesNestedPuts() {
        int size = 50_000;
        Serializer<byte[]> writesHalf = new Serializer<>() {
            @Override
            public int serializedSize(byte[] value) {
                return value.length;
            }

            @Override
            public void write(byte[] value, MemorySegment target) {
                MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, 0, value.length / 2);
                target.set(ValueLayout.JAVA_BYTE, value.length - 1, value[value.length - 1]);
            }

            @Override
            public byte[] read(MemorySegment source) {
                return source.toArray(ValueLayout.JAVA_BYTE);
            }
        };
        try (OffHeapCache<Long, String> full = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                .capacity(8 << 20).build();
             OffHeapCache<Long, byte[]> half = OffHeapCache.builder(Serializer.longs(), writesHalf)
                     .capacity(8 << 20).build()) {
            full.put(1L, "z".repeat(size));
            byte[] ones = new byte[size];
            java.util.Arrays.fill(ones, (byte) 1);
            half.put(2L, ones);
            byte[] stored = half.getIfPresent(2L);
            assertThat(stored).hasSize(size);
            assertThat(java.util.Arrays.copyOfRange(stored, 0, size / 2)).containsOnly((byte) 1);
            assertThat(java.util.Arrays.copyOfRange(stored, size / 2, size - 1)).containsOnly((byte) 0);
            assertThat(stored[size - 1]).isEqualTo((byte) 1);

            Serializer<String> nests = latin1(String::length, (value, target) -> {
                copyLatin1(value, 0, value.length() / 2, target);
                full.put(3L, "n".repeat(size));  // stages while this thread's buffer is in use
                copyLatin1(value, value.length() / 2, value.length() - value.length() / 2, target);
            });
            try (OffHeapCache<Long, String> outer = OffHeapCache.builder(Serializer.longs(), nests)
                    .capacity(8 << 20).build()) {
                String value = "a".repeat(size / 2) + "b".repeat(size / 2);
                outer.put(4L, value);
                assertThat(outer.getIfPresent(4L)).isEqualTo(value);
                assertThat(full.getIfPresent(3L)).isEqualTo("n".repeat(size));
                assertThat(full.getIfPresent(1L)).isEqualTo("z".repeat(size));
            }
        }
    }

    /** A one-byte-per-character serializer with the given declared size and write. */
    private static Serializer<String> latin1(ToIntFunction<String> size, BiConsumer<String, MemorySegment> write) {
        return new Serializer<>() {
            @Override
            public int serializedSize(String value) {
                return size.applyAsInt(value);
            }

            @Override
            public void write(String value, MemorySegment target) {
                write.accept(value, target);
            }

            @Override
            public String read(MemorySegment source) {
                return new String(source.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1);
            }
        };
    }

    /** Copies {@code length} characters of {@code value} from {@code from} to the same offset of {@code target}. */
    private static void copyLatin1(String value, int from, int length, MemorySegment target) {
        MemorySegment.copy(value.getBytes(StandardCharsets.ISO_8859_1), from, target, ValueLayout.JAVA_BYTE, from, length);
    }
}
