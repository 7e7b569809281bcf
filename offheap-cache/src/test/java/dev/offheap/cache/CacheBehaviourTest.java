package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What every configuration of the cache does the same: runs over {@link CacheConfigs#all()}. */
class CacheBehaviourTest {

    static List<CacheConfigs.Config> configs() {
        return CacheConfigs.all();
    }

    private static OffHeapCache<String, String> cache(CacheConfigs.Config config, long capacity) {
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(capacity).name("behaviour");
        config.accept(builder);
        return builder.build();
    }

    private static long entryBytes(OffHeapCache<?, ?> cache, String key, String value) {
        int header = ((OffHeapCacheImpl<?, ?>) cache).headerBytes();
        long raw = header + key.getBytes(StandardCharsets.UTF_8).length + value.getBytes(StandardCharsets.UTF_8).length;
        return (raw + 7) & ~7L;
    }

    private static void verify(OffHeapCache<?, ?> cache) {
        ((OffHeapCacheImpl<?, ?>) cache).verify();
    }

    @ParameterizedTest
    @MethodSource("configs")
    void putGetOverwriteRemove(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            assertThat(cache.getIfPresent("a")).isNull();
            cache.put("a", "alpha");
            cache.put("b", "");
            assertThat(cache.getIfPresent("a")).isEqualTo("alpha");
            assertThat(cache.getIfPresent("b")).isEmpty();
            cache.put("a", "alpha two");
            assertThat(cache.getIfPresent("a")).isEqualTo("alpha two");
            assertThat(cache.size()).isEqualTo(2);
            assertThat(cache.weightedSize()).isEqualTo(entryBytes(cache, "a", "alpha two") + entryBytes(cache, "b", ""));
            assertThat(cache.remove("a")).isEqualTo("alpha two");
            assertThat(cache.remove("a")).isNull();
            assertThat(cache.getIfPresent("a")).isNull();
            assertThat(cache.containsKey("b")).isTrue();
            assertThat(cache.containsKey("a")).isFalse();
            assertThat(cache.size()).isEqualTo(1);
            verify(cache);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void conditionalWrites(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            assertThat(cache.putIfAbsent("k", "v1")).isNull();
            assertThat(cache.putIfAbsent("k", "v2")).isEqualTo("v1");
            assertThat(cache.getIfPresent("k")).isEqualTo("v1");
            assertThat(cache.replace("absent", "x")).isNull();
            assertThat(cache.containsKey("absent")).isFalse();
            assertThat(cache.replace("k", "v3")).isEqualTo("v1");
            assertThat(cache.replace("k", "wrong", "v4")).isFalse();
            assertThat(cache.getIfPresent("k")).isEqualTo("v3");
            assertThat(cache.replace("k", "v3", "v4")).isTrue();
            assertThat(cache.getIfPresent("k")).isEqualTo("v4");
            assertThat(cache.remove("k", "v3")).isFalse();
            assertThat(cache.remove("k", "v4")).isTrue();
            assertThat(cache.containsKey("k")).isFalse();
            verify(cache);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void computeInsertsUpdatesAndRemoves(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            assertThat(cache.compute("c", (k, v) -> v == null ? "1" : v + "1")).isEqualTo("1");
            assertThat(cache.compute("c", (k, v) -> v == null ? "1" : v + "1")).isEqualTo("11");
            assertThat(cache.getIfPresent("c")).isEqualTo("11");
            assertThat(cache.compute("c", (k, v) -> null)).isNull();
            assertThat(cache.containsKey("c")).isFalse();
            assertThat(cache.compute("never", (k, v) -> null)).isNull();
            assertThat(cache.size()).isZero();
            verify(cache);
        }
    }

    /**
     * getAllPresent and getAll look keys up in batches (32 at a time, prefetched first): every batch
     * boundary, duplicates, absent keys, a bad key among good ones and the statistics must come out as
     * one lookup per key would give them.
     */
    @ParameterizedTest
    @MethodSource("configs")
    void bulkLookupsAcrossBatchBoundaries(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            for (int i = 0; i < 200; i += 2) {
                cache.put("key" + i, "value" + i);
            }
            cache.getIfPresent("key0");
            boolean statsOn = cache.stats().hitCount() == 1;
            for (int count : new int[] {0, 1, 31, 32, 33, 64, 65, 200}) {
                List<String> keys = new ArrayList<>();
                Map<String, String> expected = new HashMap<>();
                for (int i = 0; i < count; i++) {
                    int k = (i * 37) % 200;                   // present (even) and absent (odd) keys mixed
                    keys.add("key" + k);
                    if (k % 2 == 0) {
                        expected.put("key" + k, "value" + k);
                    }
                }
                if (count > 2) {
                    keys.add(keys.get(1));                   // a duplicate
                }
                long hitsBefore = cache.stats().hitCount();
                long missesBefore = cache.stats().missCount();
                Map<String, String> found = cache.getAllPresent(keys);
                assertThat(found).as("%d keys", count).isEqualTo(expected);
                long presentLookups = keys.stream().filter(k -> Integer.parseInt(k.substring(3)) % 2 == 0).count();
                if (statsOn) {
                    // one hit or miss per key asked for, duplicates included
                    assertThat(cache.stats().hitCount() - hitsBefore).isEqualTo(presentLookups);
                    assertThat(cache.stats().missCount() - missesBefore).isEqualTo(keys.size() - presentLookups);
                }
            }
            List<String> withNull = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                withNull.add("key" + i);
            }
            withNull.set(35, null);
            assertThatThrownBy(() -> cache.getAllPresent(withNull)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("key");
            assertThat(cache.size()).isEqualTo(100);
            verify(cache);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void bulkOperationsAndInvalidation(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            Map<String, String> map = new HashMap<>();
            for (int i = 0; i < 100; i++) {
                map.put("key" + i, "value" + i);
            }
            cache.putAll(map);
            assertThat(cache.size()).isEqualTo(100);
            assertThat(cache.getAllPresent(List.of("key1", "key2", "nope"))).containsOnly(
                    Map.entry("key1", "value1"), Map.entry("key2", "value2"));
            cache.invalidate("key1");
            assertThat(cache.containsKey("key1")).isFalse();
            assertThat(cache.size()).isEqualTo(99);
            cache.invalidateAll();
            assertThat(cache.size()).isZero();
            assertThat(cache.weightedSize()).isZero();
            assertThat(cache.getIfPresent("key2")).isNull();
            cache.put("after", "clear");
            assertThat(cache.getIfPresent("after")).isEqualTo("clear");
            verify(cache);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void iteratorsSeeEveryEntryOnceAndRemove(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            for (int i = 0; i < 500; i++) {
                cache.put("key" + i, "value" + i);
            }
            Set<String> seen = new HashSet<>();
            for (Iterator<String> keys = cache.keys(); keys.hasNext(); ) {
                String key = keys.next();
                assertThat(seen.add(key)).as("seen once: %s", key).isTrue();
                if (key.endsWith("7")) {
                    keys.remove();
                }
            }
            assertThat(seen).hasSize(500);
            assertThat(cache.size()).isEqualTo(450);
            Map<String, String> entries = new HashMap<>();
            for (Iterator<Map.Entry<String, String>> it = cache.entries(); it.hasNext(); ) {
                Map.Entry<String, String> entry = it.next();
                assertThat(entries.put(entry.getKey(), entry.getValue())).isNull();
            }
            assertThat(entries).hasSize(450).containsEntry("key1", "value1").doesNotContainKey("key7");
            verify(cache);
        }
    }

    /** Regression: the entry iterator looks ahead in hasNext(), and remove() used to remove the looked-ahead entry. */
    @ParameterizedTest
    @MethodSource("configs")
    void entryIteratorRemoveRemovesTheEntryNextReturnedEvenAfterHasNext(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            cache.put("a", "1");
            cache.put("b", "2");
            Iterator<Map.Entry<String, String>> it = cache.entries();
            assertThat(it.hasNext()).isTrue();
            assertThatThrownBy(it::remove).as("no next() yet").isInstanceOf(IllegalStateException.class);
            String first = it.next().getKey();
            assertThat(it.hasNext()).as("looks ahead at the other entry").isTrue();
            it.remove();
            assertThat(cache.containsKey(first)).isFalse();
            String second = first.equals("a") ? "b" : "a";
            assertThat(cache.containsKey(second)).as("the looked-ahead entry stays").isTrue();
            assertThatThrownBy(it::remove).as("twice").isInstanceOf(IllegalStateException.class);
            assertThat(it.next().getKey()).isEqualTo(second);
            assertThat(it.hasNext()).isFalse();
            verify(cache);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void zeroCopyReadSeesTheBytesOnlyDuringTheCall(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            cache.put("k", "hello");
            MemorySegment[] kept = new MemorySegment[1];
            String read = cache.read("k", segment -> {
                kept[0] = segment;
                assertThat(segment.isReadOnly()).isTrue();
                return new String(segment.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            });
            assertThat(read).isEqualTo("hello");
            assertThat(kept[0].byteSize()).isEqualTo(5);
            assertThatThrownBy(() -> kept[0].get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            String absent = cache.read("absent", segment -> "called");
            assertThat(absent).isNull();
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void staysWithinCapacityUnderEviction(CacheConfigs.Config config) {
        long capacity = 256 * 1024;
        try (OffHeapCache<String, String> cache = cache(config, capacity)) {
            String value = "x".repeat(300);
            for (int i = 0; i < 5000; i++) {
                cache.put("key" + i, value + i);
                if (i % 500 == 0) {
                    assertThat(((OffHeapCacheImpl<?, ?>) cache).usedBytes()).isLessThanOrEqualTo(capacity);
                }
            }
            assertThat(cache.size()).isBetween(100L, 1000L);
            assertThat(cache.getIfPresent("key4999")).isEqualTo(value + 4999);
            CacheStats stats = cache.stats();
            assertThat(stats.usedBytes()).isLessThanOrEqualTo(capacity);
            assertThat(stats.capacityBytes()).isEqualTo(capacity);
            if (config.stats()) {
                assertThat(stats.evictionCount()).isEqualTo(5000 - cache.size());
                assertThat(stats.evictionBytes()).isGreaterThan(stats.evictionCount() * 300);
            } else {
                assertThat(stats.evictionCount()).isZero();
            }
            verify(cache);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void statisticsCountHitsMissesAndLoads(CacheConfigs.Config config) {
        try (OffHeapCache<String, String> cache = cache(config, 1 << 20)) {
            cache.put("a", "1");
            cache.getIfPresent("a");
            cache.getIfPresent("a");
            cache.getIfPresent("b");
            assertThat(cache.get("c", k -> "loaded " + k)).isEqualTo("loaded c");
            assertThat(cache.get("c", k -> "again")).isEqualTo("loaded c");
            CacheStats stats = cache.stats();
            if (config.stats()) {
                assertThat(stats.hitCount()).isEqualTo(3);
                assertThat(stats.missCount()).isEqualTo(2);
                assertThat(stats.loadSuccessCount()).isEqualTo(1);
                assertThat(stats.hitRatio()).isEqualTo(0.6);
            } else {
                assertThat(stats.hitCount()).isZero();
                assertThat(stats.missCount()).isZero();
                assertThat(stats.hitRatio()).isEqualTo(1.0);
            }
            assertThat(stats.entryCount()).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @MethodSource("configs")
    void removalListenerHearsEveryCause(CacheConfigs.Config config) {
        List<String> heard = new ArrayList<>();
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(64 * 1024).removalListener((k, v, cause) -> heard.add(k + "=" + v + ":" + cause));
        config.accept(builder);
        try (OffHeapCache<String, String> cache = builder.build()) {
            cache.put("a", "1");
            cache.put("a", "2");
            cache.remove("a");
            cache.put("b", "3");
            cache.invalidateAll();
            assertThat(heard).containsExactly("a=1:REPLACED", "a=2:EXPLICIT", "b=3:EXPLICIT");
            heard.clear();
            for (int i = 0; i < 2000; i++) {
                cache.put("k" + i, "v".repeat(100));
            }
            assertThat(heard).isNotEmpty().allMatch(s -> s.endsWith(":SIZE"));
            assertThat(heard.size() + cache.size()).isEqualTo(2000);
        }
    }

    /** Same block size: the value is written in place; another size: a new entry. Both keep the books. */
    @ParameterizedTest
    @MethodSource("configs")
    void overwritesInPlaceOrMoveWhenTheSizeChanges(CacheConfigs.Config config) {
        List<String> heard = new ArrayList<>();
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).removalListener((k, v, cause) -> heard.add(k + "=" + v + ":" + cause));
        config.accept(builder);
        try (OffHeapCache<String, String> cache = builder.build()) {
            cache.put("key", "value-01");
            cache.put("other", "x");
            long before = cache.weightedSize();
            for (int i = 2; i <= 9; i++) {
                cache.put("key", "value-0" + i);
                assertThat(cache.getIfPresent("key")).isEqualTo("value-0" + i);
                assertThat(cache.weightedSize()).isEqualTo(before);
                verify(cache);
            }
            // one byte less, same 8-byte block: the padding changes, the length read back must follow
            cache.put("key", "value-1");
            assertThat(cache.getIfPresent("key")).isEqualTo("value-1");
            assertThat(cache.weightedSize()).isEqualTo(before);
            String longer = "v".repeat(200);
            cache.put("key", longer);
            assertThat(cache.getIfPresent("key")).isEqualTo(longer);
            assertThat(cache.weightedSize()).isEqualTo(entryBytes(cache, "key", longer) + entryBytes(cache, "other", "x"));
            assertThat(cache.size()).isEqualTo(2);
            assertThat(cache.getIfPresent("other")).isEqualTo("x");
            verify(cache);
            assertThat(heard).hasSize(10).allMatch(s -> s.endsWith(":REPLACED"));
            assertThat(heard.get(0)).isEqualTo("key=value-01:REPLACED");
            assertThat(heard.get(8)).isEqualTo("key=value-09:REPLACED");
            assertThat(heard.get(9)).isEqualTo("key=value-1:REPLACED");
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {16_384, 1 << 20})
    void anEntryOfTheLargestSizeAcceptedFitsOnceTheTablesGrewAndShrankAgain(long capacity) {
        long largest;
        try {
            OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays()).capacity(capacity).concurrencyLevel(1)
                    .maxEntryBytes(1L << 40).build().close();
            throw new AssertionError("a limit of 1 TiB was accepted");
        } catch (IllegalStateException e) {
            largest = Long.parseLong(e.getMessage().substring(e.getMessage().lastIndexOf("at most ") + 8).trim());
        }
        try (OffHeapCache<byte[], byte[]> cache = OffHeapCache.builder(Serializer.byteArrays(), Serializer.byteArrays())
                .capacity(capacity).concurrencyLevel(1).maxEntryBytes(largest).build()) {
            int header = ((OffHeapCacheImpl<?, ?>) cache).headerBytes();
            // small entries grow the hash table and the sketch; the large one then evicts them all, and the
            // tables shrink back into what used to be the middle of the free space
            for (int i = 0; i < (int) (capacity / 40); i++) {
                cache.put(new byte[]{(byte) i, (byte) (i >> 8), (byte) (i >> 16)}, new byte[1]);
            }
            cache.put(new byte[]{1}, new byte[(int) (largest - header - 1)]);
            assertThat(cache.size()).isEqualTo(1);
            verify(cache);
        }
    }
}
