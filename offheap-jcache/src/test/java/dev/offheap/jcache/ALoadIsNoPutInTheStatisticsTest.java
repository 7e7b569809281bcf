package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CompletionListenerFuture;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * JCache's statistics count no load as a put: the specification's table of statistics effects counts puts
 * for the writing calls only, and the reference implementation says so at each load ("do not count LOAD as a
 * put for cache statistics"), for a read-through {@code get}, {@code getAll}, {@code loadAll} and an entry
 * processor's read-through {@code getValue} alike. An entry processor whose {@code getValue} loaded the
 * value counted a put, where a read-through {@code get} of the same key counted none.
 */
class ALoadIsNoPutInTheStatisticsTest extends JCacheTestBase {

    /** Loads "loaded:" and the key. */
    public static final class Loader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            return "loaded:" + key;
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            Map<String, String> values = new HashMap<>();
            keys.forEach(key -> values.put(key, load(key)));
            return values;
        }
    }

    private Cache<String, String> readThrough(String name) {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(Loader.class));
        return manager.createCache(name, configuration);
    }

    private long attribute(String cacheName, String attribute) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, attribute)).longValue();
    }

    @Test
    void aReadThroughGetCountsAMissAndNoPut() throws Exception {
        Cache<String, String> cache = readThrough("get");
        assertThat(cache.get("k")).isEqualTo("loaded:k");
        assertThat(cache.containsKey("k")).isTrue();
        assertThat(attribute("get", "CacheMisses")).isEqualTo(1);
        assertThat(attribute("get", "CachePuts")).isZero();
    }

    @Test
    void aReadThroughGetAllCountsMissesAndNoPut() throws Exception {
        Cache<String, String> cache = readThrough("get-all");
        assertThat(cache.getAll(Set.of("a", "b"))).hasSize(2);
        assertThat(attribute("get-all", "CacheMisses")).isEqualTo(2);
        assertThat(attribute("get-all", "CachePuts")).isZero();
    }

    @Test
    void loadAllCountsNoPut() throws Exception {
        Cache<String, String> cache = readThrough("load-all");
        CompletionListenerFuture done = new CompletionListenerFuture();
        cache.loadAll(Set.of("a", "b"), true, done);
        done.get(10, TimeUnit.SECONDS);
        assertThat(cache.containsKey("a")).isTrue();
        assertThat(attribute("load-all", "CachePuts")).isZero();
    }

    @Test
    void anEntryProcessorsReadThroughGetValueCountsAMissAndNoPut() throws Exception {
        Cache<String, String> cache = readThrough("invoke");
        String seen = cache.invoke("k", (entry, arguments) -> entry.getValue());
        assertThat(seen).isEqualTo("loaded:k");
        assertThat(cache.containsKey("k")).as("the loaded value is stored").isTrue();
        assertThat(attribute("invoke", "CacheMisses")).isEqualTo(1);
        assertThat(attribute("invoke", "CachePuts")).as("a load, no put").isZero();
    }

    @Test
    void anEntryProcessorThatSetsAValueStillCountsAPut() throws Exception {
        Cache<String, String> cache = readThrough("invoke-set");
        cache.invoke("k", (entry, arguments) -> {
            entry.setValue("set");
            return null;
        });
        assertThat(cache.get("k")).isEqualTo("set");
        assertThat(attribute("invoke-set", "CachePuts")).isEqualTo(1);
    }
}
