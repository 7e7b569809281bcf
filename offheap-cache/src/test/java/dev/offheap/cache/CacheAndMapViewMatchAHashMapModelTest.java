package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random sequences of the operations the fuzz tests cover only weakly or not at all (the compute
 * family, conditional writes, bulk calls, loads, zero-copy reads, and the map view's views, iterators and
 * their {@code remove}), on the cache and on its {@link OffHeapCache#asMap()} view, against a
 * {@link HashMap}. The capacity holds every key at the largest value, so nothing may be evicted and the
 * model is exact. After every step: what the call returned, the size, the key's presence and value, the
 * weighted size (each entry's header, key and value rounded up to 8 bytes), and every removal the
 * listener was told (key, value and cause), which must be exactly the model's replacements and removals.
 *
 * <p>Three variants: small values; values of random sizes about the entry limit (over it: {@link
 * ValueTooLargeException}, nothing changed) with keys of varied lengths; and a value serializer that
 * sometimes throws (a runtime exception, a checked one undeclared, an {@link Error}), declares a negative
 * size, writes past the size it declared or leaves its last declared byte unwritten: that entry is refused
 * and nothing else changes. Each seed also
 * picks the eviction policy, one or four segments, the built-in or a generic byte[] serializer, a listener
 * or none (the cache's quicker paths; removals then unchecked), one that reads the cache, and in one seed in
 * three a clock that moves, with expiry after write, after access, both or neither, besides entries put
 * with a time to live of their own: an entry whose deadline came is invisible to every call, counts in the
 * size until the cache removes it, and is told EXPIRED, once, never as REPLACED or EXPLICIT.
 */
class CacheAndMapViewMatchAHashMapModelTest {

    private static final int STEPS = 2500;

    static LongStream seeds() {
        return LongStream.range(0, 30);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void smallValuesMatchTheModel(long seed) {
        new Run(seed, Variant.SMALL).run();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void valuesAboutTheEntryLimitAndKeysOfVariedLengthsMatchTheModel(long seed) {
        new Run(seed, Variant.ABOUT_THE_LIMIT).run();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void aSerializerThatThrowsOrLiesHasOnlyItsEntryRefused(long seed) {
        new Run(seed, Variant.FAULTY_SERIALIZER).run();
    }

    enum Variant { SMALL, ABOUT_THE_LIMIT, FAULTY_SERIALIZER }

    /** How a poisoned value's serialization goes wrong. */
    enum Fault {
        THROWS_IN_SIZE, NEGATIVE_SIZE, THROWS_IN_WRITE, THROWS_CHECKED_IN_WRITE, THROWS_ERROR_IN_WRITE, WRITES_PAST_ITS_SIZE,
        WRITES_LESS_THAN_ITS_SIZE
    }

    static final class SerializerError extends Error {
        private static final long serialVersionUID = 1L;

        SerializerError() {
            super("the serializer's own Error");
        }
    }

    /** byte[] values through the generic path (not the built-in's), failing as told for poisoned instances. */
    static final class Bytes implements Serializer<byte[]> {
        final Map<byte[], Fault> poisoned = Collections.synchronizedMap(new IdentityHashMap<>());

        @Override
        public int serializedSize(byte[] value) {
            Fault fault = poisoned.get(value);
            if (fault == Fault.THROWS_IN_SIZE) {
                throw new IllegalStateException("no size");
            }
            if (fault == Fault.NEGATIVE_SIZE) {
                return -1 - value.length;
            }
            if (fault == Fault.WRITES_PAST_ITS_SIZE) {
                return Math.max(0, value.length - 1);
            }
            if (fault == Fault.WRITES_LESS_THAN_ITS_SIZE) {
                return value.length + 1;
            }
            return value.length;
        }

        @Override
        public void write(byte[] value, MemorySegment target) {
            Fault fault = poisoned.get(value);
            if (fault == Fault.WRITES_PAST_ITS_SIZE) {
                MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, 0, (int) target.byteSize());
                target.set(ValueLayout.JAVA_BYTE, target.byteSize(), (byte) 1);
                return;
            }
            // half written, then the failure: nothing of it may show (the whole value, one byte short of its
            // declared size, for WRITES_LESS_THAN_ITS_SIZE)
            MemorySegment.copy(value, 0, target, ValueLayout.JAVA_BYTE, 0,
                    fault == null || fault == Fault.WRITES_LESS_THAN_ITS_SIZE ? value.length : value.length / 2);
            if (fault == Fault.THROWS_IN_WRITE) {
                throw new UnsupportedOperationException("cannot write");
            }
            if (fault == Fault.THROWS_CHECKED_IN_WRITE) {
                throw sneaky(new IOException("cannot write"));
            }
            if (fault == Fault.THROWS_ERROR_IN_WRITE) {
                throw new SerializerError();
            }
        }

        @Override
        public byte[] read(MemorySegment source) {
            return source.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }

    /** Thrown by the test's own compute functions: the call fails with it and nothing changes. */
    static final class FunctionFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FunctionFailure() {
            super("the function's own failure");
        }
    }

    private static final HexFormat HEX = HexFormat.of();
    private static final long START_NANOS = 1_000_000_000_000L;

    /** A value as events compare it: its bytes in hex, or for a long one its length and hash. */
    static String fingerprint(byte[] value) {
        return value.length <= 64 ? HEX.formatHex(value) : value.length + "#" + Arrays.hashCode(value);
    }

    static String event(String key, byte[] value, RemovalCause cause) {
        return key + "=" + fingerprint(value) + ":" + cause;
    }

    private static final class Run {
        final long seed;
        final Variant variant;
        final Random random;
        final Map<String, byte[]> model = new HashMap<>();
        /** Keys whose entry has a time to live of its own (never reached: the clock stands still), a larger header. */
        final Set<String> withTimeToLive = new HashSet<>();
        /**
         * In one seed in three the clock moves: the live entries' deadlines (ms since the cache was built, 0 for
         * never), and the entries whose deadline came that the cache has not yet told EXPIRED (with their header
         * bytes): they count in the size and weighted size until it does, and no call sees them.
         */
        final boolean expiring;
        final long afterWriteMillis;
        final long afterAccessMillis;
        final AtomicLong nanos = new AtomicLong(START_NANOS);
        /** A live entry's deadlines: {access or time to live, write}; 0 for none; expired once one has come. */
        final Map<String, long[]> deadlines = new HashMap<>();
        final Map<String, byte[]> expiredUntold = new HashMap<>();
        final Map<String, Integer> expiredHeaders = new HashMap<>();
        final List<String> told = Collections.synchronizedList(new ArrayList<>());
        final List<String> expected = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        final Deque<String> history = new ArrayDeque<>();
        final Bytes bytes = new Bytes();
        final Serializer<byte[]> valueSerializer;
        final long maxEntryBytes;
        OffHeapCache<String, byte[]> cache;
        OffHeapCacheImpl<?, ?> impl;
        ConcurrentMap<String, byte[]> map;
        int loaderCalls;
        final boolean listenerUsesTheCache;
        /** Without a listener (one seed in four) the cache takes its quicker paths; removals are not checked. */
        final boolean listening;
        final boolean recordsStats;
        /** EXPIRED removals told so far, which the statistics count. */
        long expirations;
        /** What getAll's next loadAll leaves out, and adds that was not asked for. */
        Set<String> leftOut = Set.of();
        Map<String, byte[]> extras = Map.of();
        Set<String> loadAllAsked;

        Run(long seed, Variant variant) {
            this.seed = seed;
            this.variant = variant;
            this.random = new Random(seed * 31 + variant.ordinal());
            this.valueSerializer = variant != Variant.FAULTY_SERIALIZER && seed % 2 == 0 ? Serializer.byteArrays() : bytes;
            this.maxEntryBytes = variant == Variant.SMALL ? 4096 : 20_000;
            this.listenerUsesTheCache = random.nextBoolean();
            this.expiring = random.nextInt(3) == 0;
            this.afterWriteMillis = expiring && random.nextBoolean() ? 50 + random.nextInt(400) : 0;
            this.afterAccessMillis = expiring && random.nextBoolean() ? 50 + random.nextInt(400) : 0;
            this.listening = expiring || random.nextInt(4) != 0;
            this.recordsStats = random.nextBoolean();
            int keyCount = 8 + random.nextInt(16);
            Set<String> made = new LinkedHashSet<>();
            while (made.size() < keyCount) {
                made.add(randomKey());
            }
            keys.addAll(made);
        }

        String randomKey() {
            int length = variant == Variant.ABOUT_THE_LIMIT ? random.nextInt(random.nextBoolean() ? 8 : 1200)
                    : random.nextInt(6);
            StringBuilder key = new StringBuilder();
            for (int i = 0; i < length; i++) {
                // one to three UTF-8 bytes a char
                int kind = random.nextInt(4);
                key.append(kind == 0 ? (char) (0x400 + random.nextInt(200)) : kind == 1 ? (char) (0x4E00 + random.nextInt(500))
                        : (char) ('a' + random.nextInt(26)));
            }
            return key.toString();
        }

        static int keyBytes(String key) {
            return key.getBytes(StandardCharsets.UTF_8).length;
        }

        void run() {
            CacheBuilder<String, byte[]> builder = OffHeapCache.builder(Serializer.strings(), valueSerializer);
            if (listening) {
                builder.removalListener((k, v, cause) -> {
                    told.add(event(k, v, cause));
                    // told with no lock of the cache held: it may read the cache
                    if (listenerUsesTheCache) {
                        cache.containsKey(k);
                        cache.readQuietly(k, segment -> segment.byteSize());
                    }
                });
            }
            if (afterWriteMillis > 0) {
                builder.expireAfterWrite(java.time.Duration.ofMillis(afterWriteMillis));
            }
            if (afterAccessMillis > 0) {
                builder.expireAfterAccess(java.time.Duration.ofMillis(afterAccessMillis));
            }
            try (OffHeapCache<String, byte[]> built = builder
                    .capacity(variant == Variant.SMALL ? 1 << 20 : 4 << 20)
                    .maxEntryBytes(maxEntryBytes)
                    .concurrencyLevel(random.nextBoolean() ? 1 : 4)
                    .evictionPolicy(random.nextBoolean() ? EvictionPolicy.W_TINY_LFU : EvictionPolicy.LRU)
                    .recordStats(recordsStats)
                    .clock(nanos::get)
                    .loader(new CacheLoader<String, byte[]>() {
                        @Override
                        public byte[] load(String key) {
                            loaderCalls++;
                            return loaded(key);
                        }

                        @Override
                        public Map<String, byte[]> loadAll(Set<? extends String> asked) {
                            loadAllAsked = new LinkedHashSet<>(asked);
                            Map<String, byte[]> result = new LinkedHashMap<>();
                            for (String key : asked) {
                                if (!leftOut.contains(key)) {
                                    result.put(key, loaded(key));
                                }
                            }
                            for (Map.Entry<String, byte[]> extra : extras.entrySet()) {
                                if (!asked.contains(extra.getKey())) {
                                    result.put(extra.getKey(), extra.getValue());
                                }
                            }
                            return result;
                        }
                    })
                    .build()) {
                cache = built;
                impl = (OffHeapCacheImpl<?, ?>) built;
                map = built.asMap();
                for (int step = 0; step < STEPS; step++) {
                    String key = keys.get(random.nextInt(keys.size()));
                    try {
                        if (expiring && random.nextInt(6) == 0) {
                            moveTheClock();
                        }
                        step(key);
                        checkAfterStep(key);
                        if (step % 64 == 63) {
                            checkContents();
                        }
                    } catch (AssertionError | RuntimeException e) {
                        throw new AssertionError("seed " + seed + ", " + variant + ", step " + step + ", key of "
                                + keyBytes(key) + " bytes; last steps, latest first: " + history, e);
                    }
                }
                checkContents();
            }
        }

        /** The loader's value of a key: its own bytes and a marker. */
        static byte[] loaded(String key) {
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            byte[] value = Arrays.copyOf(k, Math.min(k.length, 64) + 1);
            value[value.length - 1] = 'L';
            return value;
        }

        byte[] randomValue(String key) {
            int length;
            if (variant == Variant.ABOUT_THE_LIMIT && random.nextInt(4) != 0) {
                long room = maxEntryBytes - impl.headerBytes() - keyBytes(key);
                length = (int) Math.max(0, room - random.nextInt(24) + 2); // up to 2 bytes over
            } else if (variant == Variant.FAULTY_SERIALIZER && random.nextInt(8) == 0) {
                length = 16 * 1024 + random.nextInt(2048); // staged in native memory
            } else {
                length = random.nextInt(random.nextBoolean() ? 4 : 80);
            }
            byte[] value = new byte[length];
            random.nextBytes(value);
            if (variant == Variant.FAULTY_SERIALIZER && random.nextInt(6) == 0) {
                bytes.poisoned.put(value, Fault.values()[random.nextInt(Fault.values().length)]);
            }
            return value;
        }

        /** A value to compare with: often the key's present value (a copy), else another. */
        byte[] comparedValue(String key) {
            byte[] present = model.get(key);
            if (present != null && random.nextInt(3) != 0) {
                return present.clone();
            }
            if (present != null && present.length > 0 && random.nextBoolean()) {
                byte[] differing = present.clone();
                differing[random.nextInt(differing.length)] ^= 1;
                return differing;
            }
            return randomValue(key);
        }

        /** What storing {@code value} under {@code key} must fail with; null if it is stored. */
        Class<? extends Throwable> refusal(String key, byte[] value) {
            Fault fault = bytes.poisoned.get(value);
            if (fault != null) {
                return fault == Fault.THROWS_ERROR_IN_WRITE ? SerializerError.class : SerializationException.class;
            }
            if ((long) impl.headerBytes() + keyBytes(key) + value.length > maxEntryBytes) {
                return ValueTooLargeException.class;
            }
            return null;
        }

        /** Whether comparing with {@code value} must fail: only a serializer's failure, never the size. */
        Class<? extends Throwable> comparisonRefusal(byte[] value) {
            Fault fault = bytes.poisoned.get(value);
            if (fault == null) {
                return null;
            }
            return fault == Fault.THROWS_ERROR_IN_WRITE ? SerializerError.class : SerializationException.class;
        }

        /** Runs the call; it must throw {@code refusal} (or succeed if null), returning its result. */
        <T> T call(Class<? extends Throwable> refusal, Supplier<T> call) {
            Throwable thrown = null;
            T result = null;
            try {
                result = call.get();
            } catch (RuntimeException | Error e) {
                thrown = e;
            }
            if (refusal == null) {
                if (thrown != null) {
                    throw new AssertionError("unexpected failure", thrown);
                }
                return result;
            }
            assertThat(thrown).as("the call refuses the value").isInstanceOf(refusal);
            return null;
        }

        void put(String key, byte[] value, RemovalCause causeIfPresent) {
            written(key);
            byte[] old = model.put(key, value.clone());
            if (old != null) {
                expected.add(event(key, old, causeIfPresent));
            }
        }

        /** Any write without a time to live gives the entry the builder's expiry, and its header, again. */
        void written(String key) {
            withTimeToLive.remove(key);
            deadlines.put(key, new long[]{afterAccessMillis > 0 ? nowMillis() + afterAccessMillis : 0,
                    afterWriteMillis > 0 ? nowMillis() + afterWriteMillis : 0});
        }

        /** A read that is an access moves a live entry's access deadline, unless it has a time to live of its own. */
        void accessed(String key) {
            if (model.containsKey(key) && afterAccessMillis > 0 && !withTimeToLive.contains(key)) {
                deadlines.get(key)[0] = nowMillis() + afterAccessMillis;
            }
        }

        /** The header of an entry with a time to live of its own: every deadline field the cache has. */
        int timeToLiveHeaderBytes() {
            return afterWriteMillis > 0 && afterAccessMillis > 0 ? 28 : 24;
        }

        int header(String key) {
            return withTimeToLive.contains(key) ? timeToLiveHeaderBytes() : impl.headerBytes();
        }

        void removeFromModel(String key) {
            withTimeToLive.remove(key);
            deadlines.remove(key);
            byte[] old = model.remove(key);
            assertThat(old).as("removed key %s is in the model", key).isNotNull();
            expected.add(event(key, old, RemovalCause.EXPLICIT));
        }

        boolean modelHasValue(byte[] value) {
            for (byte[] v : model.values()) {
                if (Arrays.equals(v, value)) {
                    return true;
                }
            }
            return false;
        }

        void note(String what) {
            history.addFirst(what);
            if (history.size() > 12) {
                history.removeLast();
            }
        }

        @SuppressWarnings("unchecked")
        void step(String key) {
            int op = random.nextInt(44);
            byte[] present = model.get(key);
            note("op " + op + (present == null ? " on an absent key" : " on a present key"));
            switch (op) {
                case 0, 1 -> {
                    byte[] value = randomValue(key);
                    Class<? extends Throwable> refusal = refusal(key, value);
                    call(refusal, () -> {
                        cache.put(key, value);
                        return null;
                    });
                    if (refusal == null) {
                        put(key, value, RemovalCause.REPLACED);
                    }
                }
                case 2 -> {
                    byte[] value = randomValue(key);
                    Class<? extends Throwable> refusal = refusal(key, value);
                    byte[] result = call(refusal, () -> random.nextBoolean() ? cache.putIfAbsent(key, value)
                            : map.putIfAbsent(key, value));
                    if (refusal == null) {
                        assertThat(result).as("putIfAbsent").isEqualTo(present);
                        if (present == null) {
                            put(key, value, null);
                        } else {
                            accessed(key); // finding the key reads its value
                        }
                    }
                }
                case 3 -> {
                    byte[] value = randomValue(key);
                    Class<? extends Throwable> refusal = refusal(key, value);
                    byte[] result = call(refusal, () -> random.nextBoolean() ? cache.replace(key, value)
                            : map.replace(key, value));
                    if (refusal == null) {
                        assertThat(result).as("replace").isEqualTo(present);
                        if (present != null) {
                            put(key, value, RemovalCause.REPLACED);
                        }
                    }
                }
                case 4, 5 -> {
                    byte[] old = comparedValue(key);
                    byte[] value = randomValue(key);
                    Class<? extends Throwable> refusal = comparisonRefusal(old);
                    if (refusal == null) {
                        refusal = refusal(key, value);
                    }
                    Boolean replaced = call(refusal, () -> random.nextBoolean() ? cache.replace(key, old, value)
                            : map.replace(key, old, value));
                    if (refusal == null) {
                        boolean matches = present != null && Arrays.equals(present, old);
                        assertThat(replaced).as("replace(k, old, new)").isEqualTo(matches);
                        if (matches) {
                            put(key, value, RemovalCause.REPLACED);
                        }
                    }
                }
                case 6 -> {
                    byte[] result = random.nextBoolean() ? cache.remove(key) : map.remove(key);
                    assertThat(result).as("remove").isEqualTo(present);
                    if (present != null) {
                        removeFromModel(key);
                    }
                }
                case 7 -> {
                    byte[] value = comparedValue(key);
                    Class<? extends Throwable> refusal = comparisonRefusal(value);
                    int how = random.nextInt(3);
                    Boolean removed = call(refusal, () -> switch (how) {
                        case 0 -> cache.remove(key, value);
                        case 1 -> map.remove(key, value);
                        default -> map.entrySet().remove(Map.entry(key, value));
                    });
                    if (refusal == null) {
                        boolean matches = present != null && Arrays.equals(present, value);
                        assertThat(removed).as("remove(k, v)").isEqualTo(matches);
                        if (matches) {
                            removeFromModel(key);
                        }
                    }
                }
                case 8 -> {
                    if (random.nextBoolean()) {
                        cache.invalidate(key);
                    } else {
                        assertThat(map.keySet().remove(key)).as("keySet().remove").isEqualTo(present != null);
                    }
                    if (present != null) {
                        removeFromModel(key);
                    }
                }
                case 9, 10, 11 -> compute(key, present, op == 9 || random.nextBoolean());
                case 12 -> {
                    byte[] value = randomValue(key);
                    boolean returnsNull = random.nextInt(4) == 0;
                    int[] calls = {0};
                    Class<? extends Throwable> refusal = present == null && !returnsNull ? refusal(key, value) : null;
                    byte[] result = call(refusal, () -> map.computeIfAbsent(key, k -> {
                        calls[0]++;
                        assertThat(k).isEqualTo(key);
                        return returnsNull ? null : value;
                    }));
                    assertThat(calls[0]).as("computeIfAbsent's function calls").isEqualTo(present == null ? 1 : 0);
                    if (refusal == null) {
                        if (present != null) {
                            assertThat(result).as("computeIfAbsent of a present key").isEqualTo(present);
                            accessed(key);
                        } else if (returnsNull) {
                            assertThat(result).isNull();
                        } else {
                            assertThat(result).as("computeIfAbsent's stored value").isEqualTo(value);
                            put(key, value, null);
                        }
                    }
                }
                case 13, 14 -> merge(key, present);
                case 15, 16 -> {
                    byte[] result;
                    int how = random.nextInt(4);
                    result = switch (how) {
                        case 0 -> cache.getIfPresent(key);
                        case 1 -> map.get(key);
                        case 2 -> map.getOrDefault(key, new byte[]{1, 2, 3});
                        default -> cache.read(key, segment -> {
                            assertThat(segment.isReadOnly()).as("read's segment is read-only").isTrue();
                            return segment.toArray(ValueLayout.JAVA_BYTE);
                        });
                    };
                    assertThat(result).as("get").isEqualTo(how == 2 && present == null ? new byte[]{1, 2, 3} : present);
                    accessed(key);
                }
                case 17 -> {
                    AtomicReference<MemorySegment> kept = new AtomicReference<>();
                    byte[] result = cache.readQuietly(key, segment -> {
                        kept.set(segment);
                        return segment.toArray(ValueLayout.JAVA_BYTE);
                    });
                    assertThat(result).as("readQuietly").isEqualTo(present);
                    if (kept.get() != null) {
                        MemorySegment after = kept.get();
                        boolean threw = false;
                        try {
                            after.toArray(ValueLayout.JAVA_BYTE);
                        } catch (IllegalStateException expectedFailure) {
                            threw = true;
                        }
                        assertThat(threw).as("the reader's segment is dead after the call").isTrue();
                    }
                }
                case 18 -> {
                    boolean contains = switch (random.nextInt(3)) {
                        case 0 -> cache.containsKey(key);
                        case 1 -> map.containsKey(key);
                        default -> map.keySet().contains(key);
                    };
                    assertThat(contains).as("containsKey").isEqualTo(present != null);
                }
                case 19 -> {
                    byte[] value = comparedValue(key);
                    Class<? extends Throwable> refusal = comparisonRefusal(value);
                    int how = random.nextInt(3);
                    Boolean contains = call(refusal, () -> switch (how) {
                        case 0 -> map.containsValue(value);
                        case 1 -> map.values().contains(value);
                        default -> map.entrySet().contains(Map.entry(key, value));
                    });
                    if (refusal == null && how == 2) {
                        accessed(key); // the entry set's contains reads the key's value as a get
                    }
                    if (refusal == null) {
                        assertThat(contains).as("contains value")
                                .isEqualTo(how == 2 ? present != null && Arrays.equals(present, value) : modelHasValue(value));
                    }
                }
                case 20 -> {
                    // values().remove removes one entry of that value
                    byte[] value = comparedValue(key);
                    Class<? extends Throwable> refusal = comparisonRefusal(value);
                    Boolean removed = call(refusal, () -> map.values().remove(value));
                    if (refusal == null) {
                        assertThat(removed).as("values().remove").isEqualTo(modelHasValue(value));
                        if (removed) {
                            expectOneRemovalOfTheValue(value);
                        }
                    }
                }
                case 21 -> {
                    List<String> asked = new ArrayList<>();
                    for (int i = random.nextInt(6); i >= 0; i--) {
                        asked.add(keys.get(random.nextInt(keys.size())));
                    }
                    Map<String, byte[]> result = cache.getAllPresent(asked);
                    List<String> order = new ArrayList<>();
                    for (String k : new LinkedHashSet<>(asked)) {
                        if (model.containsKey(k)) {
                            order.add(k);
                        }
                    }
                    assertThat(new ArrayList<>(result.keySet())).as("getAllPresent's keys").isEqualTo(order);
                    order.forEach(this::accessed);
                    for (String k : order) {
                        assertThat(result.get(k)).as("getAllPresent's value").isEqualTo(model.get(k));
                    }
                }
                case 22 -> {
                    List<String> asked = new ArrayList<>();
                    for (int i = random.nextInt(5); i >= 0; i--) {
                        asked.add(keys.get(random.nextInt(keys.size())));
                    }
                    Set<String> out = new HashSet<>();
                    Map<String, byte[]> added = new LinkedHashMap<>();
                    if (random.nextBoolean()) {
                        for (String k : asked) {
                            if (random.nextInt(3) == 0) {
                                out.add(k);
                            }
                        }
                        for (int i = random.nextInt(3); i > 0; i--) {
                            String k = keys.get(random.nextInt(keys.size()));
                            byte[] v = loaded(k);
                            v[v.length - 1] = 'X';
                            added.put(k, v);
                        }
                    }
                    leftOut = out;
                    extras = added;
                    loadAllAsked = null;
                    Map<String, byte[]> result;
                    try {
                        result = cache.getAll(asked);
                    } finally {
                        leftOut = Set.of();
                        extras = Map.of();
                    }
                    Set<String> distinct = new LinkedHashSet<>(asked);
                    Set<String> absent = new LinkedHashSet<>();
                    List<String> returned = new ArrayList<>();
                    Map<String, byte[]> before = new HashMap<>(model);
                    for (String k : distinct) {
                        if (!model.containsKey(k)) {
                            absent.add(k);
                            if (!out.contains(k)) {
                                put(k, loaded(k), null);
                                returned.add(k);
                            }
                        } else {
                            returned.add(k);
                            accessed(k);
                        }
                    }
                    assertThat(loadAllAsked).as("the keys loadAll is asked for").isEqualTo(absent.isEmpty() ? null : absent);
                    // keys loadAll added that were not asked for are cached, as puts, and not returned
                    if (!absent.isEmpty()) {
                        for (Map.Entry<String, byte[]> extra : added.entrySet()) {
                            if (!absent.contains(extra.getKey())) {
                                put(extra.getKey(), extra.getValue(), RemovalCause.REPLACED);
                            }
                        }
                    }
                    assertThat(new ArrayList<>(result.keySet())).as("getAll's keys").isEqualTo(returned);
                    for (String k : returned) {
                        assertThat(result.get(k)).as("getAll's value").isEqualTo(
                                absent.contains(k) ? model.get(k) : before.get(k));
                    }
                }
                case 23 -> {
                    loaderCalls = 0;
                    byte[] result = cache.get(key);
                    assertThat(loaderCalls).as("loads of get").isEqualTo(present == null ? 1 : 0);
                    if (present == null) {
                        put(key, loaded(key), null);
                    } else {
                        accessed(key);
                    }
                    assertThat(result).as("get").isEqualTo(model.get(key));
                }
                case 24, 25 -> load(key, present, op == 24);
                case 26 -> putAll(op);
                case 27 -> {
                    byte[] value = randomValue(key);
                    Class<? extends Throwable> refusal = refusal(key, value);
                    byte[] result = call(refusal, () -> map.put(key, value));
                    if (refusal == null) {
                        assertThat(result).as("the map's put").isEqualTo(present);
                        put(key, value, RemovalCause.REPLACED);
                    }
                }
                case 28, 29 -> iterateEntries(op == 28);
                case 30 -> iterateKeys();
                case 31 -> iterateValues();
                case 32 -> {
                    // the cache's own iterators
                    Map<String, byte[]> seen = new HashMap<>();
                    boolean keysOnly = random.nextBoolean();
                    Iterator<?> it = keysOnly ? cache.keys() : cache.entries();
                    while (it.hasNext()) {
                        Object next = it.next();
                        String k;
                        if (keysOnly) {
                            k = (String) next;
                            seen.put(k, model.get(k));
                        } else {
                            Map.Entry<String, byte[]> e = (Map.Entry<String, byte[]>) next;
                            k = e.getKey();
                            assertThat(e.getValue()).as("entries()' value").isEqualTo(model.get(k));
                            assertThat(seen.put(k, e.getValue())).as("entries() sees each key once").isNull();
                        }
                        if (random.nextInt(4) == 0) {
                            it.remove();
                            removeFromModel(k);
                        }
                    }
                    assertThat(seen.keySet()).as("the iterator's keys").containsExactlyInAnyOrderElementsOf(
                            union(seen.keySet(), model.keySet()));
                }
                case 33 -> {
                    List<String> toRemove = new ArrayList<>();
                    for (int i = random.nextInt(4); i >= 0; i--) {
                        toRemove.add(keys.get(random.nextInt(keys.size())));
                    }
                    boolean any = false;
                    for (String k : new LinkedHashSet<>(toRemove)) {
                        if (model.containsKey(k)) {
                            removeFromModel(k);
                            any = true;
                        }
                    }
                    assertThat(map.keySet().removeAll(toRemove)).as("keySet().removeAll").isEqualTo(any);
                }
                case 34 -> {
                    if (random.nextInt(3) != 0) {
                        return;
                    }
                    List<String> toKeep = new ArrayList<>();
                    for (int i = random.nextInt(keys.size()); i >= 0; i--) {
                        toKeep.add(keys.get(random.nextInt(keys.size())));
                    }
                    boolean any = false;
                    for (String k : new ArrayList<>(model.keySet())) {
                        if (!toKeep.contains(k)) {
                            removeFromModel(k);
                            any = true;
                        }
                    }
                    assertThat(map.keySet().retainAll(toKeep)).as("keySet().retainAll").isEqualTo(any);
                }
                case 35 -> {
                    int bit = random.nextInt(4);
                    boolean byValue = random.nextBoolean();
                    boolean any = false;
                    for (Map.Entry<String, byte[]> e : new ArrayList<>(model.entrySet())) {
                        if (removeIfSays(byValue, e.getKey(), e.getValue(), bit)) {
                            removeFromModel(e.getKey());
                            any = true;
                        }
                    }
                    boolean removed = byValue ? map.values().removeIf(v -> removeIfSays(true, null, v, bit))
                            : map.entrySet().removeIf(e -> removeIfSays(false, e.getKey(), e.getValue(), bit));
                    assertThat(removed).as("removeIf").isEqualTo(any);
                }
                case 36 -> {
                    if (random.nextInt(10) != 0) {
                        return;
                    }
                    for (String k : new ArrayList<>(model.keySet())) {
                        removeFromModel(k);
                    }
                    switch (random.nextInt(4)) {
                        case 0 -> cache.invalidateAll();
                        case 1 -> map.clear();
                        case 2 -> map.keySet().clear();
                        default -> map.values().clear();
                    }
                }
                case 37 -> replaceAll();
                case 38 -> {
                    Map<String, byte[]> seen = new HashMap<>();
                    map.forEach((k, v) -> assertThat(seen.put(k, v)).as("forEach sees each key once").isNull());
                    assertThat(seen.keySet()).isEqualTo(model.keySet());
                    seen.forEach((k, v) -> assertThat(v).as("forEach's value").isEqualTo(model.get(k)));
                }
                case 39 -> {
                    // setValue through the entry set's iterator
                    for (Map.Entry<String, byte[]> e : map.entrySet()) {
                        if (random.nextInt(3) == 0) {
                            byte[] value = randomValue(e.getKey());
                            Class<? extends Throwable> refusal = refusal(e.getKey(), value);
                            byte[] old = call(refusal, () -> e.setValue(value));
                            if (refusal == null) {
                                assertThat(old).as("setValue's old value").isEqualTo(model.get(e.getKey()));
                                assertThat(e.getValue()).as("the entry after setValue").isEqualTo(value);
                                put(e.getKey(), value, RemovalCause.REPLACED);
                            }
                        }
                    }
                }
                case 40 -> {
                    cache.cleanUp(); // nothing expires: it changes nothing
                    assertThat(cache.stats().entryCount()).as("the statistics' entry count").isEqualTo(model.size());
                    boolean empty = map.isEmpty();
                    assertThat(empty).as("isEmpty").isEqualTo(model.isEmpty());
                    assertThat(map.keySet().isEmpty()).isEqualTo(model.isEmpty());
                    assertThat(map.values().size()).isEqualTo(model.size());
                    assertThat(map.entrySet().size()).isEqualTo(model.size());
                }
                case 41 -> {
                    // a stream of the entry set, collected
                    List<Map.Entry<String, byte[]>> listed = map.entrySet().stream().toList();
                    assertThat(listed).hasSize(model.size());
                    for (Map.Entry<String, byte[]> e : listed) {
                        assertThat(e.getValue()).as("streamed value").isEqualTo(model.get(e.getKey()));
                    }
                }
                case 42 -> {
                    byte[] value = randomValue(key);
                    Class<? extends Throwable> refusal = refusal(key, value);
                    if (refusal == null && (long) timeToLiveHeaderBytes() + keyBytes(key) + value.length > maxEntryBytes) {
                        refusal = ValueTooLargeException.class; // the header of an entry with a time to live is larger
                    }
                    long ttl = expiring ? 1 + random.nextInt(300) : 3_600_000;
                    call(refusal, () -> {
                        cache.put(key, value, java.time.Duration.ofMillis(ttl));
                        return null;
                    });
                    if (refusal == null) {
                        put(key, value, RemovalCause.REPLACED);
                        withTimeToLive.add(key);
                        deadlines.put(key, new long[]{nowMillis() + ttl, 0});
                    }
                }
                default -> {
                    // put with a value from another key's entry, read back by a get: bytes, not instances
                    byte[] value = model.isEmpty() ? randomValue(key)
                            : new ArrayList<>(model.values()).get(random.nextInt(model.size())).clone();
                    Class<? extends Throwable> refusal = refusal(key, value);
                    call(refusal, () -> {
                        cache.put(key, value);
                        return null;
                    });
                    if (refusal == null) {
                        put(key, value, RemovalCause.REPLACED);
                    }
                }
            }
        }

        static boolean removeIfSays(boolean byValue, String key, byte[] value, int bit) {
            int h = byValue ? Arrays.hashCode(value) : key.hashCode();
            return (h >>> bit & 1) == 1;
        }

        static Set<String> union(Set<String> a, Set<String> b) {
            Set<String> all = new LinkedHashSet<>(a);
            all.addAll(b);
            return all;
        }

        /** The listener's next events include exactly one removal of {@code value}, of a key that had it. */
        void expectOneRemovalOfTheValue(byte[] value) {
            if (!listening) {
                removeWhatTheCacheLost();
                return;
            }
            // which entry of that value goes is the cache's choice: take the one the listener names
            List<String> events;
            synchronized (told) {
                events = new ArrayList<>(told);
            }
            String suffix = "=" + fingerprint(value) + ":" + RemovalCause.EXPLICIT;
            String key = null;
            for (String e : events) {
                if (e.endsWith(suffix)) {
                    key = e.substring(0, e.length() - suffix.length());
                    break;
                }
            }
            assertThat(key).as("the listener names the entry removed by value; told %s", events).isNotNull();
            assertThat(model.get(key)).as("the entry removed had the value").isEqualTo(value);
            removeFromModel(key);
        }

        /** compute (the cache's or the view's), or the view's computeIfPresent. */
        void compute(String key, byte[] present, boolean computeIfPresent) {
            int how = random.nextInt(present == null ? 3 : 5);
            // 0 null, 1 new value, 2 throws, 3 the given instance, 4 the given instance changed in place
            byte[] value = randomValue(key);
            boolean viaMap = random.nextBoolean();
            AtomicReference<byte[]> given = new AtomicReference<>();
            int[] calls = {0};
            java.util.function.BiFunction<String, byte[], byte[]> function = (k, old) -> {
                calls[0]++;
                given.set(old == null ? null : old.clone());
                return switch (how) {
                    case 0 -> null;
                    case 1 -> value;
                    case 2 -> throw new FunctionFailure();
                    case 3 -> old;
                    default -> {
                        if (old.length > 0) {
                            old[0]++;
                        }
                        yield old;
                    }
                };
            };
            boolean runs = !computeIfPresent || present != null;
            Class<? extends Throwable> refusal = !runs ? null : how == 2 ? FunctionFailure.class
                    : how == 1 ? refusal(key, value) : null;
            byte[] result = call(refusal, () -> computeIfPresent ? map.computeIfPresent(key, function)
                    : viaMap ? map.compute(key, function) : cache.compute(key, function));
            assertThat(calls[0]).as("function calls").isEqualTo(runs ? 1 : 0);
            if (runs) {
                assertThat(given.get()).as("the function's present value").isEqualTo(present);
            }
            if (refusal != null || !runs) {
                if (!runs) {
                    assertThat(result).isNull();
                }
                return;
            }
            switch (how) {
                case 0 -> {
                    assertThat(result).isNull();
                    if (present != null) {
                        removeFromModel(key);
                    }
                }
                case 1 -> {
                    assertThat(result).as("compute's result").isEqualTo(value);
                    put(key, value, RemovalCause.REPLACED);
                }
                case 3 -> {
                    assertThat(result).as("compute keeping the value").isEqualTo(present);
                    written(key); // still a write
                }
                default -> {
                    byte[] changed = present.clone();
                    if (changed.length > 0) {
                        changed[0]++;
                    }
                    assertThat(result).as("compute changing the value in place").isEqualTo(changed);
                    model.put(key, changed); // stored, and told nothing: the same instance
                    written(key);
                }
            }
        }

        void merge(String key, byte[] present) {
            byte[] value = randomValue(key);
            int how = random.nextInt(4); // 0 null, 1 old, 2 the given value, 3 a new value
            byte[] other = randomValue(key);
            int[] calls = {0};
            Class<? extends Throwable> refusal = present == null ? refusal(key, value)
                    : how == 2 ? refusal(key, value) : how == 3 ? refusal(key, other) : null;
            byte[] result = call(refusal, () -> map.merge(key, value, (old, given) -> {
                calls[0]++;
                assertThat(old).as("merge's present value").isEqualTo(present);
                assertThat(given).isSameAs(value);
                return switch (how) {
                    case 0 -> null;
                    case 1 -> old;
                    case 2 -> given;
                    default -> other;
                };
            }));
            assertThat(calls[0]).as("merge's function calls").isEqualTo(present == null ? 0 : 1);
            if (refusal != null) {
                return;
            }
            if (present == null) {
                assertThat(result).isEqualTo(value);
                put(key, value, null);
                return;
            }
            switch (how) {
                case 0 -> {
                    assertThat(result).isNull();
                    removeFromModel(key);
                }
                case 1 -> {
                    assertThat(result).isEqualTo(present);
                    written(key);
                }
                case 2 -> {
                    assertThat(result).isEqualTo(value);
                    put(key, value, RemovalCause.REPLACED);
                }
                default -> {
                    assertThat(result).isEqualTo(other);
                    put(key, other, RemovalCause.REPLACED);
                }
            }
        }

        /** get(key, loader) or readOrLoad. */
        void load(String key, byte[] present, boolean readInPlace) {
            byte[] value = randomValue(key);
            int[] calls = {0};
            Class<? extends Throwable> refusal = present == null ? refusal(key, value) : null;
            java.util.function.Function<String, byte[]> loader = k -> {
                calls[0]++;
                return value;
            };
            Throwable thrown = null;
            byte[] result = null;
            try {
                result = readInPlace ? cache.readOrLoad(key, loader, segment -> segment.toArray(ValueLayout.JAVA_BYTE))
                        : cache.get(key, loader);
            } catch (RuntimeException | Error e) {
                thrown = e;
            }
            assertThat(calls[0]).as("loads").isEqualTo(present == null ? 1 : 0);
            if (refusal != null) {
                assertThat(thrown).as("a load of a value the cache refuses").isNotNull();
                Throwable cause = thrown instanceof CacheLoadException ? thrown.getCause() : thrown;
                assertThat(cause).as("the refusal").isInstanceOf(refusal);
                return;
            }
            if (thrown != null) {
                throw new AssertionError("unexpected failure", thrown);
            }
            if (present == null) {
                put(key, value, null);
            } else {
                accessed(key);
            }
            assertThat(result).as("the loaded or present value").isEqualTo(model.get(key));
        }

        void putAll(int op) {
            Map<String, byte[]> batch = new LinkedHashMap<>();
            for (int i = random.nextInt(4); i >= 0; i--) {
                String k = keys.get(random.nextInt(keys.size()));
                batch.put(k, randomValue(k));
            }
            Class<? extends Throwable> refusal = null;
            boolean viaMap = random.nextBoolean();
            // entries are put in order; one refused is skipped, and the first refusal is thrown at the end
            for (Map.Entry<String, byte[]> e : batch.entrySet()) {
                Class<? extends Throwable> refused = refusal(e.getKey(), e.getValue());
                if (refused == null) {
                    put(e.getKey(), e.getValue(), RemovalCause.REPLACED);
                } else if (refusal == null) {
                    refusal = refused;
                }
            }
            call(refusal, () -> {
                if (viaMap) {
                    map.putAll(batch);
                } else {
                    cache.putAll(batch);
                }
                return null;
            });
        }

        void iterateEntries(boolean removing) {
            Map<String, byte[]> seen = new HashMap<>();
            for (Iterator<Map.Entry<String, byte[]>> it = map.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, byte[]> e = it.next();
                assertThat(seen.put(e.getKey(), e.getValue())).as("the entry set sees each key once").isNull();
                assertThat(e.getValue()).as("the entry set's value").isEqualTo(model.get(e.getKey()));
                if (removing && random.nextInt(3) == 0) {
                    it.remove();
                    removeFromModel(e.getKey());
                }
            }
            assertThat(union(seen.keySet(), model.keySet())).as("the entry set's keys").isEqualTo(seen.keySet());
        }

        void iterateKeys() {
            Set<String> seen = new HashSet<>();
            for (Iterator<String> it = map.keySet().iterator(); it.hasNext(); ) {
                String k = it.next();
                assertThat(seen.add(k)).as("the key set sees each key once").isTrue();
                assertThat(model).as("a key the key set shows").containsKey(k);
                if (random.nextInt(3) == 0) {
                    it.remove();
                    removeFromModel(k);
                }
            }
            assertThat(union(seen, model.keySet())).as("the key set's keys").isEqualTo(seen);
        }

        void iterateValues() {
            List<String> seen = new ArrayList<>();
            List<String> removedValues = new ArrayList<>();
            for (Iterator<byte[]> it = map.values().iterator(); it.hasNext(); ) {
                byte[] v = it.next();
                seen.add(fingerprint(v));
                if (random.nextInt(3) == 0) {
                    it.remove();
                    removedValues.add(fingerprint(v));
                }
            }
            List<String> all = new ArrayList<>();
            for (byte[] v : model.values()) {
                all.add(fingerprint(v));
            }
            Collections.sort(all);
            Collections.sort(seen);
            assertThat(seen).as("the values").isEqualTo(all);
            if (!listening) {
                int before = model.size();
                removeWhatTheCacheLost();
                assertThat(before - model.size()).as("removals through the values' iterator").isEqualTo(removedValues.size());
                return;
            }
            // the listener says which keys went
            List<String> events = new ArrayList<>();
            synchronized (told) {
                for (String e : told) {
                    if (!e.endsWith(":" + RemovalCause.EXPIRED)) {
                        events.add(e);
                    }
                }
            }
            assertThat(events).as("removals through the values' iterator").hasSize(removedValues.size());
            List<String> eventValues = new ArrayList<>();
            for (String e : events) {
                int eq = e.lastIndexOf('=');
                int colon = e.lastIndexOf(':');
                assertThat(e.substring(colon + 1)).isEqualTo(RemovalCause.EXPLICIT.name());
                String k = e.substring(0, eq);
                assertThat(fingerprint(model.get(k))).as("removed value of %s", k).isEqualTo(e.substring(eq + 1, colon));
                eventValues.add(e.substring(eq + 1, colon));
                removeFromModel(k);
            }
            Collections.sort(eventValues);
            Collections.sort(removedValues);
            assertThat(eventValues).isEqualTo(removedValues);
        }

        void replaceAll() {
            int mode = random.nextInt(3);
            Map<String, byte[]> newValues = new HashMap<>();
            for (Map.Entry<String, byte[]> e : model.entrySet()) {
                int h = Math.floorMod(e.getKey().hashCode() >>> mode, 3);
                if (h == 1) {
                    byte[] v = new byte[random.nextInt(40)];
                    random.nextBytes(v);
                    newValues.put(e.getKey(), v);
                }
            }
            map.replaceAll((k, v) -> {
                int h = Math.floorMod(k.hashCode() >>> mode, 3);
                if (h == 1) {
                    return newValues.get(k).clone();
                }
                if (h == 2 && v.length > 0) {
                    v[0]++;
                }
                return v;
            });
            for (String k : new ArrayList<>(model.keySet())) {
                int h = Math.floorMod(k.hashCode() >>> mode, 3);
                if (h == 1) {
                    put(k, newValues.get(k), RemovalCause.REPLACED);
                } else if (h == 2 && model.get(k).length > 0) {
                    model.get(k)[0]++; // changed in place: stored, untold
                    written(k);
                }
            }
        }

        void checkAfterStep(String key) {
            List<String> events;
            synchronized (told) {
                events = new ArrayList<>(told);
                told.clear();
            }
            List<String> wanted = new ArrayList<>(expected);
            expected.clear();
            // an entry whose deadline came leaves, told EXPIRED, whenever the cache comes across it
            for (Iterator<String> it = events.iterator(); it.hasNext(); ) {
                String e = it.next();
                if (e.endsWith(":" + RemovalCause.EXPIRED)) {
                    String k = e.substring(0, e.lastIndexOf('='));
                    assertThat(expiredUntold).as("an EXPIRED removal of an entry whose deadline came: %s", e).containsKey(k);
                    assertThat(event(k, expiredUntold.remove(k), RemovalCause.EXPIRED)).isEqualTo(e);
                    expiredHeaders.remove(k);
                    expirations++;
                    it.remove();
                }
            }
            Collections.sort(events);
            Collections.sort(wanted);
            if (listening) {
                assertThat(events).as("removals told").isEqualTo(wanted);
            }
            assertThat(cache.size()).as("size").isEqualTo(entryCount());
            assertThat(map.size()).as("the map's size").isEqualTo(entryCount());
            assertThat(cache.containsKey(key)).as("containsKey").isEqualTo(model.containsKey(key));
            byte[] stored = cache.readQuietly(key, segment -> segment.toArray(ValueLayout.JAVA_BYTE));
            assertThat(stored).as("the key's value").isEqualTo(model.get(key));
            long weighted = 0;
            for (Map.Entry<String, byte[]> e : model.entrySet()) {
                weighted += (header(e.getKey()) + keyBytes(e.getKey()) + e.getValue().length + 7) & ~7;
            }
            for (Map.Entry<String, byte[]> e : expiredUntold.entrySet()) {
                weighted += (expiredHeaders.get(e.getKey()) + keyBytes(e.getKey()) + e.getValue().length + 7) & ~7;
            }
            assertThat(cache.weightedSize()).as("weighted size").isEqualTo(weighted);
        }

        /** The entries the cache holds: the live ones and those expired but not yet told. */
        int entryCount() {
            return model.size() + expiredUntold.size();
        }

        long nowMillis() {
            return (nanos.get() - START_NANOS) / 1_000_000;
        }

        /** Moves the clock on by whole milliseconds; the entries whose deadline came are no longer live. */
        void moveTheClock() {
            nanos.addAndGet(1_000_000L * random.nextInt(afterWriteMillis > 0 ? (int) afterWriteMillis : 300));
            long now = nowMillis();
            for (String k : new ArrayList<>(model.keySet())) {
                long[] deadline = deadlines.get(k);
                if (deadline[0] != 0 && deadline[0] <= now || deadline[1] != 0 && deadline[1] <= now) {
                    assertThat(expiredUntold).as("an expired entry of the key is still untold").doesNotContainKey(k);
                    expiredHeaders.put(k, header(k));
                    expiredUntold.put(k, model.remove(k));
                    deadlines.remove(k);
                    withTimeToLive.remove(k);
                }
            }
        }

        /** Without a listener: the model's keys the cache no longer has were removed by the step. */
        void removeWhatTheCacheLost() {
            for (String k : new ArrayList<>(model.keySet())) {
                if (!cache.containsKey(k)) {
                    removeFromModel(k);
                }
            }
        }

        void checkContents() {
            impl.verify();
            Map<String, byte[]> contents = new HashMap<>();
            for (Iterator<Map.Entry<String, byte[]>> it = cache.entries(); it.hasNext(); ) {
                Map.Entry<String, byte[]> e = it.next();
                assertThat(contents.put(e.getKey(), e.getValue())).as("entries() sees each key once").isNull();
            }
            assertThat(contents.keySet()).as("the cache's keys").isEqualTo(model.keySet());
            for (Map.Entry<String, byte[]> e : model.entrySet()) {
                assertThat(contents.get(e.getKey())).as("the value of %s", e.getKey()).isEqualTo(e.getValue());
            }
            assertThat(told).as("removals told between steps").isEmpty();
            if (recordsStats && listening) {
                CacheStats stats = cache.stats();
                assertThat(stats.evictionCount()).as("evictions").isZero();
                assertThat(stats.evictionBytes()).as("bytes evicted").isZero();
                assertThat(stats.expirationCount()).as("expirations counted").isEqualTo(expirations);
            }
        }
    }
}
