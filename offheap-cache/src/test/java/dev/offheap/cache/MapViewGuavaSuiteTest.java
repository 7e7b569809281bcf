package dev.offheap.cache;

import com.google.common.collect.testing.ConcurrentMapTestSuiteBuilder;
import com.google.common.collect.testing.TestStringMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.MapFeature;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import junit.framework.Test;
import junit.framework.TestSuite;
import org.junit.runner.RunWith;
import org.junit.runners.AllTests;

/**
 * Guava's test suite for {@link java.util.concurrent.ConcurrentMap} implementations, run against
 * {@link OffHeapCache#asMap()} with String keys and values (whose serialized bytes are equal exactly when
 * the strings are), one cache per generated map: about a thousand tests of the map, its views and their
 * iterators, null handling included. Run by JUnit 5's vintage engine.
 */
@RunWith(AllTests.class)
public final class MapViewGuavaSuiteTest {
    /** The caches the suite made; each test's tear-down closes them. */
    private static final List<OffHeapCache<String, String>> CACHES = new ArrayList<>();

    private MapViewGuavaSuiteTest() {
    }

    /** @return the suite, as JUnit 3 and {@link AllTests} want it */
    @SuppressWarnings("exports") // junit's module is read by the tests only; the suite method must be public
    public static Test suite() {
        TestSuite suite = new TestSuite("OffHeapCache.asMap()");
        for (EvictionPolicy policy : EvictionPolicy.values()) {
            suite.addTest(ConcurrentMapTestSuiteBuilder.using(generator(policy))
                    .named("asMap " + policy)
                    .withFeatures(CollectionSize.ANY, MapFeature.GENERAL_PURPOSE,
                            CollectionFeature.SUPPORTS_ITERATOR_REMOVE)
                    .withTearDown(MapViewGuavaSuiteTest::closeCaches)
                    .createTestSuite());
        }
        return suite;
    }

    private static TestStringMapGenerator generator(EvictionPolicy policy) {
        return new TestStringMapGenerator() {
            @Override
            protected Map<String, String> create(Map.Entry<String, String>[] entries) {
                OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                        .capacity(1L << 20).evictionPolicy(policy).name("guava-suite").build();
                synchronized (CACHES) {
                    CACHES.add(cache);
                }
                Map<String, String> map = cache.asMap();
                for (Map.Entry<String, String> e : entries) {
                    map.put(e.getKey(), e.getValue());
                }
                return map;
            }
        };
    }

    private static void closeCaches() {
        synchronized (CACHES) {
            CACHES.forEach(OffHeapCache::close);
            CACHES.clear();
        }
    }
}
