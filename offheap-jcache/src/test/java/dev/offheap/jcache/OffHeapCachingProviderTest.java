package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;

import java.io.Serializable;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.configuration.OptionalFeature;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryExpiredListener;
import javax.cache.event.CacheEntryListenerException;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.spi.CachingProvider;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class OffHeapCachingProviderTest extends JCacheTestBase {
    @Test
    void theServiceLoaderFindsTheProvider() {
        CachingProvider found = Caching.getCachingProvider(OffHeapCachingProvider.class.getName());
        assertThat(found).isInstanceOf(OffHeapCachingProvider.class);
        assertThat(Caching.getCachingProvider()).isSameAs(found);
        found.close();
    }

    @Test
    @SuppressWarnings("unchecked") // getConfiguration(OffHeapConfiguration.class) with a raw class literal
    void aPlainConfigurationGetsTheDefaultCapacityAndPolicy() {
        Cache<String, String> cache = manager.createCache("plain", new MutableConfiguration<String, String>());
        OffHeapConfiguration<?, ?> reported = cache.getConfiguration(OffHeapConfiguration.class);
        assertThat(reported.getCapacityBytes()).isEqualTo(OffHeapConfiguration.DEFAULT_CAPACITY_BYTES);
        assertThat(reported.getEvictionPolicy()).isEqualTo(EvictionPolicy.W_TINY_LFU);
        assertThat(cache.unwrap(OffHeapCache.class).capacityBytes())
                .isEqualTo(OffHeapConfiguration.DEFAULT_CAPACITY_BYTES);
    }

    @Test
    @SuppressWarnings("unchecked") // getConfiguration(OffHeapConfiguration.class) with a raw class literal
    void theConfigurationsCapacityAndPolicyReachTheCache() {
        OffHeapConfiguration<Long, String> configuration = small(Long.class, String.class);
        configuration.setEvictionPolicy(EvictionPolicy.LRU);
        Cache<Long, String> cache = manager.createCache("sized", configuration);
        assertThat(cache.unwrap(OffHeapCache.class).capacityBytes()).isEqualTo(SMALL);
        assertThat(cache.getConfiguration(OffHeapConfiguration.class).getEvictionPolicy()).isEqualTo(EvictionPolicy.LRU);
        // The cache copied the configuration: changing it afterwards changes nothing.
        configuration.setCapacityBytes(SMALL * 2);
        assertThat(cache.getConfiguration(OffHeapConfiguration.class).getCapacityBytes()).isEqualTo(SMALL);
    }

    @Test
    void theManagerPropertySetsTheDefaultCapacity() {
        Properties properties = new Properties();
        properties.setProperty(OffHeapConfiguration.CAPACITY_PROPERTY, "2097152");
        CacheManager sized = provider.getCacheManager(URI.create("sized"), getClass().getClassLoader(), properties);
        Cache<String, String> cache = sized.createCache("c", new MutableConfiguration<String, String>());
        assertThat(cache.unwrap(OffHeapCache.class).capacityBytes()).isEqualTo(2L << 20);
    }

    @Test
    void aBadCapacityPropertyIsRejectedNamingIt() {
        for (String bad : List.of("lots", "0", "-5")) {
            Properties properties = new Properties();
            properties.setProperty(OffHeapConfiguration.CAPACITY_PROPERTY, bad);
            CacheManager sized = provider.getCacheManager(URI.create("bad-" + bad), getClass().getClassLoader(),
                    properties);
            assertThatThrownBy(() -> sized.createCache("c", new MutableConfiguration<String, String>()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(OffHeapConfiguration.CAPACITY_PROPERTY)
                    .hasMessageContaining(bad);
            assertThat(sized.getCache("c")).isNull();
        }
    }

    @Test
    void configurationSettersRejectBadValues() {
        OffHeapConfiguration<String, String> configuration = new OffHeapConfiguration<>();
        assertThatThrownBy(() -> configuration.setCapacityBytes(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 bytes");
        assertThatThrownBy(() -> configuration.setCapacityBytes(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1 bytes");
        assertThatThrownBy(() -> configuration.setEvictionPolicy(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("evictionPolicy");
        assertThatThrownBy(() -> new OffHeapConfiguration<String, String>(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("configuration");
        assertThat(configuration.getCapacityBytes()).isZero();
    }

    @Test
    void configurationsCompareTheirOwnSettingsToo() {
        OffHeapConfiguration<String, String> a = new OffHeapConfiguration<>();
        OffHeapConfiguration<String, String> b = new OffHeapConfiguration<>();
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        b.setCapacityBytes(SMALL);
        assertThat(a).isNotEqualTo(b);
        OffHeapConfiguration<String, String> copy = new OffHeapConfiguration<>(b);
        assertThat(copy).isEqualTo(b);
        assertThat(copy.getCapacityBytes()).isEqualTo(SMALL);
        MutableConfiguration<String, String> plain = new MutableConfiguration<>();
        OffHeapConfiguration<String, String> copiedPlain = new OffHeapConfiguration<>(plain);
        assertThat(copiedPlain).isEqualTo(plain);
    }

    @Test
    void storeByReferenceIsNotSupported() {
        assertThat(provider.isSupported(OptionalFeature.STORE_BY_REFERENCE)).isFalse();
        assertThatThrownBy(() -> provider.isSupported(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> manager.createCache("ref", new MutableConfiguration<>().setStoreByValue(false)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("store-by-reference");
    }

    @Test
    void valuesAreStoredByValue() {
        Cache<String, StringBuilder> cache = manager.createCache("byValue", small(String.class, StringBuilder.class));
        StringBuilder value = new StringBuilder("before");
        cache.put("k", value);
        value.append(" changed");
        StringBuilder first = cache.get("k");
        assertThat(first.toString()).isEqualTo("before");
        first.append(" again");
        assertThat(cache.get("k").toString()).isEqualTo("before");
    }

    record Point(int x, int y) implements Serializable {
    }

    @Test
    void anySerializableTypeRoundTrips() {
        Cache<Point, List<String>> cache = manager.createCache("objects",
                new OffHeapConfiguration<Point, List<String>>().setCapacityBytes(SMALL));
        cache.put(new Point(1, 2), new ArrayList<>(List.of("a", "b")));
        assertThat(cache.get(new Point(1, 2))).containsExactly("a", "b");
        assertThat(cache.containsKey(new Point(2, 1))).isFalse();
    }

    @Test
    void aValueThatCannotBeSerializedIsRejectedAndTheCacheIsIntact() {
        Cache<String, Object> cache = manager.createCache("mixed", small(String.class, Object.class));
        cache.put("k", "old");
        cache.put("other", 42);
        Object notSerializable = new Object();
        assertThatThrownBy(() -> cache.put("k", notSerializable))
                .hasStackTraceContaining("java.lang.Object")
                .hasStackTraceContaining("Serializable");
        assertThat(cache.get("k")).isEqualTo("old");
        assertThat(cache.get("other")).isEqualTo(42);
    }

    @Test
    void unwrapReachesTheOffHeapCacheAndRejectsOtherTypes() {
        Cache<Long, String> cache = manager.createCache("unwrap", small(Long.class, String.class));
        cache.put(1L, "one");
        cache.put(2L, "two");
        @SuppressWarnings("unchecked")
        OffHeapCache<Long, ?> offHeap = cache.unwrap(OffHeapCache.class);
        assertThat(offHeap.size()).isEqualTo(2);
        assertThat(offHeap.weightedSize()).isPositive();
        assertThat(offHeap.capacityBytes()).isEqualTo(SMALL);
        Object unwrapped = cache.unwrap(Cache.class);
        assertThat(unwrapped).isSameAs(cache);
        assertThatThrownBy(() -> cache.unwrap(String.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.String");
        assertThat(manager.unwrap(CacheManager.class)).isSameAs(manager);
        assertThatThrownBy(() -> manager.unwrap(String.class)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachValueCarriesItsExpiryTimeInFront() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(Duration.ONE_HOUR));
        Cache<String, String> cache = manager.createCache("expiring", configuration);
        long before = System.currentTimeMillis();
        cache.put("k", "v");
        long after = System.currentTimeMillis();
        @SuppressWarnings("unchecked")
        OffHeapCache<String, ?> offHeap = cache.unwrap(OffHeapCache.class);
        Long expiresAt = offHeap.read("k", bytes -> bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertThat(expiresAt).isBetween(before + 3_600_000, after + 3_600_000);
        Integer bytes = offHeap.read("k", segment -> (int) segment.byteSize());
        assertThat(bytes).isEqualTo(Long.BYTES + 1);
    }

    /** Expires entries at their first access: deterministic, no sleeping. */
    public static final class ExpireOnAccess implements ExpiryPolicy, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Duration getExpiryForCreation() {
            return Duration.ETERNAL;
        }

        @Override
        public Duration getExpiryForAccess() {
            return Duration.ZERO;
        }

        @Override
        public Duration getExpiryForUpdate() {
            return null;
        }
    }

    /** Counts expired events in a static counter (listener factories make new instances). */
    public static final class ExpiredCounter implements CacheEntryExpiredListener<String, String>, Serializable {
        private static final long serialVersionUID = 1L;
        static final List<String> EXPIRED = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onExpired(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            for (CacheEntryEvent<? extends String, ? extends String> event : events) {
                EXPIRED.add(event.getKey() + "=" + event.getOldValue());
            }
        }
    }

    @Test
    void anEntryExpiredByItsPolicyIsGoneAndReportedOnce() {
        ExpiredCounter.EXPIRED.clear();
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(ExpireOnAccess.class));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(ExpiredCounter.class), null, true, true));
        Cache<String, String> cache = manager.createCache("accessOnce", configuration);
        cache.put("k", "v");
        assertThat(cache.get("k")).isEqualTo("v");
        assertThat(cache.get("k")).isNull();
        assertThat(cache.get("k")).isNull();
        assertThat(ExpiredCounter.EXPIRED).containsExactly("k=v");
        assertThat(cache.unwrap(OffHeapCache.class).size()).isZero();
    }

    /**
     * Loads "loaded-" + key for every key but "none", recording each call (loader factories make new
     * instances); {@code loadAll} of a set holding "fail" throws.
     */
    public static final class RecordingLoader implements javax.cache.integration.CacheLoader<String, String>, Serializable {
        private static final long serialVersionUID = 1L;
        static final List<String> CALLS = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public String load(String key) {
            CALLS.add("load " + key);
            return key.equals("none") ? null : "loaded-" + key;
        }

        @Override
        public java.util.Map<String, String> loadAll(Iterable<? extends String> keys) {
            java.util.TreeSet<String> sorted = new java.util.TreeSet<>();
            keys.forEach(sorted::add);
            CALLS.add("loadAll " + sorted);
            if (sorted.contains("fail")) {
                throw new IllegalStateException("loader failed on purpose");
            }
            java.util.Map<String, String> loaded = new java.util.HashMap<>();
            for (String key : sorted) {
                if (!key.equals("none")) {
                    loaded.put(key, "loaded-" + key);
                }
            }
            return loaded;
        }
    }

    private Cache<String, String> readThrough(String name, boolean expireOnAccess) {
        RecordingLoader.CALLS.clear();
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(RecordingLoader.class));
        configuration.setReadThrough(true);
        configuration.setStatisticsEnabled(true);
        if (expireOnAccess) {
            configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(ExpireOnAccess.class));
        }
        return manager.createCache(name, configuration);
    }

    @Test
    void getAllLoadsTheAbsentKeysWithOneLoadAllCall() throws Exception {
        Cache<String, String> cache = readThrough("getAllReadThrough", false);
        cache.put("a", "A");
        cache.put("b", "B");
        java.util.Map<String, String> result = cache.getAll(java.util.Set.of("a", "b", "x", "y", "none"));
        assertThat(result).containsOnly(java.util.Map.entry("a", "A"), java.util.Map.entry("b", "B"),
                java.util.Map.entry("x", "loaded-x"), java.util.Map.entry("y", "loaded-y"));
        assertThat(RecordingLoader.CALLS).containsExactly("loadAll [none, x, y]");
        // the loaded values are stored, the key the loader had nothing for is not
        assertThat(cache.getAll(java.util.Set.of("a", "x", "y"))).hasSize(3);
        assertThat(RecordingLoader.CALLS).containsExactly("loadAll [none, x, y]");
        assertThat(cache.unwrap(OffHeapCache.class).size()).isEqualTo(4);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replace(':', '.') + ",Cache=getAllReadThrough");
        assertThat(server.getAttribute(statistics, "CacheHits")).isEqualTo(5L);
        assertThat(server.getAttribute(statistics, "CacheMisses")).isEqualTo(3L);
    }

    @Test
    void getAllReloadsExpiredEntriesAndReportsTheirExpiry() {
        ExpiredCounter.EXPIRED.clear();
        Cache<String, String> cache = readThrough("getAllExpired", true);
        cache.registerCacheEntryListener(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(ExpiredCounter.class), null, true, true));
        cache.put("k", "v");
        assertThat(cache.get("k")).isEqualTo("v"); // its access expiry is zero: expired from now on
        assertThat(cache.getAll(java.util.Set.of("k"))).containsOnly(java.util.Map.entry("k", "loaded-k"));
        assertThat(ExpiredCounter.EXPIRED).containsExactly("k=v");
        assertThat(RecordingLoader.CALLS).containsExactly("loadAll [k]");
    }

    @Test
    void aFailingLoadAllInGetAllIsACacheLoaderExceptionAndChangesNothing() {
        Cache<String, String> cache = readThrough("getAllFailing", false);
        cache.put("a", "A");
        assertThatThrownBy(() -> cache.getAll(java.util.Set.of("a", "fail")))
                .isInstanceOf(javax.cache.integration.CacheLoaderException.class)
                .hasMessageContaining("cache loader failed to load 1 keys")
                .hasRootCauseMessage("loader failed on purpose");
        assertThat(cache.get("a")).isEqualTo("A");
        assertThat(cache.containsKey("fail")).isFalse();
        assertThat(cache.unwrap(OffHeapCache.class).size()).isEqualTo(1);
    }

    /** A synchronous listener that fails. */
    public static final class FailingListener implements CacheEntryCreatedListener<String, String>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            throw new IllegalStateException("listener failed on purpose");
        }
    }

    @Test
    void aFailingSynchronousListenerReachesTheCallerAfterTheChange() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(FailingListener.class), null, false, true));
        Cache<String, String> cache = manager.createCache("failingListener", configuration);
        assertThatThrownBy(() -> cache.put("k", "v"))
                .isInstanceOf(CacheEntryListenerException.class)
                .hasRootCauseMessage("listener failed on purpose");
        assertThat(cache.get("k")).isEqualTo("v");
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void badInputGetsSpecificExceptions() {
        Cache<String, String> cache = manager.createCache("bad", small(String.class, String.class));
        assertThatThrownBy(() -> cache.put(null, "v")).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> cache.put("k", null)).isInstanceOf(NullPointerException.class).hasMessage("value");
        assertThatThrownBy(() -> cache.get(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
        Cache raw = cache;
        assertThatThrownBy(() -> raw.put(1L, "v"))
                .isInstanceOf(ClassCastException.class).hasMessageContaining("java.lang.Long");
        assertThatThrownBy(() -> raw.put("k", 2))
                .isInstanceOf(ClassCastException.class).hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> manager.createCache("bad", small(String.class, String.class)))
                .isInstanceOf(CacheException.class).hasMessageContaining("'bad' already exists");
        assertThatThrownBy(() -> manager.getCache("bad", Long.class, String.class))
                .isInstanceOf(ClassCastException.class);
        assertThatThrownBy(() -> manager.createCache(null, small(String.class, String.class)))
                .isInstanceOf(NullPointerException.class).hasMessage("cacheName");
    }

    @Test
    void closedCachesAndManagersThrowAndReleaseTheirMemory() {
        Cache<String, String> cache = manager.createCache("closing", small(String.class, String.class));
        cache.put("k", "v");
        OffHeapCache<?, ?> offHeap = cache.unwrap(OffHeapCache.class);
        cache.close();
        cache.close();
        assertThat(cache.isClosed()).isTrue();
        assertThat(offHeap.isClosed()).isTrue();
        assertThatThrownBy(() -> cache.get("k"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'closing' is closed");
        assertThat(manager.getCache("closing")).isNull();

        Cache<String, String> other = manager.createCache("other", small(String.class, String.class));
        manager.close();
        assertThat(other.isClosed()).isTrue();
        assertThatThrownBy(() -> manager.createCache("x", small(String.class, String.class)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(provider.getCacheManager()).isNotSameAs(manager);
    }

    @Test
    void statisticsAndConfigurationMBeansAreInThePlatformServerWhileEnabled() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true).setManagementEnabled(true);
        Cache<String, String> cache = manager.createCache("managed:1", configuration);
        cache.put("k", "v");
        cache.get("k");
        cache.get("missing");
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replace(':', '.') + ",Cache=managed.1");
        ObjectName config = new ObjectName(statistics.toString().replace("CacheStatistics", "CacheConfiguration"));
        assertThat(server.getAttribute(statistics, "CacheHits")).isEqualTo(1L);
        assertThat(server.getAttribute(statistics, "CacheMisses")).isEqualTo(1L);
        assertThat(server.getAttribute(statistics, "CachePuts")).isEqualTo(1L);
        assertThat(server.getAttribute(config, "KeyType")).isEqualTo("java.lang.String");
        manager.enableStatistics("managed:1", false);
        assertThat(server.isRegistered(statistics)).isFalse();
        cache.close();
        assertThat(server.isRegistered(config)).isFalse();
    }

    /** Adds one to a counter, atomically per key. */
    static final class Increment implements javax.cache.processor.EntryProcessor<String, Long, Void> {
        @Override
        public Void process(javax.cache.processor.MutableEntry<String, Long> entry, Object... arguments) {
            entry.setValue(entry.exists() ? entry.getValue() + 1 : 1L);
            return null;
        }
    }

    @Test
    void entryProcessorsAreAtomicPerKeyAcrossThreads() throws Exception {
        Cache<String, Long> cache = manager.createCache("counter", small(String.class, Long.class));
        int threads = 4;
        int perThread = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    cache.invoke("n", new Increment());
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> future : done) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(cache.get("n")).isEqualTo((long) threads * perThread);
    }

    @Test
    void evictionKeepsTheCacheWithinItsCapacityAndIsCounted() throws Exception {
        OffHeapConfiguration<Integer, byte[]> configuration = small(Integer.class, byte[].class);
        configuration.setStatisticsEnabled(true);
        Cache<Integer, byte[]> cache = manager.createCache("evicting", configuration);
        byte[] value = new byte[16 * 1024];
        int count = (int) (4 * SMALL / value.length);
        for (int i = 0; i < count; i++) {
            cache.put(i, value);
        }
        OffHeapCache<?, ?> offHeap = cache.unwrap(OffHeapCache.class);
        assertThat(offHeap.stats().usedBytes()).isLessThanOrEqualTo(SMALL);
        assertThat(offHeap.size()).isLessThan(count);
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI() + ",Cache=evicting");
        Object evictions = ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, "CacheEvictions");
        assertThat(evictions).isEqualTo(count - offHeap.size());
    }

    @Test
    void closingWhileOtherThreadsUseTheCacheOnlyMakesThemThrowIllegalState() throws Exception {
        Cache<Integer, String> cache = manager.createCache("busy", small(Integer.class, String.class));
        int threads = 3;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch running = new CountDownLatch(threads);
        List<Future<Throwable>> outcomes = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            outcomes.add(pool.submit(() -> {
                running.countDown();
                try {
                    for (int i = 0; ; i++) {
                        int key = (i * 31 + seed) % 500;
                        cache.put(key, "value-" + i);
                        cache.get(key + 1);
                        cache.remove(key + 2);
                    }
                } catch (Throwable e) {
                    return e;
                }
            }));
        }
        running.await();
        Thread.sleep(50);
        cache.close();
        for (Future<Throwable> outcome : outcomes) {
            assertThat(outcome.get(60, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        }
        pool.shutdown();
        assertThat(cache.unwrap(OffHeapCache.class).isClosed()).isTrue();
    }

    /** Records the order in which an asynchronous listener sees values. */
    public static final class OrderRecorder implements CacheEntryCreatedListener<String, Integer>,
            javax.cache.event.CacheEntryUpdatedListener<String, Integer>, Serializable {
        private static final long serialVersionUID = 1L;
        static final List<Integer> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends Integer>> events) {
            events.forEach(event -> SEEN.add(event.getValue()));
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends Integer>> events) {
            events.forEach(event -> SEEN.add(event.getValue()));
        }
    }

    @Test
    void anAsynchronousListenerSeesOneThreadsChangesInOrder() throws Exception {
        OrderRecorder.SEEN.clear();
        OffHeapConfiguration<String, Integer> configuration = small(String.class, Integer.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(OrderRecorder.class), null, false, false));
        Cache<String, Integer> cache = manager.createCache("ordered", configuration);
        List<Integer> written = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            cache.put("k", i);
            written.add(i);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (OrderRecorder.SEEN.size() < written.size() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(OrderRecorder.SEEN).containsExactlyElementsOf(written);
    }

    /** Not Serializable: only a custom serializer can store it. */
    record Money(long cents) {
    }

    /** Money as 8 bytes. */
    public static final class MoneySerializer implements dev.offheap.cache.Serializer<Money> {
        @Override
        public int serializedSize(Money value) {
            return Long.BYTES;
        }

        @Override
        public void write(Money value, java.lang.foreign.MemorySegment target) {
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value.cents());
        }

        @Override
        public Money read(java.lang.foreign.MemorySegment source) {
            return new Money(source.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        }
    }

    @Test
    void aConfiguredSerializerReplacesTheOneTheTypeSelects() {
        OffHeapConfiguration<String, Money> configuration = small(String.class, Money.class);
        configuration.setValueSerializerFactory(FactoryBuilder.factoryOf(MoneySerializer.class));
        Cache<String, Money> cache = manager.createCache("money", configuration);
        cache.put("price", new Money(1999));
        assertThat(cache.get("price")).isEqualTo(new Money(1999));
        @SuppressWarnings("unchecked")
        OffHeapCache<String, ?> offHeap = cache.unwrap(OffHeapCache.class);
        Long stored = offHeap.read("price", bytes -> bytes.byteSize());
        assertThat(stored).isEqualTo(2L * Long.BYTES);

        OffHeapConfiguration<String, Money> withoutSerializer = small(String.class, Money.class);
        Cache<String, Money> javaSerialized = manager.createCache("money2", withoutSerializer);
        assertThatThrownBy(() -> javaSerialized.put("price", new Money(1)))
                .hasStackTraceContaining("not java.io.Serializable");
        assertThat(javaSerialized.containsKey("price")).isFalse();
    }

    @Test
    void aCapacityTooSmallForTheTablesIsRefusedAndNoCacheIsMade() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCapacityBytes(1_000);
        assertThatThrownBy(() -> manager.createCache("tiny", configuration))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1000 bytes");
        assertThat(manager.getCache("tiny")).isNull();
        assertThat(manager.createCache("tiny", small(String.class, String.class))).isNotNull();
    }

    @Test
    void anEntryProcessorThatCallsItsOwnCacheFailsAndChangesNothing() {
        Cache<String, String> cache = manager.createCache("reentrant", small(String.class, String.class));
        cache.put("k", "v");
        assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> {
            cache.put("other", "x");
            return null;
        }))
                .isInstanceOf(javax.cache.processor.EntryProcessorException.class)
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasStackTraceContaining("called from its own");
        assertThat(cache.get("k")).isEqualTo("v");
        assertThat(cache.containsKey("other")).isFalse();
        cache.put("other", "y");
        assertThat(cache.get("other")).isEqualTo("y");
    }

    // ---------------------------------------------------------------------------------------------------
    // Checked exceptions from user code (Kotlin, Groovy, Scala or Lombok's @SneakyThrows throw them
    // undeclared): JCache wants any Exception wrapped, not only RuntimeExceptions.

    /** Throws {@code t}, checked or not, without declaring it. */
    @SuppressWarnings("unchecked")
    static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    @Test
    void aCheckedExceptionFromAnEntryProcessorIsAnEntryProcessorExceptionAndChangesNothing() {
        Cache<String, String> cache = manager.createCache("checkedProcessor", small(String.class, String.class));
        cache.put("k", "v");
        javax.cache.processor.EntryProcessor<String, String, Object> throwsChecked = (entry, arguments) -> {
            entry.setValue("changed");
            throw sneaky(new java.io.IOException("processor failed on purpose"));
        };
        assertThatThrownBy(() -> cache.invoke("k", throwsChecked))
                .isInstanceOf(javax.cache.processor.EntryProcessorException.class)
                .hasCauseInstanceOf(java.io.IOException.class)
                .hasRootCauseMessage("processor failed on purpose");
        assertThat(cache.get("k")).isEqualTo("v");
        // one the processor throws itself stays as it is
        javax.cache.processor.EntryProcessorException own = new javax.cache.processor.EntryProcessorException("own");
        assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> {
            entry.remove();
            throw own;
        })).isSameAs(own);
        assertThat(cache.get("k")).isEqualTo("v");
    }

    @Test
    void invokeAllGivesACheckedExceptionToItsKeysResultAndProcessesTheOtherKeys() {
        Cache<String, String> cache = manager.createCache("checkedInvokeAll", small(String.class, String.class));
        java.util.Map<String, javax.cache.processor.EntryProcessorResult<String>> results = cache.invokeAll(
                new java.util.TreeSet<>(java.util.Set.of("a", "bad", "c")), (entry, arguments) -> {
                    if (entry.getKey().equals("bad")) {
                        throw sneaky(new java.io.IOException("processor failed on purpose"));
                    }
                    entry.setValue("set");
                    return "ok";
                });
        assertThat(results).containsOnlyKeys("a", "bad", "c");
        assertThatThrownBy(() -> results.get("bad").get())
                .isInstanceOf(javax.cache.processor.EntryProcessorException.class)
                .hasRootCauseInstanceOf(java.io.IOException.class);
        assertThat(results.get("a").get()).isEqualTo("ok");
        assertThat(results.get("c").get()).isEqualTo("ok");
        assertThat(cache.getAll(java.util.Set.of("a", "bad", "c")))
                .containsOnly(java.util.Map.entry("a", "set"), java.util.Map.entry("c", "set"));
    }

    /** A loader whose {@code load} and {@code loadAll} throw a checked exception. */
    public static final class CheckedFailingLoader implements javax.cache.integration.CacheLoader<String, String>,
            Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            throw sneaky(new java.io.IOException("database down"));
        }

        @Override
        public java.util.Map<String, String> loadAll(Iterable<? extends String> keys) {
            throw sneaky(new java.io.IOException("database down"));
        }
    }

    /** A loader whose {@code load} and {@code loadAll} throw an Error. */
    public static final class ErrorLoader implements javax.cache.integration.CacheLoader<String, String>,
            Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            throw new AssertionError("loader broke on purpose");
        }

        @Override
        public java.util.Map<String, String> loadAll(Iterable<? extends String> keys) {
            throw new AssertionError("loader broke on purpose");
        }
    }

    private Cache<String, String> readingThrough(String name,
                                                 Class<? extends javax.cache.integration.CacheLoader<String, String>> loader) {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(loader));
        configuration.setReadThrough(true);
        return manager.createCache(name, configuration);
    }

    @Test
    void aCheckedExceptionFromTheLoaderIsACacheLoaderExceptionOnReadThrough() {
        Cache<String, String> cache = readingThrough("checkedLoader", CheckedFailingLoader.class);
        assertThatThrownBy(() -> cache.get("a"))
                .isInstanceOf(javax.cache.integration.CacheLoaderException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThatThrownBy(() -> cache.getAll(java.util.Set.of("a", "b")))
                .isInstanceOf(javax.cache.integration.CacheLoaderException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThat(cache.containsKey("a")).isFalse();
    }

    @Test
    void loadAllReportsACheckedLoaderExceptionToTheCompletionListener() {
        Cache<String, String> cache = readingThrough("checkedLoadAll", CheckedFailingLoader.class);
        javax.cache.integration.CompletionListenerFuture future = new javax.cache.integration.CompletionListenerFuture();
        cache.loadAll(java.util.Set.of("a", "b"), false, future);
        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class)
                .cause().isInstanceOf(javax.cache.integration.CacheLoaderException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
    }

    @Test
    void loadAllReportsALoadersErrorToTheCompletionListener() {
        Cache<String, String> cache = readingThrough("errorLoadAll", ErrorLoader.class);
        javax.cache.integration.CompletionListenerFuture future = new javax.cache.integration.CompletionListenerFuture();
        cache.loadAll(java.util.Set.of("a", "b"), true, future);
        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class)
                .cause().isInstanceOf(CacheException.class)
                .hasRootCauseInstanceOf(AssertionError.class);
        // the next loadAll is heard of too
        javax.cache.integration.CompletionListenerFuture again = new javax.cache.integration.CompletionListenerFuture();
        cache.loadAll(java.util.Set.of("c"), true, again);
        assertThatThrownBy(() -> again.get(10, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
    }

    /**
     * A writer that throws a checked exception writing a key that starts with "bad-put" and deleting one
     * that starts with "bad-delete"; {@code writeAll} and {@code deleteAll} throw if any key starts with "bad".
     */
    public static final class CheckedFailingWriter implements javax.cache.integration.CacheWriter<String, String>,
            Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {
            if (entry.getKey().startsWith("bad-put")) {
                throw sneaky(new java.io.IOException("database down"));
            }
        }

        @Override
        public void writeAll(java.util.Collection<Cache.Entry<? extends String, ? extends String>> entries) {
            if (entries.stream().anyMatch(entry -> entry.getKey().startsWith("bad"))) {
                throw sneaky(new java.io.IOException("database down"));
            }
            entries.clear();
        }

        @Override
        public void delete(Object key) {
            if (((String) key).startsWith("bad-delete")) {
                throw sneaky(new java.io.IOException("database down"));
            }
        }

        @Override
        public void deleteAll(java.util.Collection<?> keys) {
            if (keys.stream().anyMatch(key -> ((String) key).startsWith("bad"))) {
                throw sneaky(new java.io.IOException("database down"));
            }
            keys.clear();
        }
    }

    @Test
    void aCheckedExceptionFromTheWriterIsACacheWriterExceptionAndChangesNothing() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheWriterFactory(FactoryBuilder.factoryOf(CheckedFailingWriter.class));
        configuration.setWriteThrough(true);
        Cache<String, String> cache = manager.createCache("checkedWriter", configuration);

        assertThatThrownBy(() -> cache.put("bad-put", "v"))
                .isInstanceOf(javax.cache.integration.CacheWriterException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThat(cache.containsKey("bad-put")).isFalse();
        assertThatThrownBy(() -> cache.putAll(java.util.Map.of("a", "A", "bad-put2", "B")))
                .isInstanceOf(javax.cache.integration.CacheWriterException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThat(cache.containsKey("a")).isFalse();

        cache.put("bad-delete", "v");
        assertThatThrownBy(() -> cache.remove("bad-delete"))
                .isInstanceOf(javax.cache.integration.CacheWriterException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThatThrownBy(() -> cache.removeAll(java.util.Set.of("bad-delete")))
                .isInstanceOf(javax.cache.integration.CacheWriterException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThat(cache.get("bad-delete")).isEqualTo("v");
    }

    /** A synchronous listener that throws a checked exception. */
    public static final class CheckedFailingListener implements CacheEntryCreatedListener<String, String>,
            Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            throw sneaky(new java.io.IOException("listener failed on purpose"));
        }
    }

    @Test
    void aCheckedExceptionFromASynchronousListenerIsACacheEntryListenerException() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(CheckedFailingListener.class), null, false, true));
        Cache<String, String> cache = manager.createCache("checkedListener", configuration);
        assertThatThrownBy(() -> cache.put("k", "v"))
                .isInstanceOf(CacheEntryListenerException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        assertThat(cache.get("k")).isEqualTo("v");
    }

    /** An expiry policy whose every answer is a checked exception. */
    public static final class CheckedFailingExpiry implements ExpiryPolicy, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Duration getExpiryForCreation() {
            throw sneaky(new java.io.IOException("policy failed on purpose"));
        }

        @Override
        public Duration getExpiryForAccess() {
            throw sneaky(new java.io.IOException("policy failed on purpose"));
        }

        @Override
        public Duration getExpiryForUpdate() {
            throw sneaky(new java.io.IOException("policy failed on purpose"));
        }
    }

    @Test
    void aCheckedExceptionFromTheExpiryPolicyFallsBackLikeAnUncheckedOne() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setExpiryPolicyFactory(FactoryBuilder.factoryOf(CheckedFailingExpiry.class));
        Cache<String, String> cache = manager.createCache("checkedExpiry", configuration);
        cache.put("k", "v"); // creation: eternal
        assertThat(cache.get("k")).isEqualTo("v"); // access: unchanged
        cache.put("k", "w"); // update: unchanged
        assertThat(cache.get("k")).isEqualTo("w");
    }

    @Test
    @SuppressWarnings("unchecked") // getConfiguration(MutableConfiguration.class) with a raw class literal
    void changingTheReportedConfigurationDoesNotChangeTheCache() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(RecordingLoader.class));
        configuration.setReadThrough(true);
        Cache<String, String> cache = manager.createCache("reportedConfiguration", configuration);
        assertThat(cache.get("a")).isEqualTo("loaded-a");

        MutableConfiguration<String, String> reported = cache.getConfiguration(MutableConfiguration.class);
        reported.setReadThrough(false);
        reported.setStatisticsEnabled(true);
        reported.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(FailingListener.class), null, false, true));
        assertThat(cache.get("b")).as("read-through after the reported configuration was changed")
                .isEqualTo("loaded-b");
        OffHeapConfiguration<String, String> again = cache.getConfiguration(OffHeapConfiguration.class);
        assertThat(again.isReadThrough()).isTrue();
        assertThat(again.isStatisticsEnabled()).isFalse();
        assertThat(again.getCacheEntryListenerConfigurations()).isEmpty();
        assertThat(again.getCapacityBytes()).isEqualTo(SMALL);
        // what the cache itself changes shows in the configurations it reports from then on
        manager.enableStatistics("reportedConfiguration", true);
        assertThat(cache.getConfiguration(javax.cache.configuration.CompleteConfiguration.class).isStatisticsEnabled())
                .isTrue();
        assertThat(again.isStatisticsEnabled()).isFalse();
    }
}
